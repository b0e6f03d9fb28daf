//! `dudo tournament`: tournaments on a server, and their results checked by anyone.
//!
//! Each subcommand is a file's: `server` (create, show, standings, export, cancel), `enter`
//! (playing one's games, with a bot or in person), `list`, and `verify` (an export checked
//! without its server). This file only reads the command line and hands it on.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::history_cmd::RecordsArgs;

mod enter;
mod list;
mod server;
mod verify;

pub(crate) use verify::{exported_game, print_pairs};

#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Make a tournament on a server (as the account kept for it, or the admin).
    ///
    /// Example: dudo tournament create "Friday bots" --preset perudo-jonti --seats 3 --deals 20 --house-bots odds,reader --starts-in 300
    Create(server::CreateArgs),
    /// A server's tournaments, newest first.
    List(list::ListArgs),
    /// One tournament: its settings, its entrants, its seed commitment (and seed once over).
    Show(server::OneArgs),
    /// Enter a tournament as the account kept for the server, with a bot or in person.
    ///
    /// With --bot or --builtin, the bot is started for each seat as the schedule reaches it,
    /// as `dudo ladder` starts one. With neither, you play your games yourself at this
    /// terminal, one at a time.
    ///
    /// Example: dudo tournament enter kqzvhtrmwa --bot 'python3 bot.py'
    Enter(enter::EnterArgs),
    /// The standings so far: points a game with their 95% interval, and who is ahead.
    Standings(server::OneArgs),
    /// Write a finished tournament's export (every game's moves, commitments and salts) for
    /// `dudo tournament verify`.
    Export(server::ExportArgs),
    /// Call a tournament off (its organiser, or the admin).
    Cancel(server::CancelArgs),
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
        /// With --server, the file's seed proof (its tournament, name, commitment, seed and
        /// salt, and whether the admin chose the seed) is held against what the server
        /// published, and each game against the tournament the server says it is of.
        #[arg(long)]
        records: bool,
        #[command(flatten)]
        from: RecordsArgs,
    },
}

pub fn run(args: TournamentArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        TournamentCommand::Create(a) => server::create(a),
        TournamentCommand::List(a) => list::list(a),
        TournamentCommand::Show(a) => server::show(a),
        TournamentCommand::Enter(a) => enter::enter(a),
        TournamentCommand::Standings(a) => server::standings(a),
        TournamentCommand::Export(a) => server::export(a),
        TournamentCommand::Cancel(a) => server::cancel(a),
        TournamentCommand::Verify { file, records, from } => {
            // --server and --arena name the records; they ask for the check themselves.
            let check = records || from.server.is_some() || from.arena;
            verify::verify(&file, check.then_some(from))
        }
    }
}
