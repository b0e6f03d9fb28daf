//! `dudo tournament`: a tournament's result, checked by anyone.
//!
//! `verify FILE` reads an export (`dudo arena --export`), makes the schedule again from its
//! seed, plays every game's moves through the engine, opens every published dice commitment
//! against the dice the engine rolled, and counts the standings again, all without the server
//! that ran it (`dudo_tournament::verify`). A file that fails says which game and move.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;
use dudo_client::dudo_proto::{TableEvent, convert};
use dudo_tournament::export::{Committed, ExportedGame, Move, Opened, Player};

use crate::history_cmd::RecordsArgs;
use crate::render::safe;

#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Check an export without its server: the schedule made again from its seed, every
    /// game's moves through the engine, every dice commitment opened, the standings counted
    /// again. Exits 1 and names the game and move at fault if anything differs.
    ///
    /// Example: dudo arena --bots odds,reader,random --games 300 --export t.json; dudo tournament verify t.json
    Verify {
        /// The export (JSON).
        file: PathBuf,
        /// Also check every game against the records it came from: a server (--server), the
        /// arena's database (--arena), or the local one (--db, or the default). A file changed
        /// through and through (a game made up whole, its log and finish to match) passes on
        /// its own; it does not pass against the records. --server and --arena imply it.
        #[arg(long)]
        records: bool,
        #[command(flatten)]
        from: RecordsArgs,
    },
}

/// A game of a tournament as its export holds it, from the server's record of it (`replay`),
/// with the rules it was played by.
pub(crate) fn exported_game(
    replay: pb::Replay,
    schedule: dudo_tournament::Game,
    id: String,
    finish: Vec<usize>,
) -> anyhow::Result<(dudo_rules::RuleSet, ExportedGame)> {
    let rules = convert::rules_from_wire(&replay.rules.unwrap_or_default())?;
    let mut recorded = replay.summary.map(|s| s.players).unwrap_or_default();
    recorded.sort_by_key(|p| p.seat);
    let players = recorded.into_iter().map(|p| Player { name: p.name, bot: p.bot }).collect();
    let moves = replay
        .moves
        .iter()
        .map(|m| {
            Ok(Move {
                seat: m.seat as usize,
                action: m.action.as_ref().map(convert::action_from_wire).transpose()?,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (mut log, mut committed, mut opened) = (Vec::new(), Vec::new(), Vec::new());
    for event in &replay.events {
        match convert::event_from_wire(event)?.1 {
            TableEvent::Game(event) => log.push(event.kind),
            TableEvent::DiceCommitted { round, commitments, .. } => {
                committed.extend(commitments.into_iter().map(|(seat, commitment)| Committed {
                    round,
                    seat,
                    commitment,
                }))
            }
            TableEvent::DiceSalts { round, salts } => {
                opened.extend(salts.into_iter().map(|(seat, salt, dice)| Opened { round, seat, salt, dice }))
            }
            _ => {}
        }
    }
    Ok((rules, ExportedGame { schedule, id, players, moves, log, committed, opened, finish }))
}

/// Each game of `export` against the server's record of it (by its id): the same rules,
/// players, moves, events, commitments and salts. The first that is not, in words.
async fn against_records(
    client: &Client,
    export: &dudo_tournament::Export,
) -> anyhow::Result<Option<String>> {
    for (number, game) in export.games.iter().enumerate() {
        let replay = match client.replay(&game.id).await {
            Ok(replay) => replay,
            Err(e) => return Ok(Some(format!("game {number} ({}): no record of it there: {e}", game.id))),
        };
        let (rules, recorded) =
            exported_game(replay, game.schedule.clone(), game.id.clone(), game.finish.clone())?;
        let differs = [
            (rules != export.rules, "rules"),
            (recorded.players != game.players, "players"),
            (recorded.moves != game.moves, "moves"),
            (recorded.log != game.log, "events"),
            (recorded.committed != game.committed, "dice commitments"),
            (recorded.opened != game.opened, "salts"),
        ];
        let differs: Vec<&str> = differs.iter().filter(|(d, _)| *d).map(|(_, what)| *what).collect();
        if !differs.is_empty() {
            return Ok(Some(format!(
                "game {number} ({}): the record there has other {} than the file",
                game.id,
                differs.join(", ")
            )));
        }
    }
    Ok(None)
}

/// The largest export read, refused before it is read: reading takes several times a file's
/// size in memory. A tournament of 30,000 games (at about 8 KB a game) fits.
const MAX_EXPORT_BYTES: u64 = 256 << 20;

pub fn run(args: TournamentArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        TournamentCommand::Verify { file, records, from } => {
            // --server and --arena name the records; they ask for the check themselves.
            let check = records || from.server.is_some() || from.arena;
            verify(&file, check.then_some(from))
        }
    }
}

fn verify(file: &std::path::Path, records: Option<RecordsArgs>) -> anyhow::Result<ExitCode> {
    let size = std::fs::metadata(file).with_context(|| format!("reading {}", file.display()))?.len();
    anyhow::ensure!(
        size <= MAX_EXPORT_BYTES,
        "{} is {size} bytes, more than the {MAX_EXPORT_BYTES} an export may be",
        file.display()
    );
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let export: dudo_tournament::Export = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a tournament export", file.display()))?;
    let verified = dudo_tournament::verify(&export);
    let mut alone = true;
    if let (Ok(_), Some(mut from)) = (&verified, records) {
        let differs = crate::net::runtime()?.block_on(async {
            let Some(client) = from.connect().await? else { anyhow::bail!("no records to check against") };
            against_records(&client, &export).await
        })?;
        if let Some(why) = differs {
            println!("NOT verified: {}", safe(&why));
            return Ok(ExitCode::FAILURE);
        }
        println!("every game is the record it came from, at {}", safe(&from.place()));
        alone = false;
    }
    match verified {
        Ok(standings) => {
            let moves: usize = export.games.iter().map(|g| g.moves.len()).sum();
            let opened: usize = export.games.iter().map(|g| g.opened.len()).sum();
            let deals = match export.seating {
                dudo_tournament::export::Format::RoundRobin => format!("{} deals", export.deals),
                dudo_tournament::export::Format::Swiss { rounds } => {
                    format!("{rounds} Swiss rounds of {} deals", export.deals)
                }
            };
            println!(
                "verified: {} games made again from seed {} ({} entrants, {} seats a table, {deals}), \
                 {moves} moves legal, {opened} dice commitments opened to the engine's dice, the standings \
                 counted again",
                export.games.len(),
                export.seed,
                export.entrants.len(),
                export.seats
            );
            if alone {
                println!(
                    "(the file alone: it holds together, but only its records can say it is what was \
                     played; add --server HOST:PORT or --arena to check every game against them)"
                );
            }
            print_standings(&export.entrants, &standings);
            print_pairs(&export.entrants, &standings);
            Ok(ExitCode::SUCCESS)
        }
        Err(why) => {
            println!("NOT verified: {}", safe(&why.to_string()));
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The standings as a table: points a game by place (1 for first, 0 for last), best first.
pub(crate) fn print_standings(names: &[String], standings: &dudo_tournament::Standings) {
    println!(
        "{:<14} {:>6} {:>6} {:>7} {:>17} {:>10}",
        "entrant", "games", "wins", "points", "95% interval", "mean place"
    );
    for s in &standings.entrants {
        let name = names.get(s.entrant).map_or_else(|| s.entrant.to_string(), |n| safe(n).into_owned());
        let interval =
            s.interval.map_or_else(|| "-".to_string(), |(low, high)| format!("{low:.3} - {high:.3}"));
        println!(
            "{:<14} {:>6} {:>6} {:>7.3} {:>17} {:>10.2}",
            name, s.games, s.wins, s.mean_points, interval, s.mean_place
        );
    }
}

/// Which entrants are ahead of which with 95% confidence, compared deal by deal.
pub(crate) fn print_pairs(names: &[String], standings: &dudo_tournament::Standings) {
    let name = |e: usize| names.get(e).map_or_else(|| e.to_string(), |n| safe(n).into_owned());
    let ahead: Vec<_> = standings.pairs.iter().filter(|c| c.ahead()).collect();
    if ahead.is_empty() {
        println!("no entrant is ahead of another with 95% confidence yet; more games would tell");
        return;
    }
    println!("ahead with 95% confidence (points a game: 1 for first, 0 for last; compared deal by deal):");
    for c in ahead {
        let (low, high) = c.interval.unwrap_or_default();
        println!(
            "  {} ahead of {} by {:.3} ({:.3} to {:.3}) over {} deals",
            name(c.better),
            name(c.worse),
            c.difference,
            low,
            high,
            c.deals
        );
    }
}
