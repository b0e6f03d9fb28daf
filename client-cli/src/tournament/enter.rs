//! `dudo tournament enter`: playing an account's games of a tournament as the account kept
//! for the server (`dudo account`), with a bot started for each seat as the schedule reaches
//! it, as `dudo ladder` does (`--bot COMMAND` with DUDO_SERVER, DUDO_TABLE, DUDO_GAME,
//! DUDO_TOKEN and DUDO_SEAT set, or `--builtin KIND`), or with neither, the person at this
//! terminal at each game in turn (the server seats a person's account at one game at a
//! time); back by itself if the server restarts mid-tournament.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use super::server::{start_time, state};
use crate::net::ServerArgs;
use crate::render::safe;

#[derive(Args)]
pub struct EnterArgs {
    /// The tournament's id (`dudo tournament list`).
    pub tournament: String,
    /// The bot: a shell command started for each game, as `dudo ladder --bot` starts one.
    /// With neither this nor --builtin, you play your games yourself, here, one at a time.
    #[arg(long, conflicts_with = "builtin")]
    pub bot: Option<String>,
    /// Play with one of the SDK's strategies instead: random, odds, reader or expert.
    #[arg(long)]
    pub builtin: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

/// How long `enter` keeps trying to come back to a server that went away.
const COME_BACK_FOR: Duration = Duration::from_secs(120);

pub fn enter(args: EnterArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server.clone());
    let addr = server.server.clone();
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        let (client, name, playing) = crate::account_cmd::signed_in(&client, &addr, || {
            format!(
                "tournaments are for accounts: `dudo account register NAME --server {addr}` first (add --bot for a bot's)"
            )
        })
        .await?;
        eprintln!("(playing as {} with {})", safe(&name), playing.from);
        // No bot named: the person at this terminal plays each game.
        let mut seats = match (args.bot.as_deref(), args.builtin.as_deref()) {
            (None, None) => None,
            (bot, builtin) => {
                let player = crate::seat_bots::SeatPlayer::chosen(bot, builtin)?;
                Some(crate::seat_bots::Seats::new(client.clone(), addr.clone(), name.clone(), player))
            }
        };
        // In person: the terminal the games are played at, opened at the first and kept
        // (the line editor is the terminal's, one for the whole run).
        let mut console: Option<crate::at_table::Console> = seats.is_none().then(|| {
            let mut console = crate::at_table::Console::open();
            console.hosted = true;
            console
        });
        let say = |console: &Option<crate::at_table::Console>, text: String| match console {
            Some(c) => c.say(text),
            None => println!("{text}"),
        };
        let mut lost_at: Option<std::time::Instant> = None;
        'enter: loop {
            let mut updates = match client.enter_tournament(&args.tournament).await {
                Ok(updates) => updates,
                Err(e) if e.code() == Some(dudo_client::Code::Unavailable) => {
                    let since = *lost_at.get_or_insert_with(std::time::Instant::now);
                    anyhow::ensure!(since.elapsed() < COME_BACK_FOR, "the server is gone: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            lost_at = None;
            loop {
                let update = tokio::select! {
                    update = updates.message() => update,
                    leave = leaving(&mut console) => {
                        if leave {
                            if let Some(c) = console.take() {
                                c.close();
                            }
                            println!("{}", left(&args.tournament, &addr));
                            return Ok(ExitCode::SUCCESS);
                        }
                        continue;
                    }
                    failed = bots_failed(&mut seats) => {
                        failed.map_err(|e| anyhow::anyhow!("{e}; leaving. The tournament plays this account's seats by the clock until it enters again"))?;
                        continue;
                    }
                };
                let update = match update {
                    Ok(Some(u)) => u,
                    Ok(None) => {
                        eprintln!("dudo: the server ended the tournament stream; entering again");
                        continue 'enter;
                    }
                    Err(e) if matches!(e.code(), dudo_client::Code::Unavailable | dudo_client::Code::Unknown) => {
                        eprintln!("dudo: the server went away ({}); coming back", e.message());
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue 'enter;
                    }
                    Err(e) => anyhow::bail!("the tournament stream: {}", e.message()),
                };
                match update.update {
                    Some(pb::tournament_update::Update::Entered(e)) => {
                        let t = e.tournament.unwrap_or_default();
                        say(&console, format!(
                            "{} is entrant {} of {} ({}); {}",
                            safe(&name),
                            e.entrant,
                            t.id,
                            safe(&t.name),
                            match pb::TournamentState::try_from(t.state) {
                                Ok(pb::TournamentState::Entry) => format!(
                                    "it starts {}",
                                    start_time(t.starts_unix_millis)
                                ),
                                _ => format!("{} of {} games played", t.finished, t.games),
                            }
                        ));
                    }
                    Some(pb::tournament_update::Update::Seated(s)) => {
                        say(&console, format!("game {} (number {}): seat {}", safe(&s.game), s.number, s.seat));
                        let Some(seats) = seats.as_mut() else {
                            // In person: this game at this terminal until its table closes.
                            let key = dudo_client::SeatKey::saved(s.table.clone(), s.seat, s.token.clone());
                            let at = console.get_or_insert_with(|| {
                                let mut console = crate::at_table::Console::open();
                                console.hosted = true;
                                console
                            });
                            let (exit, last_words) = crate::at_table::sit_at(at, client.clone(), Some(key), &s.table, None).await;
                            if let Some(text) = last_words {
                                at.say(text);
                            }
                            match exit? {
                                crate::at_table::Exit::Closed => continue,
                                crate::at_table::Exit::Quit | crate::at_table::Exit::Left => {
                                    if let Some(c) = console.take() {
                                        c.close();
                                    }
                                    println!("{}", left(&args.tournament, &addr));
                                    return Ok(ExitCode::SUCCESS);
                                }
                            }
                        };
                        seats.start(&s.table, &s.game, s.seat, &s.token)?;
                    }
                    Some(pb::tournament_update::Update::Ended(e)) => {
                        if let Some(seats) = &mut seats {
                            seats.game_over(&e.table);
                        }
                        say(&console, format!("game {} (number {}): finished {}", safe(&e.game), e.number, crate::ladder_cmd::ordinal(e.place)));
                    }
                    Some(pb::tournament_update::Update::Over(o)) => {
                        let t = o.tournament.unwrap_or_default();
                        // The terminal is itself again for the last lines.
                        if let Some(c) = console.take() {
                            c.close();
                        }
                        let why = if t.why.is_empty() { String::new() } else { format!(": {}", safe(&t.why)) };
                        println!("tournament {} {}{why}", t.id, state(t.state));
                        if t.state == pb::TournamentState::Cancelled as i32 {
                            // Its games ended where they were: their bots go too.
                            if let Some(seats) = seats.as_mut() {
                                seats.stop();
                            }
                            return Ok(ExitCode::FAILURE);
                        }
                        println!("the standings: dudo tournament standings {} --server {addr}", t.id);
                        break 'enter;
                    }
                    None => {}
                }
            }
        }
        if let Some(seats) = seats {
            // Every game has ended: a bot has a few seconds to see its end and leave, then
            // what still runs (a bot that never noticed, one for a forfeit game) is stopped.
            // The games are over: a bot that failed now is said, and costs nothing.
            if let Err(e) = seats.wait(std::time::Duration::from_secs(10)).await {
                eprintln!("dudo: {e}");
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// What a person who leaves a tournament is told.
fn left(tournament: &str, addr: &str) -> String {
    let t = safe(tournament);
    format!(
        "You left tournament {t}: the clock plays your seats until `dudo tournament enter {t} --server {addr}` takes you back."
    )
}

/// Between games in person: whether the player asked to leave (never, with no terminal open).
async fn leaving(console: &mut Option<crate::at_table::Console>) -> bool {
    match console {
        Some(console) => console.wants_to_leave().await,
        None => std::future::pending().await,
    }
}

/// A bot command that keeps failing (never, for a person playing in person).
async fn bots_failed(seats: &mut Option<crate::seat_bots::Seats>) -> anyhow::Result<()> {
    match seats {
        Some(seats) => seats.failed().await,
        None => std::future::pending().await,
    }
}
