//! `dudo create`, `join`, `list`, `watch`, `host …` and `leave`: tables on a server.
//!
//! A seat taken here is remembered (see `seats`), so joining the same table again returns
//! to the seat instead of taking another (unless `--name` names another player, who takes a
//! seat of their own), and the host's commands work from any terminal.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use dudo_client::{Client, SeatKey};

use crate::at_table;
use crate::net::{ServerArgs, seats_line, summary_line, table_line};

/// The most tables `dudo list` prints (a page at a time from the server).
const LIST_MOST: usize = 1_000;
use crate::render::safe;
use crate::seats::{self, Saved};
use crate::{RuleArgs, play::default_name};

#[derive(Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Seats at the table (default: the rule set's minimum).
    #[arg(long)]
    pub seats: Option<u32>,
    /// Your name at the table (default: your login name).
    #[arg(long)]
    pub name: Option<String>,
    /// Seed for reproducible dice.
    #[arg(long)]
    pub seed: Option<u64>,
    /// A turn clock: seconds for each call. When it runs out, the player's default call is
    /// made for them, so one who walks away never holds the game up; 0: no clock (then only
    /// the host removing them does). Default: the server's game-night clock (60 s a move
    /// and a 60 s bank unless its operator chose another).
    #[arg(long)]
    pub clock: Option<u32>,
    /// A time bank per player, in seconds, spent when a call runs over the clock (default:
    /// the server's, with its clock; none with --clock).
    #[arg(long)]
    pub time_bank: Option<u32>,
    /// How long built-in bots think before each call, in milliseconds.
    #[arg(long, default_value_t = 900)]
    pub bot_think_ms: u32,
    /// How long everyone who may call out of turn (calza by the others) has to answer after
    /// each bid, in milliseconds (100 to 60000); 0 waits until each has answered, no longer
    /// than the move clock (--clock), or 30 s without one.
    #[arg(long, default_value_t = 3000, value_parser = crate::net::call_window_ms)]
    pub call_window_ms: u32,
    /// After each showdown, how long the next round waits for everyone to see the reveal, in
    /// seconds (0 to 30; each player's `next` ends it sooner). The server's default (5 s)
    /// unless given.
    #[arg(long, value_parser = crate::net::reveal_wait_secs)]
    pub reveal_wait: Option<u32>,
    /// Let spectators talk at the table (they only watch unless this is given).
    #[arg(long)]
    pub spectators_chat: bool,
    /// Print the join code and leave the table waiting instead of sitting at it.
    #[arg(long)]
    pub detach: bool,
    /// Host the table without taking a seat (for a table of bots, or one you only run):
    /// every seat is left for players and bots; the host's commands still work.
    #[arg(long, conflicts_with = "name")]
    pub host_only: bool,
    /// Count this table's games for the server's ranked Elo ratings (the server must keep
    /// them: dudo-server --ranked); `dudo ratings --server …` shows them.
    #[arg(long)]
    pub ranked: bool,
}

#[derive(Args)]
pub struct JoinArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The join code, the link (http://HOST:PORT/t/CODE, which also names the server) or
    /// the table id.
    pub table: String,
    /// Your name at the table (default: your login name). A seat this account already holds
    /// at the table under this name is taken back; another name takes a new seat.
    #[arg(long)]
    pub name: Option<String>,
}

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The join code, the link or the table id.
    pub table: String,
}

#[derive(Args)]
pub struct HostArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The table (join code, link or id) whose seat you hold as host.
    #[arg(long)]
    pub table: String,
    #[command(subcommand)]
    pub command: HostCommand,
}

#[derive(Subcommand)]
pub enum HostCommand {
    /// Change rule settings before the start: dudo host --table CODE settings dice.faces=8
    Settings {
        #[arg(value_name = "FIELD=VALUE", required = true)]
        settings: Vec<String>,
    },
    /// Seat a built-in bot (random, odds, reader or expert): dudo host --table CODE add-bot odds
    AddBot {
        #[arg(default_value = "odds")]
        bot: String,
    },
    /// Begin the game with the seats taken.
    Start,
    /// Who sits at each seat: the numbers `remove` takes.
    Who,
    /// Take a seat out, at any time (after a round's first call it plays the round out by
    /// its default moves, then goes).
    Remove { seat: u32 },
    /// Back to waiting, with the same seats and rules.
    Reset,
}

#[derive(Args)]
pub struct LeaveArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The table (join code, link or id).
    pub table: String,
    /// Which of your seats leaves, by its name, when you hold more than one at the table.
    #[arg(long)]
    pub name: Option<String>,
}

fn save(server: &str, key: &SeatKey, name: &str, host: bool) {
    seats::remember(Saved {
        server: server.to_string(),
        table: key.table.clone(),
        code: key.info.join_code.clone(),
        seat: key.seat,
        token: key.token.clone(),
        name: name.to_string(),
        host,
        host_only: false,
        link: key.info.link.clone(),
    });
}

/// "Hana and Ana", "Hana, Ana and Gus".
fn names_of(seats: &[Saved]) -> String {
    let names: Vec<String> = seats.iter().map(|s| safe(&s.name).into_owned()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// Which of the seats held at a table a command means: the one named, or the host's (for
/// the host's commands), or the only one.
fn pick(
    held: Vec<Saved>,
    name: Option<&str>,
    host: bool,
    table: &str,
    server: &str,
) -> anyhow::Result<Saved> {
    anyhow::ensure!(
        !held.is_empty(),
        "you hold no seat at {table} on {server}: create or join it first (from this machine)"
    );
    if let Some(name) = name {
        let all = names_of(&held);
        return held.into_iter().find(|s| s.name.eq_ignore_ascii_case(name)).ok_or_else(|| {
            anyhow::anyhow!("you hold no seat at {table} as {}; your seats there: {all}", safe(name))
        });
    }
    if host && let Some(seat) = held.iter().rev().find(|s| s.host) {
        return Ok(seat.clone());
    }
    match <[Saved; 1]>::try_from(held) {
        Ok([seat]) => Ok(seat),
        Err(held) => Err(anyhow::anyhow!(
            "you hold {} seats at {table}, as {}: say which with --name NAME",
            held.len(),
            names_of(&held)
        )),
    }
}

/// The seat this user holds at `table` on the server, remembered from create or join.
/// The name and account token a new seat is taken with on `server`: the account kept for
/// the server, unless `--name` names someone else (a guest seat, as for a friend at this
/// machine).
fn seat_as(server: &str, name: Option<&str>) -> (String, Option<String>) {
    let (name, token) = seat_as_quietly(server, name);
    // An account's token from the environment overrides what this machine keeps: say so.
    if token.is_some()
        && let Some(playing) = crate::account_cmd::playing_as(server).filter(|p| p.name.is_empty())
    {
        println!("(Sitting as the account whose token is in {}.)", playing.from);
    }
    (name, token)
}

fn seat_as_quietly(server: &str, name: Option<&str>) -> (String, Option<String>) {
    match (name, crate::account_cmd::for_server(server)) {
        (Some(n), Some((account, token)))
            if account.is_empty() || account.to_lowercase() == n.to_lowercase() =>
        {
            (n.to_string(), Some(token))
        }
        (Some(n), Some((account, _))) => {
            println!("(As a guest named {}: your account here is {}.)", safe(n), safe(&account));
            (n.to_string(), None)
        }
        // A bot account plays on the ladder; a person hosting or joining a game is not it.
        (None, Some((account, _))) if crate::account_cmd::is_bot_account(server) => {
            println!(
                "(As a guest: the account kept here, {}, is a bot's; `--name {}` sits as it.)",
                safe(&account),
                safe(&account)
            );
            (default_name(), None)
        }
        (None, Some((account, token))) => (account, Some(token)),
        (Some(n), None) => (n.to_string(), None),
        (None, None) => (default_name(), None),
    }
}

/// The name the table gave a seat (an account's own, whatever was asked).
fn seated_name(key: &SeatKey, asked: &str) -> String {
    key.info.players.get(key.seat as usize).map_or_else(|| asked.to_string(), |p| p.name.clone())
}

fn held(server: &str, table: &str, name: Option<&str>, host: bool) -> anyhow::Result<SeatKey> {
    let saved = pick(seats::held(server, table), name, host, table, server)?;
    Ok(SeatKey::saved(saved.table, saved.seat, saved.token))
}

pub fn create(args: CreateArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    args.server = args.server.resolved();
    let (name, account) = seat_as(&args.server.server, args.name.as_deref());
    let request = dudo_client::dudo_proto::v1::CreateTableRequest {
        name: name.clone(),
        seats: args.seats.unwrap_or(0),
        seed: args.seed,
        move_millis: args.clock.map(|secs| secs.saturating_mul(1000)),
        time_bank_millis: args.time_bank.unwrap_or(0).saturating_mul(1000),
        bot_think_millis: args.bot_think_ms,
        call_window_millis: Some(args.call_window_ms),
        reveal_pause_millis: args.reveal_wait.map(|s| s * 1000),
        spectators_chat: args.spectators_chat,
        rating_pool: if args.ranked { "ranked".into() } else { String::new() },
        host_only: args.host_only,
        ..args.rules.request()?
    };
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?.with_account(account);
        let key = client.create(request).await?;
        if args.host_only {
            seats::remember(Saved {
                server: args.server.server.clone(),
                table: key.table.clone(),
                code: key.info.join_code.clone(),
                seat: 0,
                token: key.token.clone(),
                name: "host".into(),
                host: true,
                host_only: true,
                link: key.info.link.clone(),
            });
        } else {
            save(&args.server.server, &key, &seated_name(&key, &name), true);
        }
        println!("Table created: {}", table_line(&key.info));
        println!("Join code: {}", safe(&key.info.join_code));
        println!("Link:      {}", safe(&key.info.link));
        if args.detach || args.host_only {
            println!("Others join with: {}", crate::render::join_hint(&key.info, &args.server.server));
            println!(
                "Host commands: dudo host --table {} start|add-bot|settings|who|remove|reset",
                safe(&key.info.join_code)
            );
            return Ok(ExitCode::SUCCESS);
        }
        let table = key.table.clone();
        at_table::sit(client, Some(key), &table, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn join(args: JoinArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    // A seat's own rejoin link (`link` at the table): that seat, taken back on this device.
    let rejoin = dudo_client::dudo_proto::link::rejoin(&args.table).map(str::to_string);
    if rejoin.is_some() {
        args.table = args.table.split('#').next().unwrap_or_default().to_string();
    }
    args.server = args.server.for_table(&mut args.table);
    if let Some(secret) = rejoin {
        let server = args.server.server.clone();
        return crate::net::runtime()?.block_on(async move {
            let client = args.server.connect().await?;
            let key = client.rejoin(&args.table, &secret).await?;
            let name = key.info.players.get(key.seat as usize).map(|p| p.name.clone()).unwrap_or_default();
            save(&server, &key, &name, false);
            println!(
                "Back in your seat at {} as {}, on this device.",
                safe(&key.info.join_code),
                safe(&name)
            );
            let table = key.table.clone();
            at_table::sit(client, Some(key), &table, None).await?;
            Ok(ExitCode::SUCCESS)
        });
    }
    let server = args.server.server.clone();
    let (name, account) = seat_as(&server, args.name.as_deref());
    // A host-only token is no seat to return to.
    let held: Vec<Saved> = seats::held(&server, &args.table).into_iter().filter(|s| !s.host_only).collect();
    // Back to a seat held already (after a crash, or from another terminal): the one under
    // the name asked for, or the only one when no name is given. A name this account holds
    // no seat under is another player (a friend at the same machine): a seat of their own.
    let back = match &args.name {
        Some(wanted) => held.iter().find(|s| s.name.eq_ignore_ascii_case(wanted)).cloned(),
        None if held.len() > 1 => anyhow::bail!(
            "you hold {} seats at {}, as {}: say which with --name NAME (a new name takes a new seat)",
            held.len(),
            args.table,
            names_of(&held)
        ),
        None => held.first().cloned(),
    };
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?.with_account(account);
        let key = match back {
            Some(saved) => match client.seat(&saved.table, saved.seat, saved.token.clone()).await {
                Ok(key) => {
                    println!(
                        "Returning to your seat at {} as {}. (`--name NAME` takes another seat, as another player.)",
                        safe(&key.info.join_code),
                        safe(&saved.name)
                    );
                    if saved.server != server {
                        // Known through this address from now on too.
                        seats::remember(Saved { server: server.clone(), ..saved.clone() });
                    }
                    key
                }
                // Only a seat that is gone frees the remembered one: a passing network error
                // must not throw away the token of a game in progress.
                // A seat taken through another address that this server does not know: another
                // server's table under the same code, not this one's; left alone.
                Err(e) if saved.server != server && e.code().is_some_and(|c| matches!(c, dudo_client::Code::NotFound | dudo_client::Code::Unauthenticated)) => {
                    take_seat(&client, &server, &args.table, &name).await?
                }
                Err(e) if e.code() == Some(dudo_client::Code::NotFound) => {
                    seats::forget(&server, &saved.table, None);
                    take_seat(&client, &server, &args.table, &name).await?
                }
                Err(e) if e.code() == Some(dudo_client::Code::Unauthenticated) => {
                    seats::forget(&server, &saved.table, Some(&saved.token));
                    take_seat(&client, &server, &args.table, &name).await?
                }
                Err(e) => return Err(e.into()),
            },
            None => {
                for other in seats::held_elsewhere(&server, &args.table).iter().filter(|_| held.is_empty()) {
                    println!(
                        "You hold a seat at {} as {} through {}: `dudo join {} --server {}` returns to it (its token is sent to no other address).",
                        args.table,
                        safe(&other.name),
                        other.server,
                        safe(&other.code),
                        other.server
                    );
                }
                if !held.is_empty() {
                    println!(
                        "You hold a seat at {} as {}; {} takes another.",
                        args.table,
                        names_of(&held),
                        safe(&name)
                    );
                }
                take_seat(&client, &server, &args.table, &name).await?
            }
        };
        let table = key.table.clone();
        at_table::sit(client, Some(key), &table, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

async fn take_seat(client: &Client, server: &str, table: &str, name: &str) -> anyhow::Result<SeatKey> {
    let key = client.join(table, name).await?;
    save(server, &key, &seated_name(&key, name), false);
    println!("You sit at seat {} of table {}.", key.seat, safe(&key.info.join_code));
    Ok(key)
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    args.server = args.server.resolved();
    crate::net::runtime()?.block_on(async move {
        let tables = args.server.connect().await?.list(LIST_MOST).await?;
        if tables.is_empty() {
            println!("No tables are waiting for players. Make one with: dudo create");
        }
        for t in &tables {
            println!("{}", summary_line(t));
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    args.server = args.server.for_table(&mut args.table);
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        // A code or link is turned into the table's id, which the watch stream takes.
        let info = client.table(&args.table).await?;
        println!("Watching table {} ({}); `quit` stops.", safe(&info.join_code), safe(&info.id));
        at_table::sit(client, None, &info.id, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn host(args: HostArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    args.server = args.server.for_table(&mut args.table);
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = held(&args.server.server, &args.table, None, true)?;
        let info = match args.command {
            HostCommand::Settings { settings } => {
                let mut pairs = Vec::new();
                for s in settings {
                    let (path, value) = s.split_once('=').ok_or_else(|| {
                        anyhow::anyhow!("settings take FIELD=VALUE, as in dice.faces=8; got {s:?}")
                    })?;
                    pairs.push((path.trim().to_string(), value.trim().to_string()));
                }
                client.change_settings(&key, pairs).await?
            }
            HostCommand::AddBot { bot } => client.add_bot(&key, &bot).await?,
            HostCommand::Start => client.start(&key).await?,
            HostCommand::Remove { seat } => client.remove(&key, seat).await?,
            HostCommand::Reset => client.reset(&key).await?,
            HostCommand::Who => client.table(&key.table).await?,
        };
        println!("{}", table_line(&info));
        println!("{}", seats_line(&info));
        Ok(ExitCode::SUCCESS)
    })
}

pub fn leave(args: LeaveArgs) -> anyhow::Result<ExitCode> {
    let mut args = args;
    args.server = args.server.for_table(&mut args.table);
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = held(&args.server.server, &args.table, args.name.as_deref(), false)?;
        let info = client.leave(&key).await?;
        seats::forget(&args.server.server, &key.table, Some(&key.token));
        let mid_round = info.players.get(key.seat as usize).is_some_and(|p| p.leaving);
        println!(
            "{}",
            if mid_round {
                "You left the table: your moves are played by default until this round ends."
            } else {
                "You left the table."
            }
        );
        Ok(ExitCode::SUCCESS)
    })
}
