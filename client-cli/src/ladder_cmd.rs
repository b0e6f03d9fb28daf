//! `dudo ladder POOL --bot COMMAND` and `dudo leaderboard [POOL]`: a bot of one's own on a
//! server's ladder, and the boards.
//!
//! `dudo ladder` enters the pool as the account kept for the server (`dudo account`), and
//! for each game it is seated at starts COMMAND with the `dudo arena --external` contract:
//! `DUDO_SERVER`, `DUDO_TABLE` (the table id), `DUDO_TOKEN` and `DUDO_SEAT` name the seat
//! to play. `--builtin odds` plays with one of the SDK's strategies instead.

use std::process::ExitCode;

use clap::Args;
use dudo_client::dudo_proto::v1 as pb;

use crate::bot_command::BotCommand;
use crate::net::ServerArgs;
use crate::render::safe;

/// `--bot` runs that may fail in a row before `dudo ladder` stops. A run that fails while its
/// game goes on is started again for the same seat until then: a bot that crashes now and then
/// finishes its games, and one that always crashes stops the run within three tries.
const BOT_FAILURES: u32 = 3;

#[derive(Args)]
pub struct LadderArgs {
    /// The pool to play in (`--pools` lists them).
    pub pool: Option<String>,
    /// The bot: a shell command started for each game, as `dudo arena --external` starts
    /// one (DUDO_SERVER, DUDO_TABLE, DUDO_GAME, DUDO_TOKEN, DUDO_SEAT and DUDO_BOT_NAME in its
    /// environment).
    #[arg(long, conflicts_with = "builtin")]
    pub bot: Option<String>,
    /// Play with one of the SDK's strategies instead: random, odds, reader or expert.
    #[arg(long)]
    pub builtin: Option<String>,
    /// With --builtin: how long the strategy thinks before each move, in milliseconds (at
    /// most 10000), so a game lasts long enough to follow, or to try a resume or the clock by
    /// hand. The pool's own bots pause by its `bot_think_millis`.
    #[arg(long, requires = "builtin", conflicts_with = "bot", value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub bot_think_ms: Option<u32>,
    /// Games at once (up to the pool's limit).
    #[arg(long, default_value_t = 1)]
    pub at_once: u32,
    /// Stop after this many games (0: keep playing until interrupted).
    #[arg(long, default_value_t = 0)]
    pub games: usize,
    /// List the server's pools.
    #[arg(long)]
    pub pools: bool,
    #[command(flatten)]
    pub server: ServerArgs,
}

#[derive(Args)]
pub struct LeaderboardArgs {
    /// The pool (default: every pool in turn).
    pub pool: Option<String>,
    /// At most this many players a pool.
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// One player's rating after each of its games in POOL.
    #[arg(long, requires = "pool")]
    pub history: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

fn kind(k: i32) -> &'static str {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Bot) => " [bot]",
        Ok(pb::AccountKind::Person) => "",
        _ => " (built in)",
    }
}

pub fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server);
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        if let (Some(pool), Some(name)) = (&args.pool, &args.history) {
            let points = client.rating_history(pool, name).await?;
            if points.is_empty() {
                println!("{} has no rated games in {} yet.", safe(name), safe(pool));
            }
            for p in points {
                println!(
                    "{}  {:>3}  mu {:6.2}  sigma {:5.2}  game {}",
                    crate::history_cmd::date_time(p.unix_millis),
                    ordinal(p.place),
                    p.mu,
                    p.sigma,
                    safe(&p.game)
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
        let pools: Vec<String> = match args.pool {
            Some(p) => vec![p],
            None => client.pools().await?.into_iter().map(|p| p.name).collect(),
        };
        for pool in pools {
            // Asked first, so a pool the server refuses prints nothing but why.
            let board = client.leaderboard(&pool, args.limit).await?;
            println!("{}", safe(&pool));
            if board.is_empty() {
                println!("  no rated games yet");
            } else {
                // The board's order: mu − 3·sigma, a rating the player is very likely above.
                println!("  {:>4}  {:<28} {:>6}", "", "name", "mu−3σ");
            }
            // A place shared with a row above or below ("=2") is a tie the games so far
            // cannot break: the ratings are too close for their order to mean anything yet.
            let shared = |place: u32| board.iter().filter(|e| e.place == place).count() > 1;
            for e in &board {
                let provisional = if e.provisional { "  provisional" } else { "" };
                let place = if shared(e.place) { format!("={}", e.place) } else { e.place.to_string() };
                println!(
                    "  {:>4}. {:<28} {:6.2}  (mu {:.2}, sigma {:.2})  {} games, {} won{provisional}",
                    place,
                    format!("{}{}", safe(&e.name), kind(e.kind)),
                    e.score,
                    e.mu,
                    e.sigma,
                    e.games,
                    e.wins
                );
            }
            if board.iter().any(|e| shared(e.place)) {
                println!("  (=: too close to tell apart yet; more games will separate them)");
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub(crate) fn ordinal(place: u32) -> String {
    match place {
        0 => "-".into(),
        1 => "1st".into(),
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

pub fn run(args: LadderArgs) -> anyhow::Result<ExitCode> {
    let server = crate::account_cmd::accounts_server(args.server);
    let addr = server.server.clone();
    crate::net::runtime()?.block_on(async move {
        let client = server.connect().await?;
        if args.pools || args.pool.is_none() {
            for p in client.pools().await? {
                let seconds = |ms: u32| format!("{}", f64::from(ms) / 1000.0);
                let clock = match (p.move_millis, p.time_bank_millis) {
                    (0, _) => "no clock".to_string(),
                    (m, 0) => format!("{} s a move", seconds(m)),
                    (m, b) => format!("{} s a move and a {} s bank", seconds(m), seconds(b)),
                };
                let fill = if p.bots.is_empty() {
                    String::new()
                } else {
                    let think = match p.bot_think_millis {
                        0 => String::new(),
                        ms => format!(", who think {} s a move", seconds(ms)),
                    };
                    format!("; filled by {} after {} s{think}", p.bots.join(", "), p.fill_after_seconds)
                };
                let who = match p.players.as_str() {
                    "people" => " (for people: the page's Play rated)",
                    "bots" => " (for bots)",
                    _ => "",
                };
                println!(
                    "{:<20} {} seats of {}{who}, {clock}, calls out of turn within {} s, up to {}{fill}; benched {} min after {} time-outs or lapsed call windows",
                    safe(&p.name),
                    p.seats,
                    safe(&p.rules),
                    seconds(p.call_window_millis),
                    if p.max_games == 1 { "1 game at once".to_string() } else { format!("{} games at once", p.max_games) },
                    p.bench_minutes,
                    p.bench_after_timeouts,
                );
            }
            if args.pool.is_none() {
                if args.bot.is_some() || args.builtin.is_some() {
                    anyhow::bail!("name the pool to play in: dudo ladder POOL (the pools are listed above)");
                }
                println!("Play one: dudo ladder POOL --bot 'python3 bot.py' (as your account: dudo account register NAME --bot)");
            }
            return Ok(ExitCode::SUCCESS);
        }
        let pool = args.pool.unwrap_or_default();
        let (client, name, playing) = crate::account_cmd::signed_in(&client, &addr, || {
            format!("the ladder is for accounts: `dudo account register NAME --bot --server {addr}` first")
        })
        .await?;
        eprintln!("(playing as {} with {})", safe(&name), playing.from);
        let think = std::time::Duration::from_millis(args.bot_think_ms.unwrap_or(0).into());
        let player = SeatPlayer::chosen(args.bot.as_deref(), args.builtin.as_deref())?.thinking(think);
        // Never more games at once than are asked for in all.
        let at_once = if args.games > 0 { args.at_once.min(u32::try_from(args.games).unwrap_or(u32::MAX)) } else { args.at_once };
        // Games still to deal (0: no end): the server seats no more than that, so none is
        // dealt as the stream closes (a seat nobody plays, whose time-outs bench the account).
        let to_deal = |ended: usize, in_play: usize| {
            if args.games == 0 { 0 } else { u32::try_from(args.games - ended - in_play).unwrap_or(u32::MAX) }
        };
        let mut updates = client.enter(&pool, at_once, to_deal(0, 0)).await.map_err(|e| {
            // The server names its field (`games`); here it is the flag.
            match e.to_string().strip_prefix("at_once:") {
                Some(rest) => anyhow::anyhow!("--at-once:{rest}"),
                None => e.into(),
            }
        })?;
        println!("{} is in {} on {addr}; waiting for a table.", safe(&name), safe(&pool));
        let mut ended = 0;
        // Games seated and not yet ended: table, game id, and whether it was seated before the
        // ladder moved to another node (which knows nothing of it: its end is its bot's).
        let mut in_play: Vec<(String, String, bool)> = Vec::new();
        let mut seats = Seats::new(client.clone(), addr.clone(), name.clone(), player);
        while args.games == 0 || ended < args.games {
            let update = tokio::select! {
                update = updates.message() => update,
                bot = seats.ended() => {
                    let table = bot.map_err(|e| anyhow::anyhow!("{e}; leaving the ladder. Its games in play go on under the clock (their time-outs can bench the account)"))?;
                    if let Some(i) = in_play.iter().position(|(t, _, moved)| *t == table && *moved) {
                        let (_, game, _) = in_play.remove(i);
                        ended += 1;
                        let history = client.rating_history(&pool, &name).await.unwrap_or_default();
                        match history.iter().find(|p| p.game == game) {
                            Some(p) => println!("game {}: finished {} (dudo replay {} --server {addr})", safe(&game), ordinal(p.place), safe(&game)),
                            None => println!("game {}: over (dudo replay {} --server {addr})", safe(&game), safe(&game)),
                        }
                    }
                    continue;
                }
            };
            let update = match update {
                Ok(Some(update)) => update,
                // Dropped by the server (its node died or drained): the ladder is elsewhere now.
                // Every game asked for is dealt: nothing to enter again for (an entry for 0
                // games is one with no end); those in play end with their bots.
                Ok(None) if args.games > 0 && to_deal(ended, in_play.len()) == 0 => break,
                Err(status) if dudo_client::dropped(&status) && args.games > 0 && to_deal(ended, in_play.len()) == 0 => {
                    break;
                }
                Ok(None) => {
                    let games = to_deal(ended, in_play.len());
                    updates = enter_again(&client, &pool, at_once, games, &mut in_play).await?;
                    continue;
                }
                Err(status) if dudo_client::dropped(&status) => {
                    let games = to_deal(ended, in_play.len());
                    updates = enter_again(&client, &pool, at_once, games, &mut in_play).await?;
                    continue;
                }
                Err(status) => return Err(status.into()),
            };
            match update.update {
                Some(pb::ladder_update::Update::Queued(q)) => {
                    println!("queue: {} waiting, {} of yours in play, rating (mu−3σ) {:.2}", q.waiting, q.playing, q.rating);
                }
                Some(pb::ladder_update::Update::Seated(s)) => {
                    if in_play.iter().any(|(t, _, _)| *t == s.table) {
                        continue;
                    }
                    println!("seated for game {} as seat {}", safe(&s.game), s.seat);
                    in_play.push((s.table.clone(), s.game.clone(), false));
                    seats.start(&s.table, &s.game, s.seat, &s.token)?;
                }
                Some(pb::ladder_update::Update::Ended(e)) => {
                    let Some(i) = in_play.iter().position(|(t, _, _)| *t == e.table) else { continue };
                    in_play.remove(i);
                    seats.game_over(&e.table);
                    ended += 1;
                    println!(
                        "game {}: finished {} (dudo replay {} --server {addr})",
                        safe(&e.game),
                        ordinal(e.place),
                        safe(&e.game)
                    );
                }
                Some(pb::ladder_update::Update::Benched(b)) => {
                    println!(
                        "benched until {}: {}",
                        crate::history_cmd::date_time(b.until_unix_millis),
                        safe(&b.why)
                    );
                }
                None => {}
            }
            // With every game asked for dealt, the stream stays open: the server deals no
            // more (it was told how many), and its `ended` for each is what stops that
            // game's bot (one that lingers is stopped 10 s after) and counts it.
        }
        drop(updates);
        if !in_play.is_empty() {
            println!("{} of your games still in play; waiting for them to end.", in_play.len());
        }
        // The bots of games just ended see their end and exit (one that lingers is stopped
        // 10 s after); games still in play end within a game's length (at most an hour).
        seats.wait(std::time::Duration::from_secs(3600)).await?;
        if in_play.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        // Their places, from the account's rating history (written with each game's record).
        let history = client.rating_history(&pool, &name).await.unwrap_or_default();
        for (_, game, _) in &in_play {
            match history.iter().find(|p| p.game == *game) {
                Some(p) => println!(
                    "game {}: finished {} (dudo replay {} --server {addr})",
                    safe(game),
                    ordinal(p.place),
                    safe(game)
                ),
                None => println!("game {}: its bot stopped before the end (dudo replay {} --server {addr} once it is over)", safe(game), safe(game)),
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// How long `dudo ladder` keeps entering again while the ladder cannot be reached.
const LADDER_GIVE_UP_AFTER: std::time::Duration = std::time::Duration::from_secs(120);

/// Enters the pool again after the server dropped the entry (the ladder's node died or
/// drained): tried until the ladder answers at its new node, for two minutes at most. The
/// games in play go on; they are marked as seated before the move.
async fn enter_again(
    client: &dudo_client::Client,
    pool: &str,
    at_once: u32,
    games: u32,
    in_play: &mut [(String, String, bool)],
) -> anyhow::Result<dudo_client::Streaming<pb::LadderUpdate>> {
    println!("The ladder is moving to another node of the server; entering again (games in play go on).");
    for game in in_play.iter_mut() {
        game.2 = true;
    }
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(100);
    loop {
        match client.enter(pool, at_once, games).await {
            Ok(updates) => return Ok(updates),
            Err(dudo_client::ClientError::Refused { status })
                if dudo_client::dropped(&status) && started.elapsed() < LADDER_GIVE_UP_AFTER =>
            {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(2));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Who plays the seats an account is given: a command started for each, or one of the
/// SDK's strategies.
pub(crate) enum SeatPlayer {
    Command(String),
    /// A strategy, and its pause before each move.
    Builtin(String, std::time::Duration),
}

impl SeatPlayer {
    /// The player `--bot` or `--builtin` names.
    pub(crate) fn chosen(bot: Option<&str>, builtin: Option<&str>) -> anyhow::Result<SeatPlayer> {
        match (bot, builtin) {
            (Some(command), _) => Ok(SeatPlayer::Command(command.to_string())),
            (None, Some(b)) => {
                anyhow::ensure!(
                    dudo_bot::builtin(b, 0).is_some(),
                    "--builtin: {}, not {b:?}",
                    dudo_rules::bots::NAMES.join(", ")
                );
                Ok(SeatPlayer::Builtin(b.to_string(), std::time::Duration::ZERO))
            }
            (None, None) => {
                anyhow::bail!("say who plays: --bot COMMAND, or --builtin random|odds|reader|expert")
            }
        }
    }

    /// A strategy that pauses `think` before each move (a command keeps its own pace).
    pub(crate) fn thinking(self, think: std::time::Duration) -> SeatPlayer {
        match self {
            SeatPlayer::Builtin(strategy, _) => SeatPlayer::Builtin(strategy, think),
            command => command,
        }
    }
}

/// How long a bot's command may run on after its game is over.
const AFTER_GAME: std::time::Duration = std::time::Duration::from_secs(10);

/// How a seat's bot ended.
enum BotEnd {
    /// A strategy's task (no command).
    Strategy,
    /// The command exited by itself: how (none: it could not be waited for).
    Command(Option<std::process::ExitStatus>),
    /// The command was stopped [`AFTER_GAME`] after its game ended.
    StoppedAfterGame,
}

/// The bots playing an account's seats (`dudo ladder`, `dudo tournament enter`): one run of
/// the command per seat, with the `dudo arena --external` contract in its environment, or
/// an SDK strategy on a task. A run that fails while its game goes on is started again for
/// its seat; a command that keeps failing stops the caller, rather than time out game after
/// game.
pub(crate) struct Seats {
    client: dudo_client::Client,
    addr: String,
    name: String,
    player: SeatPlayer,
    /// Each strategy player's seed: one more a seat.
    seed: u64,
    /// Each bot that ended: its table, and how its command exited (none: a strategy's task).
    exits_tx: tokio::sync::mpsc::Sender<(String, BotEnd)>,
    exits: tokio::sync::mpsc::Receiver<(String, BotEnd)>,
    /// Commands still running.
    running: usize,
    failed_in_a_row: u32,
    ever_worked: bool,
    /// Each strategy player: its table, and its task.
    players: Vec<(String, tokio::task::JoinHandle<()>)>,
    /// Each run of the command: its seat, the task waiting for it (aborting the task kills
    /// the command and all it started), and what stops it once its game is over (taken when
    /// that is said: a run that ends with it still there ended in the middle of its game).
    commands: Vec<Run>,
}

/// One run of a `--bot` command, for one seat.
struct Run {
    table: String,
    /// What it was started with, to start it again for the same seat.
    game: String,
    seat: u32,
    token: String,
    task: tokio::task::JoinHandle<()>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Seats {
    pub(crate) fn new(client: dudo_client::Client, addr: String, name: String, player: SeatPlayer) -> Seats {
        let (exits_tx, exits) = tokio::sync::mpsc::channel(16);
        Seats {
            client,
            addr,
            name,
            player,
            seed: 0,
            exits_tx,
            exits,
            running: 0,
            failed_in_a_row: 0,
            ever_worked: false,
            players: Vec::new(),
            commands: Vec::new(),
        }
    }

    /// Whether a bot is playing at `table` now.
    fn playing_at(&self, table: &str) -> bool {
        // A run is kept until its exit is read: one that ended unread is still the seat's.
        self.commands.iter().any(|run| run.table == table)
            || self.players.iter().any(|(t, task)| t == table && !task.is_finished())
    }

    /// Starts the bot for a seat, unless one plays there already (a seat said again after a
    /// restart is the same seat, and its bot plays on).
    pub(crate) fn start(&mut self, table: &str, game: &str, seat: u32, token: &str) -> anyhow::Result<()> {
        if self.playing_at(table) {
            return Ok(());
        }
        self.seed += 1;
        let key = dudo_client::SeatKey::saved(table.to_string(), seat, token.to_string());
        match &self.player {
            SeatPlayer::Command(command) => {
                let seat_text = seat.to_string();
                let set = [
                    ("DUDO_SERVER", self.addr.as_str()),
                    ("DUDO_TABLE", table),
                    ("DUDO_GAME", game),
                    ("DUDO_TOKEN", token),
                    ("DUDO_SEAT", seat_text.as_str()),
                    ("DUDO_BOT_NAME", self.name.as_str()),
                ];
                let mut child = BotCommand::start(command, &set, &["DUDO_API_TOKEN"])?;
                let exits = self.exits_tx.clone();
                self.running += 1;
                let (stop, stopped) = tokio::sync::oneshot::channel();
                // Aborting the task drops the command, and with it everything it started.
                let waiting = tokio::spawn(async move {
                    let end = tokio::select! {
                        status = child.wait() => BotEnd::Command(status.ok()),
                        _ = stopped => {
                            child.kill();
                            BotEnd::StoppedAfterGame
                        }
                    };
                    let _ = exits.send((key.table, end)).await;
                });
                self.commands.push(Run {
                    table: table.to_string(),
                    game: game.to_string(),
                    seat,
                    token: token.to_string(),
                    task: waiting,
                    stop: Some(stop),
                });
            }
            SeatPlayer::Builtin(strategy, think) => {
                let (client, strategy, seed, think) =
                    (self.client.clone(), strategy.clone(), self.seed, *think);
                let exits = self.exits_tx.clone();
                self.players.retain(|(_, p)| !p.is_finished());
                self.players.push((
                    table.to_string(),
                    tokio::spawn(async move {
                        if let Some(mut bot) = dudo_bot::builtin(&strategy, seed)
                            && let Err(e) = dudo_bot::play_thinking(&mut bot, &client, &key, think).await
                        {
                            eprintln!("dudo: table {}: {e}", key.table);
                        }
                        let _ = exits.send((key.table, BotEnd::Strategy)).await;
                    }),
                ));
            }
        }
        Ok(())
    }

    /// Waits for a run of the command to end (never, for a strategy): an error once the
    /// command has failed before any game, or [`BOT_FAILURES`] times in a row.
    pub(crate) async fn failed(&mut self) -> anyhow::Result<()> {
        self.ended().await.map(|_| ())
    }

    /// Waits for a seat's bot to end (its game is over, or it gave up); its table. A run that
    /// failed while its game goes on is started again for its seat, and waited for in turn.
    /// An error as [`Seats::failed`] says.
    pub(crate) async fn ended(&mut self) -> anyhow::Result<String> {
        loop {
            let Some((table, ran)) = self.exits.recv().await else {
                return std::future::pending().await;
            };
            let status = match ran {
                BotEnd::Strategy => return Ok(table),
                BotEnd::StoppedAfterGame => None,
                BotEnd::Command(status) => Some(status),
            };
            self.running = self.running.saturating_sub(1);
            // Its run is over: kept until now so that this exit finds its seat.
            let run =
                self.commands.iter().rposition(|run| run.table == table).map(|i| self.commands.remove(i));
            // Its game over, it was stopped, or it exited well: it played, as far as anyone
            // can tell.
            let Some(status) = status.filter(|s| !s.is_some_and(|s| s.success())) else {
                (self.failed_in_a_row, self.ever_worked) = (0, true);
                return Ok(table);
            };
            self.failed_in_a_row += 1;
            let how = match status.map(|s| (s.code(), s)) {
                Some((Some(code), _)) => format!("exited with code {code}"),
                Some((None, s)) => format!("was stopped ({s})"),
                None => "could not be waited for".to_string(),
            };
            // The shell's own codes for a command it could not find or run: a wrong command,
            // not an unlucky one, stops at once.
            let wrong = status.and_then(|s| s.code()).is_some_and(|code| code == 126 || code == 127);
            if wrong || self.failed_in_a_row >= BOT_FAILURES {
                let times = match (wrong, self.ever_worked) {
                    (true, _) => "to start".to_string(),
                    (false, true) => format!("{} times in a row", self.failed_in_a_row),
                    (false, false) => {
                        format!(
                            "{} times in a row, and has not yet played a game to its end",
                            self.failed_in_a_row
                        )
                    }
                };
                anyhow::bail!(
                    "the --bot command failed {times} ({how}). Try it by hand with DUDO_SERVER, DUDO_TABLE, DUDO_TOKEN and DUDO_SEAT set, as docs/bots.md shows"
                );
            }
            // In the middle of its game (nobody has said it is over): the seat is still
            // its, and its game still on under the clock; a run started again picks it up.
            let Some(run) = run.filter(|run| run.stop.is_some()) else {
                eprintln!("dudo: the bot for table {} {how}", safe(&table));
                return Ok(table);
            };
            eprintln!(
                "dudo: the bot for table {} {how} in the middle of its game; starting it again for seat {} (try {} of {BOT_FAILURES})",
                safe(&table),
                run.seat,
                self.failed_in_a_row + 1
            );
            self.start(&run.table, &run.game, run.seat, &run.token)?;
        }
    }

    /// The game at `table` is over: its command gets [`AFTER_GAME`] to finish (as the arena
    /// gives its bots), then is stopped with all it started, so a bot that lingers holds up
    /// neither the run nor its own place.
    pub(crate) fn game_over(&mut self, table: &str) {
        for run in self.commands.iter_mut().filter(|run| run.table == table) {
            if let Some(stop) = run.stop.take() {
                tokio::spawn(async move {
                    tokio::time::sleep(AFTER_GAME).await;
                    let _ = stop.send(());
                });
            }
        }
    }

    /// Stops every bot still playing (its game is gone): each command is killed.
    pub(crate) fn stop(&mut self) {
        for run in self.commands.drain(..) {
            run.task.abort();
        }
        for (_, task) in self.players.drain(..) {
            task.abort();
        }
        self.running = 0;
    }

    /// Waits for every bot still playing to end (a command for at most `within`), then stops
    /// those that have not; an error as [`Seats::failed`] says.
    pub(crate) async fn wait(mut self, within: std::time::Duration) -> anyhow::Result<()> {
        let until = tokio::time::Instant::now() + within;
        // Through `ended`, so a run that fails in the middle of its game is started again.
        let mut failed = Ok(());
        while self.running > 0 {
            match tokio::time::timeout_at(until, self.ended()).await {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    failed = Err(e);
                    break;
                }
                Err(_) => break,
            }
        }
        for (_, player) in &mut self.players {
            let _ = tokio::time::timeout_at(until, player).await;
        }
        self.stop();
        failed
    }
}
