//! `dudo create`, `join`, `list`, `watch`, `host …` and `leave`: tables on a server.
//!
//! A seat taken here is remembered (see `seats`), so joining the same table again returns
//! to the seat instead of taking another, and the host's commands work from any terminal.

use std::process::ExitCode;

use clap::{Args, Subcommand};
use dudo_client::{Client, SeatKey};

use crate::at_table;
use crate::net::{ServerArgs, table_line};
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
    /// A turn clock: seconds for each call (0: none).
    #[arg(long, default_value_t = 0)]
    pub clock: u32,
    /// A time bank per player, in seconds, spent when a call runs over the clock.
    #[arg(long, default_value_t = 0)]
    pub time_bank: u32,
    /// How long built-in bots think before each call, in milliseconds.
    #[arg(long, default_value_t = 900)]
    pub bot_think_ms: u32,
    /// Print the join code and leave the table waiting instead of sitting at it.
    #[arg(long)]
    pub detach: bool,
    /// Count this table's games for the server's ranked Elo ratings (the server must keep
    /// them: dudo-server --ranked); `dudo ratings --server …` shows them.
    #[arg(long)]
    pub ranked: bool,
}

#[derive(Args)]
pub struct JoinArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The join code, the link (dudo://join/CODE) or the table id.
    pub table: String,
    /// Your name at the table (default: your login name).
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
    /// Seat a built-in bot: dudo host --table CODE add-bot odds
    AddBot {
        #[arg(default_value = "odds")]
        bot: String,
    },
    /// Begin the game with the seats taken.
    Start,
    /// Take a seat out (before the start, or before the first call of a round).
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
}

fn save(server: &str, key: &SeatKey, name: &str) {
    seats::remember(Saved {
        server: server.to_string(),
        table: key.table.clone(),
        code: key.info.join_code.clone(),
        seat: key.seat,
        token: key.token.clone(),
        name: name.to_string(),
    });
}

/// The seat this user holds at `table` on the server, remembered from create or join.
fn held(server: &str, table: &str) -> anyhow::Result<SeatKey> {
    let saved = seats::find(server, table).ok_or_else(|| {
        anyhow::anyhow!(
            "you hold no seat at {table} on {server}: create or join it first (from this machine)"
        )
    })?;
    Ok(SeatKey::saved(saved.table, saved.seat, saved.token))
}

pub fn create(args: CreateArgs) -> anyhow::Result<ExitCode> {
    let name = args.name.clone().unwrap_or_else(default_name);
    let request = dudo_client::dudo_proto::v1::CreateTableRequest {
        name: name.clone(),
        seats: args.seats.unwrap_or(0),
        seed: args.seed,
        move_millis: args.clock.saturating_mul(1000),
        time_bank_millis: args.time_bank.saturating_mul(1000),
        bot_think_millis: args.bot_think_ms,
        rating_pool: if args.ranked { "ranked".into() } else { String::new() },
        ..args.rules.request()?
    };
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = client.create(request).await?;
        save(&args.server.server, &key, &name);
        println!("Table created: {}", table_line(&key.info));
        println!("Join code: {}", key.info.join_code);
        println!("Link:      {}", key.info.link);
        if args.detach {
            println!("Others join with: dudo join {} --server {}", key.info.join_code, args.server.server);
            println!(
                "Host commands: dudo host --table {} start|add-bot|settings|remove|reset",
                key.info.join_code
            );
            return Ok(ExitCode::SUCCESS);
        }
        let table = key.table.clone();
        at_table::sit(client, Some(key), &table, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn join(args: JoinArgs) -> anyhow::Result<ExitCode> {
    let name = args.name.clone().unwrap_or_else(default_name);
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = match seats::find(&args.server.server, &args.table) {
            // Back to a seat held already (after a crash, or from another terminal).
            Some(saved) => match client.seat(&saved.table, saved.seat, saved.token).await {
                Ok(key) => {
                    println!("Returning to your seat at {}.", key.info.join_code);
                    key
                }
                // Only a table that is gone frees the remembered seat: a passing network error
                // must not throw away the token of a game in progress.
                Err(e) if e.code() == Some(dudo_client::Code::NotFound) => {
                    seats::forget(&args.server.server, &saved.table);
                    take_seat(&client, &args.server.server, &args.table, &name).await?
                }
                Err(e) => return Err(e.into()),
            },
            None => take_seat(&client, &args.server.server, &args.table, &name).await?,
        };
        let table = key.table.clone();
        at_table::sit(client, Some(key), &table, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

async fn take_seat(client: &Client, server: &str, table: &str, name: &str) -> anyhow::Result<SeatKey> {
    let key = client.join(table, name).await?;
    save(server, &key, name);
    println!("You sit at seat {} of table {}.", key.seat, key.info.join_code);
    Ok(key)
}

pub fn list(args: ListArgs) -> anyhow::Result<ExitCode> {
    crate::net::runtime()?.block_on(async move {
        let tables = args.server.connect().await?.list().await?;
        if tables.is_empty() {
            println!("No tables are waiting for players. Make one with: dudo create");
        }
        for t in &tables {
            println!("{}", table_line(t));
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        // A code or link is turned into the table's id, which the watch stream takes.
        let info = client.table(&args.table).await?;
        println!("Watching table {} ({}); `quit` stops.", info.join_code, info.id);
        at_table::sit(client, None, &info.id, None).await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn host(args: HostArgs) -> anyhow::Result<ExitCode> {
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = held(&args.server.server, &args.table)?;
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
        };
        println!("{}", table_line(&info));
        Ok(ExitCode::SUCCESS)
    })
}

pub fn leave(args: LeaveArgs) -> anyhow::Result<ExitCode> {
    crate::net::runtime()?.block_on(async move {
        let client = args.server.connect().await?;
        let key = held(&args.server.server, &args.table)?;
        client.leave(&key).await?;
        seats::forget(&args.server.server, &key.table);
        println!("You left the table.");
        Ok(ExitCode::SUCCESS)
    })
}
