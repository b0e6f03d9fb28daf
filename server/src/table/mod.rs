//! One table: a synchronous core, and the task that runs it.
//!
//! The core ([`core::TableCore`]) owns the table's state in small parts: the seats
//! ([`seats`]), the event log and the streams reading it ([`log`]), the turn clock
//! ([`clock`]), the built-in bots ([`bots`]), the dice proofs ([`proofs`]), the journal
//! ([`journal`]), the game's record ([`record`]) and, at a bot check's table, what each seat
//! was asked ([`offers`]). Every change comes in as one
//! [`journal::Input`], live or replayed from the journal, with the time passed in.
//!
//! The task ([`Table::run`]) is thin: it takes [`Command`]s (`command`) from the node over a
//! bounded channel, checks who is asking (tokens, the host, the rate limit), turns a command into an
//! input (the people's calls beside the game: `together`), and keeps the timers (the clock, a paused bot, idleness). Each turn of its loop
//! writes what the last turn journalled (`saving`) and only then delivers what it caused
//! (events, prompts, replies): nobody learns of anything the journal does not hold. A table
//! is rebuilt from its journal by `recover`. Each stream it
//! feeds is a bounded channel whose bytes count against the budget (`channel`).

mod acting;
pub mod bots;
mod channel;
pub mod clock;
mod command;
pub mod core;
pub mod error;
pub mod journal;
pub mod log;
pub mod offers;
mod patience;
pub mod pause;
pub mod proofs;
pub mod rate;
pub mod record;
mod recover;
mod saving;
pub mod seats;
pub mod stored_record;
pub mod talk;
mod together;
pub mod window;
mod words;

use std::sync::Arc;
use std::time::Duration;

use dudo_proto::LeaveWhy;
use dudo_proto::v1 as pb;
use dudo_rules::{RuleSet, Seat};
use dudo_store::cluster::Lease;
use dudo_store::{NewTable, Store};
use rand::Rng;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

pub use self::channel::{StreamReader, StreamSink, stream_channel};
pub use self::clock::{Clock, Now};
pub use self::command::{Answer, Command};
pub use self::core::{GameLength, Pacing, TableCore};
pub use self::error::TableError;
use self::journal::Input;
pub use self::log::{Delivery, StreamEnd};
pub use self::proofs::commitment;
use self::rate::RateLimit;
pub use self::recover::RecoverError;
pub use self::seats::SeatAccount;
use self::seats::{SeatBot, token_hash};
use self::words::game_seed;
pub use self::words::{game_id, journals_faithfully, secret, unix_millis};
use crate::bot_cpu::TableShare;

/// How often a table with people looks for players whose streams have all closed.
const PRESENCE_EVERY: Duration = Duration::from_secs(1);

/// What a table is made with, besides its rules: the core's setup, and what only a running
/// table needs.
pub struct Setup {
    pub table: core::Setup,
    /// Moves the whole table may make a second in answer to prompts (protects the server).
    pub table_rate: u32,
    pub store: Option<Store>,
    /// The CPU its built-in bots may take.
    pub bot_cpu: TableShare,
    /// Where the server's pages are (`http://HOST:PORT`), for the table's link.
    pub link_base: Arc<str>,
    /// In a cluster, this node's lease on the table: every journal write carries it.
    pub lease: Option<Lease>,
}

/// Why a table's task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Closed by its host or for being idle: gone for good.
    Closed,
    /// Its journal could not be written: it is back, as saved, when the server restarts.
    Unsaved,
    /// The server let go of it (stopping, or draining); the journal keeps it.
    Released,
    /// Another node of the cluster took it (this one's journal writes were refused).
    Moved,
}

/// A reply waiting, like the events, for the journal to be durable.
type Reply = Box<dyn FnOnce() + Send>;

/// The task's state: the core, and what only a running table needs.
pub struct Table {
    core: TableCore,
    /// Where the journal is kept; none: the table lives in memory only.
    store: Option<Store>,
    /// The table's row, until its first batch is written.
    unwritten: Option<NewTable>,
    /// The next journal entry's number.
    entries: i64,
    /// The table will not be resumed: written with the last batch.
    closed_at: Option<i64>,
    /// Replies to send once the journal is durable.
    replies: Vec<Reply>,
    rate: RateLimit,
    /// Each seat's calls that write the journal without a move (see `together`).
    host_calls: rate::Allowances<Seat>,
    /// A seat refused for the table's pace is prompted again when it may move (monotonic).
    reprompt: Vec<(Seat, Duration)>,
    /// What the core's monotonic time counts from, and its Unix time (ms).
    epoch: Instant,
    epoch_wall: i64,
    /// The CPU its bots may take: past it, their next moves wait.
    bot_cpu: TableShare,
    /// In a cluster, this node's lease on the table (see [`Setup::lease`]).
    lease: Option<Lease>,
    /// The node let go of the table: the task ends once the journal is written.
    released: bool,
    /// The addresses refused lately (the node's), and where each seat's last stream came
    /// from: a seat whose address is being refused may be trying to come back.
    refused: Option<crate::address::Refused>,
    seats_from: std::collections::HashMap<Seat, std::net::IpAddr>,
    /// Each seat's refused calls by code, for a bot check's report (the codes are a fixed
    /// few, the seats the table's).
    refusals: std::collections::BTreeMap<(Seat, &'static str), u32>,
}

/// How a seat has behaved: what a bot check reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatConduct {
    /// Its refused calls by code (`bid_not_higher`, `stale_prompt`, `not_started`, …).
    pub refused: Vec<(&'static str, u32)>,
    /// Its streams open now.
    pub streams: usize,
    /// The call windows it was asked in, and those every seat was asked in.
    pub windows: (u32, u32),
    /// The kinds of prompt it met and of action it played, and the kinds any seat met.
    pub offers: offers::SeatOffers,
}

impl Table {
    /// This table as a bot check's: its lapsed call windows count as on a ladder's, and what
    /// each seat is asked is kept for the report.
    pub fn for_bot_check(mut self) -> Table {
        self.core.for_bot_check();
        self
    }

    /// A new table; with a store, its creation is the journal's first entry.
    pub fn new(rules: RuleSet, setup: Setup) -> Table {
        let Setup { table: mut core_setup, table_rate, store, bot_cpu, link_base, lease } = setup;
        let now = Now { wall: unix_millis(), mono: Duration::ZERO };
        core_setup.journalled = store.is_some();
        let unwritten =
            store.as_ref().map(|_| NewTable { code: core_setup.code.clone(), created_at: now.wall });
        let mut core = TableCore::new(rules, core_setup, rand::rng().random(), now);
        core.set_link_base(link_base);
        let rate = RateLimit::new(core.rate(), table_rate);
        Table::around(core, store, unwritten, 0, rate, bot_cpu, lease)
    }

    fn around(
        core: TableCore,
        store: Option<Store>,
        unwritten: Option<NewTable>,
        entries: i64,
        rate: RateLimit,
        bot_cpu: TableShare,
        lease: Option<Lease>,
    ) -> Table {
        let epoch = Instant::now();
        let epoch_wall = unix_millis();
        Table {
            core,
            store,
            unwritten,
            entries,
            closed_at: None,
            replies: Vec::new(),
            rate,
            host_calls: rate::Allowances::new(together::HOST_CALLS, 256),
            reprompt: Vec::new(),
            refusals: std::collections::BTreeMap::new(),
            epoch,
            epoch_wall,
            bot_cpu,
            lease,
            released: false,
            refused: None,
            seats_from: std::collections::HashMap::new(),
        }
    }

    /// Reads the node's refusals (see [`Table::refused_seats`]).
    pub fn watch_refusals(&mut self, refused: crate::address::Refused) {
        self.refused = Some(refused);
    }

    /// The away seats whose last stream came from an address a per-address limit refused
    /// lately.
    fn refused_seats(&self) -> Vec<Seat> {
        let Some(refused) = &self.refused else { return Vec::new() };
        let away = |seat: Seat| self.core.seats().get(seat).is_some_and(|s| s.away_since.is_some());
        self.seats_from
            .iter()
            .filter(|(seat, ip)| away(**seat) && refused.lately(**ip))
            .map(|(seat, _)| *seat)
            .collect()
    }

    pub fn summary(&self) -> pb::TableSummary {
        self.core.summary()
    }

    pub fn info(&self) -> pb::TableInfo {
        self.core.info()
    }

    /// Whether the server seats this table itself: never listed, no join code.
    pub fn hidden(&self) -> bool {
        self.core.hidden()
    }

    /// The time now. Its wall time is the epoch's plus the monotonic time since: one reading,
    /// so a moment's wall time (a deadline on the wire) never moves a millisecond between asks.
    fn now(&self) -> Now {
        let mono = Instant::now().saturating_duration_since(self.epoch);
        let since = i64::try_from(mono.as_millis()).unwrap_or(i64::MAX);
        Now { wall: self.epoch_wall.saturating_add(since), mono }
    }

    /// Runs the table until every handle to it is gone, or until it has been idle for `idle`:
    /// no call reached it and no stream was open on it all that time. An abandoned table
    /// would otherwise hold its place under the table limits for ever. Returns why it ended.
    /// The table's summary for lists is kept current in `listed`.
    pub async fn run(
        mut self,
        mut commands: mpsc::Receiver<Box<Command>>,
        listed: tokio::sync::watch::Sender<pb::TableSummary>,
        idle: Duration,
    ) -> Ended {
        metrics::gauge!("dudo_tables").increment(1.0);
        tracing::info!(code = %self.core.code(), "table opened");
        let mut last_call = Instant::now();
        let mut listed_at = self.core.changes();
        // Who is here: seats whose streams all closed are told to the table as away.
        let mut presence = tokio::time::interval(PRESENCE_EVERY);
        presence.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let ended = loop {
            if self.closed_at.is_none() && self.core.orphaned() {
                tracing::info!("every person left the table: it closes");
                self.closed_at = Some(unix_millis());
                self.core.end_streams(StreamEnd::Closed);
            }
            if self.closed_at.is_none() && self.core.ladder_game_over() {
                self.closed_at = Some(unix_millis());
                self.core.end_streams(StreamEnd::Closed);
            }
            // Each turn: write what the last turn journalled, deliver what it caused, then wait.
            if let Err(ended) = self.save().await {
                break ended;
            }
            self.deliver();
            if self.released {
                break Ended::Released;
            }
            if self.core.changes() != listed_at {
                listed_at = self.core.changes();
                listed.send_replace(self.core.summary());
            }
            if self.closed_at.is_some() {
                break Ended::Closed;
            }
            let deadline = self.core.deadline().map(|d| self.epoch + d);
            // What the bots thought since is charged to the table's share; past it, they
            // move only once it has refilled.
            let thought = self.core.take_thinking();
            if !thought.is_zero() {
                self.bot_cpu.spend(thought, Instant::now());
            }
            let bot_cpu = &mut self.bot_cpu;
            let bot_due = self.core.bot_due().map(|d| (self.epoch + d).max(bot_cpu.ready_at(Instant::now())));
            let window = self.core.window_closes().map(|d| self.epoch + d);
            let warning = self.core.warning_due().map(|d| self.epoch + d);
            let reprompt = self.reprompt.iter().map(|&(_, d)| d).min().map(|d| self.epoch + d);
            let reveal_ends = self.core.reveal_ends().map(|d| self.epoch + d);
            let pause_ends = self.core.pause_ends(self.now()).map(|d| self.epoch + d);
            tokio::select! {
                command = commands.recv() => match command {
                    Some(c) => {
                        last_call = Instant::now();
                        self.handle(*c);
                    }
                    // The server let go of the table (it is stopping): the journal keeps it.
                    None => break Ended::Released,
                },
                () = sleep_until(deadline), if deadline.is_some() => {
                    let now = self.now();
                    self.core.time_out(now);
                }
                () = sleep_until(warning), if warning.is_some() => {
                    let now = self.now();
                    self.core.warn(now);
                }
                () = sleep_until(window), if window.is_some() => {
                    let now = self.now();
                    self.core.close_window(now);
                }
                () = sleep_until(bot_due), if bot_due.is_some() => {
                    // Other tasks first: a table of bots playing at once takes turns with them.
                    tokio::task::yield_now().await;
                    let now = self.now();
                    self.core.bot_moves(now);
                }
                () = sleep_until(reveal_ends), if reveal_ends.is_some() => {
                    let now = self.now();
                    self.core.end_reveal(now);
                }
                () = sleep_until(pause_ends), if pause_ends.is_some() => {
                    let now = self.now();
                    self.core.pause_ran_out(now);
                }
                () = sleep_until(reprompt), if reprompt.is_some() => {
                    let now = self.now();
                    let (due, later): (Vec<_>, Vec<_>) =
                        self.reprompt.drain(..).partition(|&(_, d)| d <= now.mono);
                    self.reprompt = later;
                    for (seat, _) in due {
                        self.core.prompt_again(seat, now);
                    }
                }
                // Away for good is decided as the table settles after each move (a seat's
                // presence then is what this last saw).
                _ = presence.tick(), if self.core.has_people() => {
                    let now = self.now();
                    let refused = self.refused_seats();
                    self.core.reconnects_refused(refused);
                    self.core.check_presence(now);
                }
                () = tokio::time::sleep_until(last_call + idle) => {
                    if self.core.prune_streams() {
                        tracing::info!("table closed after {}s idle", idle.as_secs());
                        self.closed_at = Some(unix_millis());
                    }
                    // Someone is watching: the table is in use.
                    last_call = Instant::now();
                }
            }
        };
        metrics::gauge!("dudo_tables").decrement(1.0);
        ended
    }

    /// Sends what waited for the journal: each stream's outbox, then the replies.
    fn deliver(&mut self) {
        self.core.deliver();
        for reply in self.replies.drain(..) {
            reply();
        }
    }

    /// Sends `value` on `reply` once the journal is durable.
    fn reply<T: Send + 'static>(&mut self, reply: oneshot::Sender<T>, value: T) {
        self.replies.push(Box::new(move || {
            let _ = reply.send(value);
        }));
    }

    /// Applies a live input and what follows it; answers with the table as it left it.
    fn input(&mut self, input: Input) -> Result<pb::TableInfo, TableError> {
        self.input_then(input, |_, core| core.info())
    }

    /// Takes a seat out now, or at the round's end (see `TableCore::take_out`); the table.
    fn take_out(&mut self, seat: Seat, why: LeaveWhy) -> Result<pb::TableInfo, TableError> {
        let now = self.now();
        self.core.take_out(seat, why, now)?;
        self.core.settle(now);
        Ok(self.core.info())
    }

    fn input_then<T>(
        &mut self,
        input: Input,
        answer: impl FnOnce(core::Caused, &TableCore) -> T,
    ) -> Result<T, TableError> {
        let now = self.now();
        let caused = self.core.apply(input, now)?;
        self.core.settle(now);
        Ok(answer(caused, &self.core))
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Join { name, account, token, reply } => {
                let token = token.unwrap_or_else(secret);
                // An account seated here already is told that, not that its name is taken.
                let seats = self.core.seats();
                let seated = account.as_ref().is_some_and(|a| seats.holds(a));
                let named = if seated { Err(TableError::AlreadySeated) } else { seats.name_for(&name) };
                let result = named.and_then(|name| {
                    let input = Input::Joined { name, token_hash: token_hash(&token), bot: None, account };
                    self.input_then(input, |caused, core| (caused.seat.unwrap_or(0), token, core.info()))
                });
                self.reply(reply, result);
            }
            Command::AddBot { token, bot, reply } => {
                let result = self.core.seats().host_only(&token).and_then(|_| {
                    if !dudo_rules::bots::NAMES.contains(&bot.as_str()) {
                        return Err(TableError::NoSuchBot { bot, known: dudo_rules::bots::NAMES.join(", ") });
                    }
                    // A seeded table's bots are seeded from it too, as `dudo simulate` seeds
                    // its seats, so the whole game replays (and plays as it would there).
                    let seed = match self.core.seed() {
                        Some(s) => dudo_rules::bots::seat_seed(s, self.core.seats().len()),
                        None => rand::rng().random(),
                    };
                    let name = self.core.seats().bot_name(&bot);
                    self.input(Input::Joined {
                        name,
                        token_hash: rand::rng().random(),
                        bot: Some(SeatBot { kind: bot, seed }),
                        account: None,
                    })
                });
                self.reply(reply, result);
            }
            Command::Start { token, reply } => {
                let result = self.core.seats().host_only(&token).and_then(|_| {
                    // A game only grows: none starts while the server is at its budget.
                    if self.core.budget_full() {
                        return Err(TableError::ServerBusy);
                    }
                    let number = self.core.games_started() + 1;
                    let seed = match self.core.seed() {
                        Some(s) => game_seed(s, number),
                        None => rand::rng().random(),
                    };
                    let game_id = game_id(self.core.id(), number);
                    self.input(Input::Started { seed, game_id })
                });
                self.reply(reply, result);
            }
            Command::Info { reply } => {
                let info = self.core.info();
                self.reply(reply, info);
            }
            Command::Subscribe { token, since, tx, from, reply } => {
                let now = self.now();
                let result = self.core.subscribe(token.as_deref(), since, Box::new(tx), now);
                if let (Ok(()), Some(token), Some(from)) = (&result, &token, from)
                    && let Ok(seat) = self.core.seats().seat_of(token)
                {
                    self.seats_from.insert(seat, from);
                }
                self.reply(reply, result);
            }
            Command::Act { token, action, answers, reply } => {
                let result = self.act(&token, action, answers);
                self.reply(reply, result);
            }
            Command::NextRound { token, reply } => self.next_round(&token, reply),
            Command::Say { token, name, from, text, reaction, reply } => {
                self.say(token.as_deref(), name, from, (&text, reaction), reply);
            }
            Command::Pause { token, reply } => self.pause(&token, reply),
            Command::Resume { token, reply } => self.resume(&token, reply),
            Command::SeatLink { token, reply } => self.seat_link(&token, reply),
            Command::Rejoin { secret, reply } => self.rejoin(&secret, reply),
            Command::RevokeLink { token, seat, reply } => self.revoke_link(&token, seat, reply),
            Command::Mute { token, seat, muted, reply } => self.mute(&token, seat, muted, reply),
            Command::PromptAgain { token, reply } => {
                let now = self.now();
                let prompt =
                    self.core.seats().seat_of(&token).ok().and_then(|seat| self.core.prompt_of(seat, now));
                let _ = reply.send(prompt);
            }
            Command::HoldsSeat { token, reply } => {
                let _ = reply.send(self.core.seats().seat_of(&token).is_ok());
            }
            Command::ChangeSettings { token, settings, reply } => {
                let result = self.core.seats().host_only(&token).and_then(|_| {
                    if self.core.game().is_some() {
                        return Err(TableError::GameStarted("settings change only before it starts"));
                    }
                    let mut rules = (**self.core.rules()).clone();
                    for (path, value) in &settings {
                        rules = dudo_rules::presets::with_setting(rules, path, value)
                            .map_err(|e| TableError::BadSetting(e.to_string()))?;
                    }
                    self.input(Input::RulesChanged { rules: Arc::new(rules) })
                });
                self.reply(reply, result);
            }
            Command::Remove { token, seat, reply } => {
                let result =
                    self.core.seats().host_only(&token).and_then(|_| self.take_out(seat, LeaveWhy::Removed));
                self.reply(reply, result);
            }
            Command::Reset { token, reply } => {
                let result = self.core.seats().host_only(&token).and_then(|_| {
                    let most = self.core.length().max_journal_entries;
                    if most > 0 && u64::try_from(self.entries).is_ok_and(|n| n >= most) {
                        return Err(TableError::TableSpent { entries: self.entries });
                    }
                    let info = self.input(Input::Reset);
                    self.rate.reset();
                    info
                });
                self.reply(reply, result);
            }
            Command::Leave { token, reply } => {
                let result =
                    self.core.seats().seat_of(&token).and_then(|seat| self.take_out(seat, LeaveWhy::Left));
                self.reply(reply, result);
            }
            Command::Close { token, reply } => {
                let result = self.core.seats().host_only(&token).map(|_| {
                    self.closed_at = Some(unix_millis());
                    // Streams end now, with a reason: nothing more will come.
                    self.core.end_streams(StreamEnd::Closed);
                    self.core.info()
                });
                self.reply(reply, result);
            }
            Command::Release { reply } => {
                self.core.end_streams(StreamEnd::Moved);
                self.released = true;
                self.reply(reply, ());
            }
            Command::HandOver { reply } => {
                let idle = self.core.game().is_none();
                if idle {
                    self.core.end_streams(StreamEnd::Moved);
                    self.released = true;
                }
                self.reply(reply, idle);
            }
            Command::Shutdown { reply } => {
                self.core.end_streams(StreamEnd::ShuttingDown);
                self.reply(reply, ());
            }
            Command::PromptWritten { token, answers, at } => {
                let now = self.now();
                let at = at.saturating_duration_since(self.epoch).min(now.mono);
                self.core.prompt_written(&token, answers, at, now);
            }
            Command::Conduct { seat, reply } => {
                let refused = self.refusals.range((seat, "")..).take_while(|((s, _), _)| *s == seat);
                let conduct = SeatConduct {
                    refused: refused.map(|((_, code), n)| (*code, *n)).collect(),
                    streams: self.core.seat_streams(seat),
                    windows: self.core.windows_asked(seat),
                    offers: self.core.offers_of(seat),
                };
                let _ = reply.send(conduct);
            }
            Command::DropSeat { seat, reply } => {
                self.core.drop_seat_streams(seat);
                let _ = reply.send(());
            }
            Command::WarnSoon { seat, reply } => {
                self.core.warn_soon(seat);
                let _ = reply.send(());
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests;
