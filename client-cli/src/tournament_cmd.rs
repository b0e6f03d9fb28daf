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
    },
}

/// The largest export read: a tournament of a server's limits is far smaller, and a file
/// beyond it is refused before it is read.
const MAX_EXPORT_BYTES: u64 = 1 << 30;

pub fn run(args: TournamentArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        TournamentCommand::Verify { file } => verify(&file),
    }
}

fn verify(file: &std::path::Path) -> anyhow::Result<ExitCode> {
    let size = std::fs::metadata(file).with_context(|| format!("reading {}", file.display()))?.len();
    anyhow::ensure!(
        size <= MAX_EXPORT_BYTES,
        "{} is {size} bytes, more than the {MAX_EXPORT_BYTES} an export may be",
        file.display()
    );
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let export: dudo_tournament::Export = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a tournament export", file.display()))?;
    match dudo_tournament::verify(&export) {
        Ok(standings) => {
            let moves: usize = export.games.iter().map(|g| g.moves.len()).sum();
            let opened: usize = export.games.iter().map(|g| g.opened.len()).sum();
            println!(
                "verified: {} games made again from seed {} ({} entrants, {} seats a table), {moves} moves \
                 legal, {opened} dice commitments opened to the engine's dice, the standings counted again",
                export.games.len(),
                export.seed,
                export.entrants.len(),
                export.seats
            );
            print_standings(&export.entrants, &standings);
            print_pairs(&export.entrants, &standings);
            Ok(ExitCode::SUCCESS)
        }
        Err(why) => {
            println!("NOT verified: {why}");
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
