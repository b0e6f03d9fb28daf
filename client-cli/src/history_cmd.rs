//! `dudo history`, `dudo replay GAME` and `dudo ratings`: the records a server keeps.
//!
//! Without `--server` they read the local database (the one `dudo play` and `dudo arena`
//! write, or `--db`) through a server embedded in this process that only reads, so they work
//! beside a running `dudo play` or `dudo-server` on the same file.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Args;
use dudo_client::Client;
use dudo_client::dudo_proto::v1 as pb;
use dudo_rules::{Bid, EventKind, Viewer};

use crate::input;
use crate::net::{DbArgs, Purpose};
use crate::render::{self, Style, safe};
use dudo_rules::describe::{Narrator, there_were};

/// Where the records are: a server, or a local database.
#[derive(Args, Clone, Debug)]
pub struct RecordsArgs {
    /// Ask this server (host:port, or https://host:port for one with TLS) instead of reading
    /// the local database.
    #[arg(long)]
    pub server: Option<String>,
    /// The games `dudo arena` played (kept apart, in arena.db) instead of yours.
    #[arg(long, conflicts_with = "server")]
    pub arena: bool,
    #[command(flatten)]
    pub db: DbArgs,
}

impl RecordsArgs {
    /// Where else records may be, for a reader who found none here.
    fn elsewhere(&self) -> &'static str {
        match (&self.server, self.arena || self.db.arena) {
            (Some(_), _) => "",
            (None, false) => {
                " Games played on a server are kept there: add --server HOST:PORT. The arena's games: --arena."
            }
            (None, true) => " Games played on a server are kept there: add --server HOST:PORT.",
        }
    }

    /// Where the records are read, in words.
    pub(crate) fn place(&self) -> String {
        match (&self.server, &self.db.db) {
            (Some(server), _) => server.clone(),
            (None, Some(db)) => db.clone(),
            (None, None) => {
                self.db.default_file().map_or_else(|| "the local records".into(), |p| p.display().to_string())
            }
        }
    }

    /// A client of the server or of the local database; none when the local database does
    /// not exist yet (it is not created just to be read), after saying so.
    pub(crate) async fn connect(&mut self) -> anyhow::Result<Option<Client>> {
        self.db.arena |= self.arena;
        match &self.server {
            Some(addr) => Ok(Some(Client::connect(addr).await?)),
            None if self.db.missing_file().is_some() => {
                let path = self.db.missing_file().unwrap_or_default();
                let who =
                    if self.db.arena { "dudo arena keeps its games" } else { "dudo play keeps your games" };
                let mut out = std::io::stdout();
                let said =
                    format!("No records yet: {path} does not exist ({who} there).{}", self.elsewhere());
                writeln!(out, "{}", fit(&said, None))?;
                Ok(None)
            }
            None => {
                let store = self.db.open(Purpose::Read).await?;
                anyhow::ensure!(store.is_some(), "no database to read (--db none)");
                let setup = dudo_server::Setup { store, recover: false, ..dudo_server::Setup::default() };
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let addr = listener.local_addr()?.to_string();
                tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
                Ok(Some(Client::connect(&addr).await?))
            }
        }
    }
}

#[derive(Args)]
pub struct HistoryArgs {
    /// Games a player (by name, any case) or a built-in bot (by kind: odds) played in.
    #[arg(long)]
    pub player: Option<String>,
    /// Games an account played (by its name, any case; not a guest who took that name).
    #[arg(long)]
    pub account: Option<String>,
    /// Games under these rules (a preset name, as `dudo rules` lists them; a table's changed
    /// settings keep its preset's name).
    #[arg(long)]
    pub preset: Option<String>,
    /// Finished since: a date (2026-11-22), a date and time (2026-11-22 18:00:00, UTC) or a
    /// time ago (2h, 7days).
    #[arg(long)]
    pub since: Option<String>,
    /// Finished before (same forms as --since).
    #[arg(long)]
    pub until: Option<String>,
    /// At most this many games, newest first (1 to 1000).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub limit: u32,
    #[command(flatten)]
    pub from: RecordsArgs,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// The game's id, as `dudo history` lists it.
    pub game: String,
    /// Print every round at once instead of waiting for Enter between rounds.
    #[arg(long)]
    pub all: bool,
    /// Play it back as if live, at its original pace (times --speed).
    #[arg(long)]
    pub live: bool,
    /// How much faster than the original a --live replay goes.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    #[command(flatten)]
    pub from: RecordsArgs,
}

#[derive(Args)]
pub struct RatingsArgs {
    /// arena, ranked, or every pool if not given.
    #[arg(long)]
    pub pool: Option<String>,
    #[command(flatten)]
    pub from: RecordsArgs,
}

/// Where the last column of `dudo history`'s rows begins.
const FINISH_COLUMN: usize = 57;

/// A line as printed: wrapped at word boundaries to the terminal's width, its continuation
/// indented `hang` columns when given (a table's last column); to a pipe, whole.
fn fit(text: &str, hang: Option<usize>) -> String {
    if std::io::stdout().is_terminal() {
        input::wrap_hanging(text, input::width(), hang)
    } else {
        text.to_string()
    }
}

/// A moment as `--since` takes it, in Unix milliseconds.
fn when(text: &str) -> anyhow::Result<u64> {
    let text = text.trim();
    let at = if let Ok(ago) = humantime::parse_duration(text) {
        SystemTime::now().checked_sub(ago).unwrap_or(UNIX_EPOCH)
    } else if text.len() == 10 {
        humantime::parse_rfc3339_weak(&format!("{text} 00:00:00"))?
    } else {
        humantime::parse_rfc3339_weak(text).map_err(|e| {
            anyhow::anyhow!("{text:?} is not a date, a date and time, or a time ago (2h): {e}")
        })?
    };
    Ok(at.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}

/// Unix milliseconds as `2026-11-22 18:04` (UTC).
pub fn date_time(millis: u64) -> String {
    let at = UNIX_EPOCH + Duration::from_secs(millis / 1000);
    let text = humantime::format_rfc3339_seconds(at).to_string();
    text.get(..16).map(|t| t.replace('T', " ")).unwrap_or(text)
}

fn players_line(g: &pb::GameSummary) -> String {
    let mut players: Vec<&pb::GamePlayer> = g.players.iter().collect();
    players.sort_by_key(|p| if p.place == 0 { u32::MAX } else { p.place });
    players.iter().map(|p| render::account_name(&p.name, p.account)).collect::<Vec<_>>().join(" > ")
}

pub fn history(mut args: HistoryArgs) -> anyhow::Result<ExitCode> {
    // A whole rule set sent by a client may carry a name of its own: an unknown name is
    // searched for all the same, and only explained if nothing matches.
    let unknown_preset = args.preset.as_ref().filter(|p| dudo_rules::presets::by_name(p).is_none()).cloned();
    let request = pb::ListGamesRequest {
        player: args.player.unwrap_or_default(),
        preset: args.preset.unwrap_or_default(),
        since_unix_millis: args.since.as_deref().map(when).transpose()?,
        until_unix_millis: args.until.as_deref().map(when).transpose()?,
        limit: args.limit,
        account: args.account.unwrap_or_default(),
    };
    crate::net::runtime()?.block_on(async move {
        let Some(client) = args.from.connect().await? else { return Ok(ExitCode::SUCCESS) };
        let games = client.games(request).await?;
        let mut out = std::io::stdout().lock();
        if games.is_empty() {
            writeln!(out, "{}", fit(&format!("No finished games match.{}", args.from.elsewhere()), None))?;
            if let Some(name) = unknown_preset {
                let presets = dudo_rules::presets::NAMES.join(", ");
                writeln!(
                    out,
                    "{}",
                    fit(&format!("({name:?} is not a preset; the presets are {presets}.)"), None)
                )?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        let head = format!("{:<20} {:<16} {:<18} finish (winner first)", "game", "finished (UTC)", "rules");
        writeln!(out, "{}", fit(&head, Some(FINISH_COLUMN)))?;
        for g in &games {
            let rated = if g.rating_pool.is_empty() {
                String::new()
            } else {
                format!("  [{}]", safe(&g.rating_pool))
            };
            let (finished, rules, finish) =
                (date_time(g.finished_unix_millis), safe(&g.preset), players_line(g));
            let row = format!("{:<20} {finished:<16} {rules:<18} {finish}{rated}", safe(&g.id));
            // A long finish continues under its own column, the game's id alone at the left.
            writeln!(out, "{}", fit(&row, Some(FINISH_COLUMN)))?;
        }
        // The same source again: a server's games are only on that server.
        let from = match (&args.from.server, args.from.arena) {
            (Some(server), _) => format!(" --server {server}"),
            (None, true) => " --arena".to_string(),
            (None, false) => String::new(),
        };
        writeln!(out, "\nStep through one with: dudo replay GAME{from}")?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn ratings(mut args: RatingsArgs) -> anyhow::Result<ExitCode> {
    if let Some(pool) = &args.pool {
        anyhow::ensure!(pool == "arena" || pool == "ranked", "--pool: arena or ranked, not {pool:?}");
    }
    // On this machine, ratings are the arena's (ranked ones are a server's): its file.
    if args.from.server.is_none() && args.from.db.db.is_none() && args.pool.as_deref() != Some("ranked") {
        args.from.arena = true;
    }
    crate::net::runtime()?.block_on(async move {
        let Some(client) = args.from.connect().await? else { return Ok(ExitCode::SUCCESS) };
        let ratings = client.ratings(args.pool.as_deref().unwrap_or("")).await?;
        let mut out = std::io::stdout().lock();
        if ratings.is_empty() {
            writeln!(out, "No ratings yet: arena games (dudo arena) and ranked tables add them.")?;
            return Ok(ExitCode::SUCCESS);
        }
        writeln!(out, "{:<8} {:<24} {:>7} {:>7} {:>7}", "pool", "player", "Elo", "games", "wins")?;
        for r in ratings {
            let (pool, name) = (safe(&r.pool), safe(&r.name));
            writeln!(out, "{pool:<8} {name:<24} {:>7.0} {:>7} {:>7}", r.rating, r.games, r.wins)?;
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn replay(mut args: ReplayArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!((0.01..=1_000_000.0).contains(&args.speed), "--speed: from 0.01 to 1000000");
    crate::net::runtime()?.block_on(async move {
        let Some(client) = args.from.connect().await? else { return Ok(ExitCode::FAILURE) };
        if args.live {
            return live(&client, &args.game, args.speed).await;
        }
        let replay = match client.replay(&args.game).await {
            Ok(replay) => replay,
            Err(e) if e.refusal_code() == Some("replay_too_large") => {
                anyhow::bail!("{e}; play it back with: dudo replay {} --live --speed 1000", args.game)
            }
            Err(e) => return Err(e.into()),
        };
        let pause = !args.all && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        let lines = rounds(&replay, Style::detect())?;
        let mut out = std::io::stdout().lock();
        for (i, round) in lines.iter().enumerate() {
            for line in round {
                writeln!(out, "{}", fit(line, None))?;
            }
            if pause && i + 1 < lines.len() {
                write!(out, "-- Enter: next round, q: quit -- ")?;
                out.flush()?;
                let mut answer = String::new();
                std::io::stdin().lock().read_line(&mut answer)?;
                if answer.trim().eq_ignore_ascii_case("q") {
                    break;
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// A --live replay: the events as they came, each described.
async fn live(client: &Client, game: &str, speed: f64) -> anyhow::Result<ExitCode> {
    let mut stream = client.watch_replay(game, speed).await?;
    let mut names: Vec<String> = Vec::new();
    let mut narrator = Narrator::default();
    let mut out = std::io::stdout();
    while let Some(update) = stream.message().await? {
        match update.update {
            Some(pb::play_update::Update::Table(t)) => {
                names = t.players.iter().map(|p| safe(&p.name).into_owned()).collect();
                writeln!(out, "{}", fit(&format!("Replaying {}: {}", safe(game), names.join(", ")), None))?;
            }
            Some(pb::play_update::Update::Event(e)) => {
                let (_, event) = dudo_client::dudo_proto::convert::event_from_wire(&e)?;
                // The server's words; from a server older than them, the engine's.
                let line = match event.game() {
                    _ if !e.text.is_empty() => safe(&e.text).into_owned(),
                    Some(kind) => narrator.line(kind, &names, None),
                    None => event.describe(&names, None),
                };
                writeln!(out, "{}", fit(&line, None))?;
            }
            _ => {}
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The game as text, a block per round: every cup, each bid with the chance it was true to
/// the player who made it and whether it was, and how the round was settled.
fn rounds(replay: &pb::Replay, style: Style) -> anyhow::Result<Vec<Vec<String>>> {
    let summary = replay.summary.clone().unwrap_or_default();
    let names: Vec<String> = summary.players.iter().map(|p| safe(&p.name).into_owned()).collect();
    let rules = replay.rules.as_ref().map(dudo_client::dudo_proto::convert::rules_from_wire).transpose()?;
    let faces = rules.as_ref().map_or(6, |r| r.dice.faces);
    let mut blocks = vec![vec![
        style.bold(&format!(
            "Game {} — {} — {}",
            safe(&summary.id),
            safe(&summary.preset),
            date_time(summary.started_unix_millis)
        )),
        format!("Finish: {}", players_line(&summary)),
    ]];
    let mut notes = match rules.map(|r| bid_notes(replay, r, names.len())) {
        Some(Ok(notes)) => notes.into_iter(),
        Some(Err(why)) => {
            blocks[0]
                .push(style.red(&format!(
                    "This record does not replay through the engine ({why}): odds not shown."
                )));
            Vec::new().into_iter()
        }
        None => Vec::new().into_iter(),
    };
    let mut wild: Option<u8> = None;
    let mut narrator = Narrator::default();
    for wire in &replay.events {
        let (_, event) = dudo_client::dudo_proto::convert::event_from_wire(wire)?;
        if !event.admits(Viewer::Replay, true) {
            continue;
        }
        let mut lines = vec![match event.game() {
            Some(kind) => narrator.line(kind, &names, None),
            None => event.describe(&names, None),
        }];
        match event.game() {
            Some(EventKind::RoundStarted { wild: w, .. }) => {
                wild = *w;
                blocks.push(Vec::new());
            }
            Some(EventKind::HandStarted { .. }) => blocks.push(Vec::new()),
            Some(EventKind::DiceRolled { seat, dice }) => {
                let who = names.get(*seat).map_or("?", String::as_str);
                lines = vec![format!("  {who:<22} {}", style.dice(dice, faces, wild))];
            }
            // Every cup, with the dice that counted as the record says the engine counted them.
            Some(EventKind::DiceRevealed { dice, counted: Some(counted) }) => {
                lines = render::reveal_lines(dice, Some(counted), &names, faces, style);
            }
            Some(EventKind::BidMade { .. }) => {
                if let Some(note) = notes.next() {
                    let truth = if note.true_at_showdown { style.green("true") } else { style.red("false") };
                    let odds = note.odds * 100.0;
                    lines[0] = format!(
                        "{}   ({odds:.0}% to its bidder; {}: {truth})",
                        lines[0],
                        there_were(note.count)
                    );
                }
            }
            _ => {}
        }
        for line in lines.into_iter().filter(|l| !l.is_empty()) {
            match blocks.last_mut() {
                Some(block) => block.push(line),
                None => blocks.push(vec![line]),
            }
        }
    }
    Ok(blocks)
}

/// What `dudo replay` says of a bid.
struct BidNote {
    /// The chance it was true to its bidder when made: the engine's odds from the bidder's
    /// own view, as `odds` at the table shows them.
    odds: f64,
    /// The dice that counted for it at the showdown, as the engine counts them (wilds,
    /// stairs, pushed dice), and whether that made it true.
    count: u16,
    true_at_showdown: bool,
}

/// Plays the record's moves through the engine from its seed, checking that they make the
/// recorded game, and notes each bid in the order of its `bid_made` events.
fn bid_notes(replay: &pb::Replay, rules: dudo_rules::RuleSet, seats: usize) -> Result<Vec<BidNote>, String> {
    use dudo_client::dudo_proto::convert;
    let seed: dudo_rules::Seed = replay.seed.as_slice().try_into().map_err(|_| "no seed in the record")?;
    let faces = rules.dice.faces;
    let (mut game, mut events) =
        dudo_rules::Game::start(std::sync::Arc::new(rules), seats, seed).map_err(|e| e.to_string())?;
    let mut notes: Vec<(Bid, BidNote)> = Vec::new();
    // Bids of the round in play: their counts are taken again before every move, so the
    // last taken are the dice as the round's settling move found them.
    let mut open: Vec<usize> = Vec::new();
    for m in &replay.moves {
        let seat = m.seat as usize;
        for &i in &open {
            let (bid, note) = &mut notes[i];
            note.count = game.bid_count(bid.face).unwrap_or(0);
            note.true_at_showdown = note.count >= bid.quantity;
        }
        let round = game.round();
        let made = match &m.action {
            None => game.remove(seat),
            Some(wire) => {
                let action = convert::action_from_wire(wire).map_err(|e| e.to_string())?;
                let bid = match &action {
                    dudo_rules::Action::Bid(bid) | dudo_rules::Action::Push { bid, .. } => Some(*bid),
                    _ => None,
                };
                if let Some(bid) = bid {
                    let odds = dudo_rules::odds::bid_odds(&game.view(seat), faces, bid).at_least;
                    open.push(notes.len());
                    notes.push((bid, BidNote { odds, count: 0, true_at_showdown: false }));
                }
                game.apply(seat, &action)
            }
        };
        events.extend(made.map_err(|e| format!("move {} refused: {e}", m.seat))?);
        if game.round() != round || game.is_over() {
            open.clear();
        }
    }
    // The check: the engine's events, as a replay shows them, are the record's (less what
    // the server adds: dice commitments, their salts, clock notices).
    let ours: Vec<dudo_rules::EventKind> =
        events.into_iter().filter(|e| e.audience.admits(Viewer::Replay, true)).map(|e| e.kind).collect();
    let theirs: Vec<dudo_rules::EventKind> = replay
        .events
        .iter()
        .filter_map(|w| convert::event_from_wire(w).ok())
        .filter_map(|(_, e)| e.game().cloned())
        .collect();
    let same = |(ours, theirs): (&EventKind, &EventKind)| match (ours, theirs) {
        // A record from before reveals carried their counts: the dice must still match.
        (EventKind::DiceRevealed { dice, .. }, EventKind::DiceRevealed { dice: recorded, counted: None }) => {
            dice == recorded
        }
        _ => ours == theirs,
    };
    if ours.len() != theirs.len() || !ours.iter().zip(&theirs).all(same) {
        return Err("its moves make another game".into());
    }
    Ok(notes.into_iter().map(|(_, note)| note).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dudo_client::dudo_proto::convert;

    /// A finished game's record as the server keeps it: seed, moves, the replay's events.
    fn record(preset: &str, seed: u64) -> pb::Replay {
        let rules = dudo_rules::presets::by_name(preset).unwrap();
        let seed = dudo_rules::seed_from_u64(seed);
        let (mut game, mut events) =
            dudo_rules::Game::start(std::sync::Arc::new(rules.clone()), 3, seed).unwrap();
        let mut bot = dudo_rules::bots::by_name("odds", 1).unwrap();
        let mut moves = Vec::new();
        while let Some(seat) = game.turn().filter(|_| !game.is_over()) {
            let action = bot.act(&rules, &game.view(seat), &game.legal(seat));
            events.extend(game.apply(seat, &action).unwrap());
            moves.push(pb::GameMove {
                seat: seat as u32,
                action: Some(convert::action_to_wire(&action)),
                timed_out: false,
            });
        }
        let shown = events.iter().filter(|e| e.audience.admits(Viewer::Replay, true));
        pb::Replay {
            rules: Some(convert::rules_to_wire(&rules)),
            events: shown.enumerate().map(|(i, e)| convert::game_event_to_wire(i as u64, e)).collect(),
            seed: seed.to_vec(),
            moves,
            ..Default::default()
        }
    }

    #[test]
    fn a_record_replays_through_the_engine_and_a_tampered_one_does_not() {
        for preset in ["snyd", "house", "perudo-jonti"] {
            let replay = record(preset, 5);
            let bids =
                replay.events.iter().filter(|e| matches!(e.kind, Some(pb::event::Kind::BidMade(_)))).count();
            let notes =
                bid_notes(&replay, convert::rules_from_wire(replay.rules.as_ref().unwrap()).unwrap(), 3)
                    .unwrap();
            assert_eq!(notes.len(), bids, "{preset}: a note for every bid");
            assert!(notes.iter().all(|n| (0.0..=1.0).contains(&n.odds)));
            let mut tampered = replay.clone();
            tampered.seed[0] ^= 1;
            let rules = convert::rules_from_wire(replay.rules.as_ref().unwrap()).unwrap();
            assert!(bid_notes(&tampered, rules, 3).is_err(), "{preset}: other dice, another game");
            // A record from before reveals carried their counts still replays.
            let mut older = replay.clone();
            for e in &mut older.events {
                if let Some(pb::event::Kind::DiceRevealed(r)) = &mut e.kind {
                    (r.counted, r.face, r.total) = (Vec::new(), None, None);
                }
            }
            let rules = convert::rules_from_wire(replay.rules.as_ref().unwrap()).unwrap();
            assert!(bid_notes(&older, rules, 3).is_ok(), "{preset}: a record without counts");
            // The reveals show the counts the record carries.
            let text = rounds(&replay, Style::default()).unwrap().concat().join("\n");
            assert!(text.contains("Cups up:") && text.contains(" counted"), "{preset}: {text}");
        }
    }
}
