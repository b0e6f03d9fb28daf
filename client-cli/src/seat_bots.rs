//! The bots that play an account's seats for `dudo ladder --bot`, `dudo tournament enter
//! --bot` and `dudo bot check`: a run of the command per seat with the `dudo arena
//! --external` contract in its environment, or one of the SDK's strategies on a task; a run
//! that fails in the middle of its game started again for its seat, and one stopped once its
//! game is over.

use crate::bot_command::BotCommand;
use crate::render::safe;

/// `--bot` runs that may fail in a row before `dudo ladder` stops. A run that fails while its
/// game goes on is started again for the same seat until then: a bot that crashes now and then
/// finishes its games, and one that always crashes stops the run within three tries.
const BOT_FAILURES: u32 = 3;

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
