//! `dudo arena`: many games between bots on a server, with standings one can trust.
//!
//! Every game is a real table on a dudo server (the embedded one unless `--server`). Luck is
//! cancelled by duplicate play: each deal (a dice seed) is played once per rotation of the
//! line-up, so every bot sits in every seat with the same dice. A fixed `--seed` fixes every
//! deal, so a tournament can be run again. Round-robin plays every combination of `--seats`
//! bots; free-for-all seats them all at one table.
//!
//! The arena creates each table without a seat of its own (host-only): built-in bots are the
//! server's own, seated by the arena; external programs join by the table's code. With
//! `--export` it writes the whole tournament for `dudo tournament verify`. One game at a
//! table is `table`'s; the standings and the JSON lines, `standings`'.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, ValueEnum};
use dudo_client::dudo_proto::v1 as pb;
use dudo_client::{Client, Update};
use dudo_rules::EventKind;

use crate::RuleArgs;
use crate::bot_command::BotCommand;

mod standings;
mod table;

use standings::*;
use table::*;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Mode {
    /// Every combination of --seats bots plays (all pairs, for two seats).
    RoundRobin,
    /// All the bots at one table.
    FreeForAll,
    /// --rounds rounds, each seating the bots at tables of --seats by the standings so far
    /// (by lot before the first), every table playing --deals deals in duplicate: for fields
    /// too large for a round robin.
    Swiss,
}

#[derive(Args)]
pub struct ArenaArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Built-in bots to enter, by kind (random, odds, reader, expert); a kind may repeat.
    #[arg(long, value_delimiter = ',', default_value = "odds,random")]
    pub bots: Vec<String>,
    /// An external bot: NAME=COMMAND. The command is run once per game with DUDO_SERVER,
    /// DUDO_BOT_NAME and DUDO_TABLE (a join code) set: it joins the table by the code and
    /// plays until the game is over.
    #[arg(long, value_name = "NAME=COMMAND")]
    pub external: Vec<String>,
    /// Games in all (rounded up to whole sets of rotations); not with --mode swiss.
    #[arg(long, default_value_t = 200)]
    pub games: u32,
    /// Swiss rounds (--mode swiss; 1 to 64).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub rounds: u32,
    /// Deals each table plays in a Swiss round (--mode swiss).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub deals: u32,
    /// Seed of every deal: the same seed plays the same tournament.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seats per table in round-robin and Swiss (free-for-all seats every bot at one table).
    #[arg(long, default_value_t = 2)]
    pub seats: usize,
    #[arg(long, value_enum, default_value = "round-robin")]
    pub mode: Mode,
    /// Play on this server instead of an embedded one.
    #[arg(long, env = "DUDO_SERVER")]
    pub server: Option<String>,
    /// Games played at once (1 to 1024).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub parallel: u16,
    /// Write one JSON object per game, then the standings, to this file.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
    /// Write the whole tournament to this file for anyone to check with `dudo tournament
    /// verify`: the schedule, every game's moves, dice commitments and salts, and the
    /// standings. Needs the server to keep records (not with --db none).
    #[arg(long, value_name = "FILE")]
    pub export: Option<std::path::PathBuf>,
    /// Do not count these games for the server's stored arena ratings (they count by
    /// default; `dudo ratings` shows them).
    #[arg(long)]
    pub unrated: bool,
    #[command(flatten)]
    pub db: crate::net::DbArgs,
}

/// A competitor.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Builtin(String),
    External(String),
}

/// One game to play: who sits where, and the deal.
#[derive(Clone, Debug)]
struct Game {
    number: usize,
    /// Games of one deal share their dice; the standings compare entrants deal by deal.
    deal: u32,
    seed: u64,
    lineup: Vec<usize>,
    /// Its place in the schedule, as an export gives it.
    scheduled: dudo_tournament::Game,
}

/// What a game gave: entries from first place to last.
#[derive(Clone, Debug)]
struct Finished {
    game: Game,
    /// The table it was played at (its record is the table's first game).
    table: String,
    finish: Vec<usize>,
}

/// Every game of the tournament: line-ups times deals times rotations (the tournaments'
/// own duplicate round robin, so an arena and a server's tournament seat alike).
fn schedule(entries: usize, mode: Mode, seats: usize, games: u32, seed: u64) -> anyhow::Result<Vec<Game>> {
    use dudo_tournament::Deals;
    use dudo_tournament::schedule::{round_robin, round_robin_games};
    let seats = match mode {
        Mode::FreeForAll => entries,
        Mode::RoundRobin | Mode::Swiss => seats,
    };
    // Counted, not made: one deal of a large field is itself many games.
    let per_deal = round_robin_games(entries, seats, 1).map_err(|e| anyhow::anyhow!("--{e}"))?;
    let deals = u32::try_from(u64::from(games).div_ceil(per_deal).max(1)).unwrap_or(u32::MAX);
    let games = round_robin(entries, seats, deals, seed, Deals::Duplicate)
        .map_err(|e| anyhow::anyhow!("--games {games} is {deals} deals of {per_deal} games: {e}"))?;
    Ok(games.into_iter().map(Game::from).collect())
}

impl From<dudo_tournament::Game> for Game {
    fn from(g: dudo_tournament::Game) -> Game {
        Game { number: g.number as usize, deal: g.deal, seed: g.seed, lineup: g.seats.clone(), scheduled: g }
    }
}

/// The progress bar on a terminal: games done of all.
struct Progress {
    shown: bool,
    done: usize,
    total: usize,
}

impl Progress {
    fn tick(&mut self) {
        self.done += 1;
        if self.shown {
            let filled = (self.done * 30 / self.total.max(1)).min(30);
            eprint!(
                "\r[{}{}] {}/{} games",
                "#".repeat(filled),
                ".".repeat(30 - filled),
                self.done,
                self.total
            );
        }
    }
}

/// What playing games needs: the server, the entrants, the tables' settings, and how many
/// games may be in flight.
struct Play<'a> {
    client: &'a Client,
    entries: &'a Arc<Vec<Entry>>,
    template: &'a pb::CreateTableRequest,
    parallel: usize,
    /// External bots starting up and taking their seats, a core each at most: sixteen
    /// interpreters started at once would each take sixteen times as long to join, and the
    /// time a bot is given to join is counted from its start.
    starting: Arc<tokio::sync::Semaphore>,
}

impl Play<'_> {
    /// Plays `games`, at most `parallel` at once, started as others end (a task per game made
    /// up front held a large schedule's every game in memory at once); their results in the
    /// order they ended.
    async fn all(&self, games: Vec<Game>, progress: &mut Progress) -> anyhow::Result<Vec<Finished>> {
        let mut pending = games.into_iter();
        let mut tasks = tokio::task::JoinSet::new();
        let mut results = Vec::new();
        loop {
            while tasks.len() < self.parallel
                && let Some(game) = pending.next()
            {
                let (client, entries, template, starting) = (
                    self.client.clone(),
                    Arc::clone(self.entries),
                    self.template.clone(),
                    Arc::clone(&self.starting),
                );
                let number = game.number;
                tasks.spawn(async move {
                    play_one(&client, &entries, &template, &starting, game)
                        .await
                        .with_context(|| format!("game {number}"))
                });
            }
            let Some(done) = tasks.join_next().await else { break };
            results.push(done.context("a game's task failed")??);
            progress.tick();
        }
        Ok(results)
    }
}

pub fn run(mut args: ArenaArgs) -> anyhow::Result<ExitCode> {
    // The arena's games are kept apart from the player's own (arena.db, not dudo.db), so
    // that hundreds of bot games do not bury them in `dudo history`.
    args.db.arena = true;
    let mut entries: Vec<Entry> = Vec::new();
    for b in &args.bots {
        anyhow::ensure!(
            dudo_bot::BUILTIN.contains(&b.as_str()),
            "no bot {b:?}; the bots are {}",
            dudo_bot::BUILTIN.join(", ")
        );
        let count = entries.iter().filter(|e| matches!(&e.kind, Kind::Builtin(k) if k == b)).count();
        let name = if count == 0 { b.clone() } else { format!("{b}-{}", count + 1) };
        entries.push(Entry { name, kind: Kind::Builtin(b.clone()) });
    }
    for e in &args.external {
        let (name, command) =
            e.split_once('=').ok_or_else(|| anyhow::anyhow!("--external takes NAME=COMMAND; got {e:?}"))?;
        entries.push(Entry { name: name.into(), kind: Kind::External(command.into()) });
    }
    anyhow::ensure!(entries.len() >= 2, "an arena needs at least two bots");
    // A Swiss round is scheduled when the one before it has ended; the rest up front.
    let (games, total) = match args.mode {
        Mode::Swiss => {
            let per_round =
                dudo_tournament::schedule::swiss_round_games(entries.len(), args.seats, args.deals)
                    .map_err(|e| anyhow::anyhow!("--{e}"))?;
            (Vec::new(), per_round.saturating_mul(u64::from(args.rounds)) as usize)
        }
        _ => {
            let games = schedule(entries.len(), args.mode, args.seats, args.games, args.seed)?;
            let total = games.len();
            (games, total)
        }
    };
    // Bots only: each call window waits for every seat's answer, so a bot's speed never
    // decides who calls first.
    let mut template =
        pb::CreateTableRequest { name: "arena".into(), call_window_millis: Some(0), ..args.rules.request()? };
    crate::net::runtime()?.block_on(async move {
        let client = match &args.server {
            Some(addr) => Client::connect(addr).await?,
            None => {
                let store = args.db.open(crate::net::Purpose::Play).await?;
                if store.is_none() {
                    // Said before the games, not after them: an export is made of the records.
                    anyhow::ensure!(
                        args.export.is_none(),
                        "--export needs the games' records, and this arena keeps none; drop --db none"
                    );
                    args.unrated = true;
                }
                crate::net::embedded(store).await?
            }
        };
        if !args.unrated {
            template.rating_pool = "arena".into();
        }
        let entries = Arc::new(entries);
        let started = Instant::now();
        let mut progress = Progress { shown: std::io::stderr().is_terminal(), done: 0, total };
        let play = Play {
            client: &client,
            entries: &entries,
            template: &template,
            parallel: usize::from(args.parallel),
            starting: Arc::new(tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            )),
        };
        let mut results = Vec::with_capacity(total);
        if matches!(args.mode, Mode::Swiss) {
            let mut order = dudo_tournament::schedule::by_lot(entries.len(), args.seed);
            for round in 0..args.rounds {
                let round_games = dudo_tournament::schedule::swiss_round(
                    &order,
                    args.seats,
                    args.deals,
                    round,
                    results.len() as u32,
                    args.seed,
                    dudo_tournament::Deals::Duplicate,
                )?;
                let round_games = round_games.into_iter().map(Game::from).collect();
                results.extend(play.all(round_games, &mut progress).await?);
                // In the schedule's order, as a verifier counts them: sums of points in
                // another order can differ in their last bits and break a tie otherwise.
                results.sort_by_key(|r| r.game.number);
                let finished: Vec<dudo_tournament::Finished> = results
                    .iter()
                    .map(|r: &Finished| dudo_tournament::Finished {
                        deal: r.game.deal,
                        finish: r.finish.clone(),
                    })
                    .collect();
                order = dudo_tournament::standings::order(entries.len(), &finished)?;
            }
        } else {
            results = play.all(games, &mut progress).await?;
        }
        let progress = progress.shown;
        if progress {
            eprintln!();
        }
        let elapsed = started.elapsed().as_secs_f64();
        results.sort_by_key(|r| r.game.number);
        let table = standings(&entries, &results);
        println!(
            "{} games in {elapsed:.1} s ({:.0} games/s), seed {}",
            total,
            total as f64 / elapsed.max(1e-9),
            args.seed
        );
        let finished: Vec<dudo_tournament::Finished> = results
            .iter()
            .map(|r| dudo_tournament::Finished { deal: r.game.deal, finish: r.finish.clone() })
            .collect();
        let compared = dudo_tournament::standings::standings(entries.len(), &finished)?;
        // One table, in the standings' order: points a game with their interval (what the
        // pairs below compare), then wins, mean place and Elo.
        println!(
            "{:<14} {:>6} {:>6} {:>7} {:>7} {:>15} {:>10} {:>7}",
            "bot", "games", "wins", "win%", "points", "95% interval", "mean place", "Elo"
        );
        for s in &compared.entrants {
            let elo = table.iter().find(|t| t.name == entries[s.entrant].name).map_or(0.0, |t| t.elo);
            let interval =
                s.interval.map_or_else(|| "-".to_string(), |(low, high)| format!("{low:.3} - {high:.3}"));
            let rate = if s.games == 0 { 0.0 } else { f64::from(s.wins) / f64::from(s.games) };
            println!(
                "{:<14} {:>6} {:>6} {:>6.1}% {:>7.3} {:>15} {:>10.2} {:>7.0}",
                entries[s.entrant].name,
                s.games,
                s.wins,
                rate * 100.0,
                s.mean_points,
                interval,
                s.mean_place,
                elo
            );
        }
        let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
        crate::tournament::print_pairs(&names, &compared);
        if let Some(path) = &args.out {
            write_jsonl(path, &entries, &results, &table, &compared)?;
        }
        if let Some(path) = &args.export {
            write_export(&client, &args, names, &results, compared, path).await?;
            println!("the whole tournament is in {} (`dudo tournament verify` checks it)", path.display());
        }
        if !args.unrated {
            // The server's ratings carry over from earlier arenas: every game it has stored.
            let stored = client.ratings("arena").await?;
            println!("stored arena ratings at {} (all arenas so far):", where_kept(&args));
            for r in stored {
                println!(
                    "  {:<20} {:>7.0}  {:>6} games {:>6} wins",
                    crate::render::safe(&r.name),
                    r.rating,
                    r.games,
                    r.wins
                );
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The tournament as `dudo tournament verify` reads it: each game's record, from the server.
async fn write_export(
    client: &Client,
    args: &ArenaArgs,
    entrants: Vec<String>,
    results: &[Finished],
    standings: dudo_tournament::Standings,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let writing = || format!("writing {}", path.display());
    let seats = match args.mode {
        Mode::FreeForAll => entrants.len(),
        Mode::RoundRobin | Mode::Swiss => args.seats,
    };
    let mut head = dudo_tournament::Head {
        format: dudo_tournament::export::FORMAT.into(),
        name: "arena".into(),
        seating: match args.mode {
            Mode::Swiss => dudo_tournament::export::Format::Swiss { rounds: args.rounds },
            _ => dudo_tournament::export::Format::RoundRobin,
        },
        seed: args.seed,
        seats,
        deals: match args.mode {
            Mode::Swiss => args.deals,
            _ => results.last().map_or(0, |r| r.game.deal + 1),
        },
        dice: dudo_tournament::Deals::Duplicate,
        rules: dudo_rules::RuleSet::default(),
        entrants,
        standings,
        seed_proof: None,
    };
    // Written as each record is read: a large tournament's export is never held whole. The
    // head carries the rules, so it waits for the first record.
    let mut writer = None;
    for r in results {
        let id = dudo_server::table::game_id(&r.table, 1);
        let replay = client
            .replay(&id)
            .await
            .with_context(|| format!("--export: the record of game {id} could not be read"))?;
        let (played, game) =
            crate::tournament::exported_game(replay, r.game.scheduled.clone(), id.clone(), r.finish.clone())?;
        let writer = match &mut writer {
            Some(writer) => {
                anyhow::ensure!(
                    played == head.rules,
                    "game {id} was played by other rules than the arena's first game"
                );
                writer
            }
            None => {
                head.rules = played;
                let file = std::io::BufWriter::new(std::fs::File::create(path).with_context(writing)?);
                writer.insert(dudo_tournament::layout::Writer::start(file, &head).with_context(writing)?)
            }
        };
        writer.game(&game).with_context(writing)?;
    }
    if let Some(writer) = writer {
        writer.finish().with_context(writing)?;
    }
    Ok(())
}

/// Which server's ratings the arena reports.
fn where_kept(args: &ArenaArgs) -> String {
    match (&args.server, &args.db.db) {
        (Some(server), _) => server.clone(),
        (None, Some(db)) => db.clone(),
        (None, None) => {
            args.db.default_file().map_or_else(|| "this server".into(), |p| p.display().to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_schedules_seat_every_bot_everywhere_on_every_deal() {
        let games = schedule(3, Mode::RoundRobin, 2, 12, 7).unwrap_or_default();
        // 3 pairs × 2 rotations = 6 games a deal; 12 games is two deals.
        assert_eq!(games.len(), 12);
        for deal in games.chunks(6) {
            assert!(deal.iter().all(|g| g.seed == deal[0].seed));
            for pair in deal.chunks(2) {
                assert_eq!(pair[0].lineup, pair[1].lineup.iter().rev().copied().collect::<Vec<_>>());
            }
        }
        assert_ne!(games[0].seed, games[6].seed);
        let ffa = schedule(4, Mode::FreeForAll, 2, 8, 1).unwrap_or_default();
        assert_eq!(ffa.len(), 8);
        assert!(schedule(2, Mode::RoundRobin, 3, 8, 1).is_err_and(|e| e.to_string().starts_with("--seats")));
    }

    #[test]
    fn wilson_intervals_hold_the_rate() {
        let (low, high) = wilson(60, 100);
        assert!(low < 0.6 && 0.6 < high && low > 0.49 && high < 0.70, "{low} {high}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
