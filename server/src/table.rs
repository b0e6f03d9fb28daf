//! One table: a task that owns its game and its event log.
//!
//! Sessions send the task [`Command`]s over a bounded channel and get replies on oneshot
//! channels; each subscriber (a seat's stream or a spectator's) has its own bounded channel.
//! A subscriber that cannot keep up is dropped (it resumes from its last sequence number), so
//! no client can slow the table. The log holds every event with its audience; what a stream
//! carries is the log filtered by what its viewer may see.
//!
//! With a store, every input the table accepts (a seat joining, a move, a reset…) becomes a
//! journal entry, and nothing it caused (events, prompts, replies) leaves the task until the
//! entry is durable: each turn of the task's loop ends by writing the journal and only then
//! delivering what waits in the subscribers' outboxes and the reply queue. [`Table::recover`]
//! rebuilds a table by re-applying its journal; everything random a table draws (seat tokens'
//! hashes, bots' seeds, the game's seed, the commitments' salt secret) is in the journal or
//! derived from it, so the rebuilt table is the same table, sequence numbers and all.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dudo_proto::v1 as pb;
use dudo_proto::v1::journal_entry::Entry as Journal;
use dudo_rules::bots;
use dudo_rules::{Action, Audience, Event, EventKind, Game, RuleSet, Seat, Viewer, seed_from_u64};
use dudo_store::{Batch, FinishedGame, GamePlayer, GameSummary, NewTable, Store};
use prost::Message;
use rand::Rng;
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tonic::Status;

use crate::convert;

/// What a subscriber's channel carries.
pub type Update = Result<pb::PlayUpdate, Status>;

/// How many updates a subscriber may have waiting before it is dropped.
const SUBSCRIBER_BUFFER: usize = 1024;

/// What a session asks of a table.
pub enum Command {
    Join {
        name: String,
        reply: oneshot::Sender<Result<(usize, String), Status>>,
    },
    AddBot {
        token: String,
        bot: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Start {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Info {
        reply: oneshot::Sender<pb::TableInfo>,
    },
    Subscribe {
        token: Option<String>,
        since: Option<u64>,
        tx: mpsc::Sender<Update>,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Act {
        token: String,
        action: Action,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    ChangeSettings {
        token: String,
        settings: Vec<(String, String)>,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Remove {
        token: String,
        seat: Seat,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Reset {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    Leave {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    /// The host closes the table for good: streams end, the table leaves the server.
    Close {
        token: String,
        reply: oneshot::Sender<Result<(), Status>>,
    },
    /// The server is stopping: tell every stream and close it.
    Shutdown {
        reply: oneshot::Sender<()>,
    },
}

struct SeatSlot {
    name: String,
    /// SHA-256 of the seat's token: what the journal keeps, so the token itself is never stored.
    token_hash: [u8; 32],
    bot: Option<SeatBot>,
    /// Left or removed during a game: out for good, gone at the next reset.
    left: bool,
}

/// A built-in bot in a seat: its kind, and the seed each of its decisions is drawn from.
#[derive(Clone)]
struct SeatBot {
    kind: String,
    seed: u64,
}

struct Subscriber {
    viewer: Viewer,
    tx: mpsc::Sender<Update>,
    /// What waits for the journal to be durable before it is sent.
    outbox: Vec<Update>,
    /// Send the outbox, then end this stream (its reason is the outbox's last item).
    ending: bool,
}

impl Subscriber {
    fn new(viewer: Viewer, tx: mpsc::Sender<Update>) -> Subscriber {
        Subscriber { viewer, tx, outbox: Vec::new(), ending: false }
    }

    /// Queues an update; false if the subscriber is already too far behind (it is dropped
    /// and resumes from its sequence number).
    fn queue(&mut self, update: Update) -> bool {
        if self.outbox.len() >= SUBSCRIBER_BUFFER {
            return false;
        }
        self.outbox.push(update);
        true
    }

    /// Queues a last message (an error saying why) and ends the stream once it is sent.
    fn end(&mut self, why: Status) {
        self.outbox.push(Err(why));
        self.ending = true;
    }
}

/// A reply waiting, like the events, for the journal to be durable.
type Reply = Box<dyn FnOnce() + Send>;

/// The state the table task owns.
pub struct Table {
    id: String,
    code: String,
    rules: Arc<RuleSet>,
    /// Seats the table was created with.
    capacity: usize,
    seed: Option<u64>,
    seats: Vec<SeatSlot>,
    host: usize,
    game: Option<Game>,
    /// Every event, in order; an event's sequence number is its index.
    log: Vec<Event>,
    /// Where the current game's events begin: a reset renumbers seats, so a replay must never
    /// reach an earlier game (a seat's old number may have held someone else's dice).
    log_start: usize,
    subscribers: Vec<Subscriber>,
    /// The table as last announced to the streams, so only changes are sent.
    announced: Option<pb::TableInfo>,
    /// The turn clock: time per move, if the table has one.
    clock: Option<Clock>,
    /// How long bots wait before moving (zero: they move at once, in one go).
    bot_pause: Duration,
    /// The bot move waiting out `bot_pause`: when, who, what, and the log length it was
    /// chosen at (a move chosen before anything else happened is stale and chosen again).
    bot_due: Option<BotMove>,
    /// Whose turn the clock is timing, and since when.
    timing: Option<(Seat, Instant)>,
    /// The round the last commitments were for.
    round: u32,
    /// The salts and dice behind this round's commitments, to publish with the reveal.
    salts: Vec<(Seat, String, Vec<u8>)>,
    /// Calls each seat may make a second, and each seat's bucket of calls left.
    rate: u32,
    buckets: Vec<(f64, Instant)>,
    /// Where the journal is kept; none: the table lives in memory only.
    store: Option<Store>,
    /// Entries made since the last write, with their times (Unix ms).
    journal: Vec<(i64, pb::JournalEntry)>,
    /// The next entry's number.
    entries: i64,
    /// The table's row, until its first batch is written.
    unwritten: Option<NewTable>,
    /// Finished games to write with the journal.
    finished: Vec<FinishedGame>,
    /// The table will not be resumed: written with the last batch.
    closed_at: Option<i64>,
    /// Replies to send once the journal is durable.
    replies: Vec<Reply>,
    /// Rebuilding from the journal: the entry's time. Nothing is written or sent, and no bot
    /// or clock is asked (their moves are entries of their own).
    replaying: Option<i64>,
    /// What the dice commitments' salts are drawn from (journalled, so a rebuilt table
    /// reveals the salts its players were committed to).
    salt_secret: [u8; 32],
    /// The ratings this table's games count for ("" for none).
    rating_pool: String,
    /// When each event of the log happened (Unix ms), for replays at the original pace.
    times: Vec<i64>,
    /// The current game's seed and moves, for its record (a replay checks itself with them).
    game_seed: dudo_rules::Seed,
    game_moves: Vec<pb::GameMove>,
    /// The current game's id and start, and whether its record has been made.
    game_id: String,
    game_started_at: i64,
    game_recorded: bool,
    /// Games started at this table, for game ids.
    games: u32,
}

/// How a table is paced: its turn clock and how long its bots think.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub clock: Option<Clock>,
    pub bot_pause: Duration,
}

/// Why a table's task ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Closed by its host or for being idle: gone for good.
    Closed,
    /// Its journal could not be written: it is back, as saved, when the server restarts.
    Unsaved,
    /// The server let go of it (stopping); the journal keeps it.
    Released,
}

/// What a table is made with, besides its rules.
pub struct Setup {
    pub id: String,
    pub code: String,
    pub capacity: usize,
    pub seed: Option<u64>,
    pub pacing: Pacing,
    pub rate: u32,
    pub rating_pool: String,
    pub store: Option<Store>,
}

/// Why a journal could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    #[error("the journal does not start with the table's creation")]
    NoCreation,
    #[error("entry {n}: {why}")]
    Entry { n: i64, why: String },
}

/// A bot's move, chosen and waiting for its time.
struct BotMove {
    due: Instant,
    seat: Seat,
    action: Action,
    at_log_len: usize,
}

/// A table's turn clock.
#[derive(Clone, Debug)]
pub struct Clock {
    pub per_move: Duration,
    /// What each seat has left of its time bank.
    pub banks: Vec<Duration>,
    pub bank: Duration,
}

impl Clock {
    pub fn new(per_move: Duration, bank: Duration) -> Clock {
        Clock { per_move, banks: Vec::new(), bank }
    }

    fn bank_of(&self, seat: Seat) -> Duration {
        self.banks.get(seat).copied().unwrap_or(self.bank)
    }
}

/// Names for built-in bots, so a table reads like a table of people.
const BOT_NAMES: &[&str] = &[
    "Alba", "Bruno", "Carmen", "Diego", "Elena", "Felipe", "Gloria", "Hugo", "Ines", "Jorge", "Lucia",
    "Mateo", "Nuria", "Oscar", "Paz", "Quique", "Rosa", "Sergio", "Tere", "Ulises", "Vera", "Xavi", "Yago",
    "Zoe",
];

/// The first free name for a bot, marked with its kind: "Carmen (odds bot)".
fn bot_name(kind: &str, seats: &[SeatSlot]) -> String {
    let taken = |n: &str| seats.iter().any(|s| s.name == n);
    let named = BOT_NAMES.iter().map(|n| format!("{n} ({kind} bot)")).find(|n| !taken(n));
    named.unwrap_or_else(|| format!("{kind} bot {}", seats.len()))
}

/// A random secret, 128 bits, as hex.
pub fn secret() -> String {
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether rules come back from the journal as they went in: a table whose rules would not
/// could not be rebuilt the same, so it is refused rather than started.
pub fn journals_faithfully(rules: &RuleSet) -> bool {
    convert::rules_from_wire(&convert::rules_to_wire(rules)).is_ok_and(|back| back == *rules)
}

fn token_hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Now, in Unix milliseconds.
pub fn unix_millis() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Table {
    /// A new table; with a store, its creation is the journal's first entry.
    pub fn new(rules: RuleSet, setup: Setup) -> Table {
        let mut table = Table::blank(rules, setup, rand::rng().random());
        if table.store.is_some() {
            let now = unix_millis();
            table.unwritten = Some(NewTable { code: table.code.clone(), created_at: now });
            let created = table.creation();
            table.record(Journal::Created(created));
        }
        table
    }

    fn creation(&self) -> pb::TableCreated {
        pb::TableCreated {
            id: self.id.clone(),
            code: self.code.clone(),
            rules: Some(convert::rules_to_wire(&self.rules)),
            capacity: u32::try_from(self.capacity).unwrap_or(u32::MAX),
            seed: self.seed,
            move_millis: self.clock.as_ref().map_or(0, |c| millis(c.per_move)),
            bank_millis: self.clock.as_ref().map_or(0, |c| millis(c.bank)),
            bot_think_millis: millis(self.bot_pause),
            actions_per_second: self.rate,
            salt_secret: self.salt_secret.to_vec(),
            rating_pool: self.rating_pool.clone(),
        }
    }

    /// Rebuilds a table from its journal, as it was after the last entry; its clock restarts
    /// now for whoever must move, with each seat's bank as the journal last recorded it.
    pub fn recover(open: dudo_store::OpenTable, store: Store) -> Result<Table, RecoverError> {
        let mut entries = open.entries.into_iter();
        let first = entries.next().ok_or(RecoverError::NoCreation)?;
        let bad = |n: i64, why: String| RecoverError::Entry { n, why };
        let decoded =
            pb::JournalEntry::decode(first.bytes.as_slice()).map_err(|e| bad(first.n, e.to_string()))?;
        let Some(Journal::Created(c)) = decoded.entry else { return Err(RecoverError::NoCreation) };
        let rules = c
            .rules
            .as_ref()
            .ok_or_else(|| bad(first.n, "no rules".into()))
            .and_then(|r| convert::rules_from_wire(r).map_err(|e| bad(first.n, e.to_string())))?;
        let clock = (c.move_millis > 0)
            .then(|| Clock::new(Duration::from_millis(c.move_millis), Duration::from_millis(c.bank_millis)));
        let setup = Setup {
            id: open.id,
            code: open.code,
            capacity: c.capacity as usize,
            seed: c.seed,
            pacing: Pacing { clock, bot_pause: Duration::from_millis(c.bot_think_millis) },
            rate: c.actions_per_second,
            rating_pool: c.rating_pool,
            store: Some(store),
        };
        let secret: [u8; 32] = c
            .salt_secret
            .as_slice()
            .try_into()
            .map_err(|_| bad(first.n, "salt secret is not 32 bytes".into()))?;
        let mut table = Table::blank(rules, setup, secret);
        table.entries = first.n + 1;
        for entry in entries {
            table.replaying = Some(entry.at);
            let replayed = pb::JournalEntry::decode(entry.bytes.as_slice())
                .map_err(|e| e.to_string())
                .and_then(|decoded| table.replay(&decoded).map(|()| decoded));
            let decoded = match replayed {
                Ok(decoded) => decoded,
                Err(why) => {
                    // The seats counted while rebuilding are given back.
                    metrics::gauge!("dudo_seats").decrement(table.seats.len() as f64);
                    return Err(bad(entry.n, why));
                }
            };
            if let Some(clock) = table.clock.as_mut()
                && !decoded.banks_millis.is_empty()
            {
                clock.banks = decoded.banks_millis.iter().map(|&ms| Duration::from_millis(ms)).collect();
            }
            table.entries = entry.n + 1;
        }
        table.replaying = None;
        // A finished game's record was written with the move that ended it.
        table.game_recorded = table.game.as_ref().is_some_and(Game::is_over);
        // Nobody is subscribed yet: this schedules the next bot move and starts the clock.
        table.after_move();
        Ok(table)
    }

    /// Re-applies one journal entry.
    fn replay(&mut self, entry: &pb::JournalEntry) -> Result<(), String> {
        match &entry.entry {
            Some(Journal::Created(_)) | None => Err("a second creation, or an empty entry".into()),
            Some(Journal::Joined(j)) => {
                let hash: [u8; 32] = j.token_hash.as_slice().try_into().map_err(|_| "token hash size")?;
                let bot = (!j.bot.is_empty()).then(|| SeatBot { kind: j.bot.clone(), seed: j.bot_seed });
                self.seat(j.name.clone(), hash, bot);
                Ok(())
            }
            Some(Journal::RulesChanged(r)) => {
                let wire = r.rules.as_ref().ok_or("no rules")?;
                self.rules = Arc::new(convert::rules_from_wire(wire).map_err(|e| e.to_string())?);
                Ok(())
            }
            Some(Journal::Started(g)) => {
                let seed: dudo_rules::Seed = g.seed.as_slice().try_into().map_err(|_| "seed size")?;
                self.start_with(seed, g.game_id.clone()).map_err(|e| e.message().to_string())
            }
            Some(Journal::Moved(m)) => {
                let seat = m.seat as usize;
                let wire = m.action.as_ref().ok_or("no action")?;
                let action = convert::action_from_wire(wire).map_err(|e| e.to_string())?;
                if m.timed_out {
                    // The move that was played, not today's default: the journal is the truth.
                    return self
                        .time_out_seat(seat, Some(action))
                        .then_some(())
                        .ok_or_else(|| "refused".into());
                }
                self.play_move(seat, &action).map_err(|e| e.to_string())
            }
            Some(Journal::Removed(r)) => self.remove(r.seat as usize).map_err(|e| e.message().to_string()),
            Some(Journal::Reset(_)) => {
                self.reset();
                Ok(())
            }
        }
    }

    fn blank(rules: RuleSet, setup: Setup, salt_secret: [u8; 32]) -> Table {
        let Setup { id, code, capacity, seed, pacing, rate, rating_pool, store } = setup;
        Table {
            store,
            journal: Vec::new(),
            entries: 0,
            unwritten: None,
            finished: Vec::new(),
            closed_at: None,
            replies: Vec::new(),
            replaying: None,
            salt_secret,
            rating_pool,
            times: Vec::new(),
            game_seed: [0; 32],
            game_moves: Vec::new(),
            game_id: String::new(),
            game_started_at: 0,
            game_recorded: false,
            games: 0,
            rate,
            buckets: Vec::new(),
            clock: pacing.clock,
            bot_pause: pacing.bot_pause,
            bot_due: None,
            timing: None,
            round: 0,
            salts: Vec::new(),
            id,
            code,
            rules: Arc::new(rules),
            capacity,
            seed,
            seats: Vec::new(),
            host: 0,
            game: None,
            log: Vec::new(),
            log_start: 0,
            subscribers: Vec::new(),
            announced: None,
        }
    }

    /// Runs the table until every handle to it is gone, or until it has been idle for `idle`:
    /// no call reached it and no stream was open on it all that time. An abandoned table
    /// would otherwise hold its log and its place under the table limits for ever.
    /// Returns why it ended.
    pub async fn run(mut self, mut commands: mpsc::Receiver<Command>, idle: Duration) -> Ended {
        metrics::gauge!("dudo_tables").increment(1.0);
        tracing::info!(code = %self.code, "table opened");
        let mut last_call = Instant::now();
        let mut ended = Ended::Closed;
        // Each turn: write what the last turn journalled, deliver what it caused, then wait.
        loop {
            if !self.flush().await {
                ended = Ended::Unsaved;
                break;
            }
            if self.closed_at.is_some() {
                break;
            }
            let deadline = self.deadline();
            let bot_due = self.bot_due.as_ref().map(|b| b.due);
            tokio::select! {
                command = commands.recv() => match command {
                    Some(c) => {
                        last_call = Instant::now();
                        self.handle(c);
                    }
                    // The server let go of the table (it is stopping): the journal keeps it.
                    None => {
                        ended = Ended::Released;
                        break;
                    }
                },
                () = sleep_until(deadline), if deadline.is_some() => self.time_out(),
                () = sleep_until(bot_due), if bot_due.is_some() => self.bot_moves(),
                () = tokio::time::sleep_until(last_call + idle) => {
                    self.subscribers.retain(|s| !s.tx.is_closed());
                    if self.subscribers.is_empty() {
                        tracing::info!("table closed after {}s idle", idle.as_secs());
                        self.closed_at = Some(unix_millis());
                    }
                    // Someone is watching: the table is in use.
                    last_call = Instant::now();
                }
            }
        }
        metrics::gauge!("dudo_tables").decrement(1.0);
        metrics::gauge!("dudo_seats").decrement(self.seats.len() as f64);
        ended
    }

    /// An action played in the game: journalled, and kept for the game's record.
    fn moved(&mut self, seat: Seat, action: &Action, timed_out: bool) {
        if self.store.is_none() {
            return;
        }
        let (seat, action) = (u32::try_from(seat).unwrap_or(u32::MAX), Some(convert::action_to_wire(action)));
        self.game_moves.push(pb::GameMove { seat, action: action.clone(), timed_out });
        self.record(Journal::Moved(pb::MoveMade { seat, action, timed_out }));
    }

    /// Journals `entry` (with a store, and unless the table is being rebuilt from it).
    fn record(&mut self, entry: Journal) {
        if self.replaying.is_some() || self.store.is_none() {
            return;
        }
        self.journal.push((unix_millis(), pb::JournalEntry { entry: Some(entry), banks_millis: Vec::new() }));
    }

    /// The time of what is happening: now, or the journal entry's time when rebuilding.
    fn now(&self) -> i64 {
        self.replaying.unwrap_or_else(unix_millis)
    }

    /// Makes the journal durable, then sends what waited for it. False if it could not be
    /// written: the table then stops, and nothing that was not saved has been sent.
    async fn flush(&mut self) -> bool {
        // A game that ended with this turn's input is recorded with it, whole (checked once
        // per input, not per batch of events: a time-out publishes its notice, then the move).
        if !self.game_recorded && self.game.as_ref().is_some_and(Game::is_over) {
            self.game_recorded = true;
            if self.store.is_some() {
                let record = self.record_game();
                self.finished.push(record);
            }
        }
        if let Some(store) = &self.store
            && (!self.journal.is_empty() || self.unwritten.is_some() || self.closed_at.is_some())
        {
            // The clock banks after the last entry, so a rebuilt table's clocks are fair.
            if let (Some(clock), Some((_, last))) = (self.clock.as_ref(), self.journal.last_mut()) {
                let seats = self.seats.len().max(clock.banks.len());
                last.banks_millis = (0..seats).map(|s| millis(clock.bank_of(s))).collect();
            }
            let first = self.entries;
            let entries: Vec<dudo_store::Entry> = self
                .journal
                .drain(..)
                .enumerate()
                .map(|(i, (at, e))| dudo_store::Entry { n: first + i as i64, at, bytes: e.encode_to_vec() })
                .collect();
            self.entries += entries.len() as i64;
            let batch = Batch {
                table: self.id.clone(),
                new_table: self.unwritten.take(),
                entries,
                finished: std::mem::take(&mut self.finished),
                closed_at: self.closed_at,
            };
            let started = Instant::now();
            let batch = Arc::new(batch);
            let mut outcome = store.write_shared(Arc::clone(&batch)).await;
            // A busy or failing-over database gets a few tries (nothing has been sent, and
            // every write is idempotent) before the table gives up.
            for pause in [100, 500, 2000] {
                match &outcome {
                    Err(e @ dudo_store::StoreError::Query(_)) => {
                        tracing::warn!(error = %e, "could not save the table; trying again in {pause} ms");
                    }
                    _ => break,
                }
                tokio::time::sleep(Duration::from_millis(pause)).await;
                outcome = store.write_shared(Arc::clone(&batch)).await;
            }
            if let Err(e) = outcome {
                tracing::error!(error = %e, "could not save the table; it stops");
                // Replies are dropped unsent (their callers hear the table closed) and every
                // stream ends: nobody learns of anything the journal does not hold.
                self.replies.clear();
                for s in self.subscribers.drain(..) {
                    let _ = s.tx.try_send(Err(Status::unavailable(
                        "the server could not save the table; it is back when the server restarts",
                    )));
                }
                return false;
            }
            metrics::histogram!("dudo_journal_write_seconds").record(started.elapsed().as_secs_f64());
        }
        self.journal.clear();
        self.finished.clear();
        self.deliver();
        true
    }

    /// Sends what waited for the journal: each subscriber's outbox, then the replies.
    fn deliver(&mut self) {
        self.subscribers.retain_mut(|s| {
            for update in s.outbox.drain(..) {
                // A full channel drops the subscriber; it resumes from its sequence number.
                if s.tx.try_send(update).is_err() {
                    return false;
                }
            }
            !s.ending
        });
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

    /// When the clock runs out for the seat it is timing.
    fn deadline(&self) -> Option<Instant> {
        let (clock, (seat, since)) = (self.clock.as_ref()?, self.timing?);
        Some(since + clock.per_move + clock.bank_of(seat))
    }

    /// Starts timing the person whose turn it now is (bots need no clock).
    fn restart_clock(&mut self) {
        let turn = self.game.as_ref().filter(|g| !g.is_over()).and_then(Game::turn);
        let person = turn.filter(|&t| self.seats.get(t).is_some_and(|s| s.bot.is_none()));
        let now = Instant::now();
        // Spend the bank of the seat that just moved by what it used past its move time.
        if let (Some(clock), Some((seat, since))) = (self.clock.as_mut(), self.timing) {
            let over = now.saturating_duration_since(since).saturating_sub(clock.per_move);
            let bank = clock.bank_of(seat).saturating_sub(over);
            if clock.banks.len() <= seat {
                let fresh = clock.bank;
                clock.banks.resize(seat + 1, fresh);
            }
            clock.banks[seat] = bank;
        }
        self.timing = person.map(|p| (p, now));
    }

    /// The clock ran out: the seat's default action is played for it, and the log says so.
    fn time_out(&mut self) {
        let Some((seat, _)) = self.timing.take() else { return };
        if self.time_out_seat(seat, None) {
            self.after_move();
        }
    }

    /// Plays `seat`'s default action (or, rebuilding, the one the journal says was played)
    /// because its clock ran out; false if there is none or it is refused.
    fn time_out_seat(&mut self, seat: Seat, played: Option<Action>) -> bool {
        let Some(game) = self.game.as_mut() else { return false };
        let Some(action) = played.or_else(|| game.default_action(seat)) else { return false };
        let Ok(events) = game.apply(seat, &action) else { return false };
        if let Some(clock) = self.clock.as_mut() {
            if clock.banks.len() <= seat {
                let fresh = clock.bank;
                clock.banks.resize(seat + 1, fresh);
            }
            clock.banks[seat] = Duration::ZERO;
        }
        self.moved(seat, &action, true);
        let announce = Event {
            audience: dudo_rules::Audience::Everyone,
            kind: dudo_rules::EventKind::TurnTimedOut { seat, action },
        };
        self.publish(vec![announce]);
        self.publish(events);
        true
    }

    fn handle(&mut self, command: Command) {
        let may_change_table = matches!(
            command,
            Command::Join { .. }
                | Command::AddBot { .. }
                | Command::Start { .. }
                | Command::ChangeSettings { .. }
                | Command::Remove { .. }
                | Command::Reset { .. }
                | Command::Leave { .. }
        );
        self.obey(command);
        if may_change_table {
            self.announce_table();
        }
    }

    /// Tells every stream who sits at the table now, if that changed.
    fn announce_table(&mut self) {
        let info = self.info();
        if self.announced.as_ref() == Some(&info) {
            return;
        }
        let update = pb::PlayUpdate { update: Some(pb::play_update::Update::Table(info.clone())) };
        self.announced = Some(info);
        self.subscribers.retain_mut(|s| s.queue(Ok(update.clone())));
    }

    fn obey(&mut self, command: Command) {
        match command {
            Command::Join { name, reply } => {
                let result = self.join(name, None);
                self.reply(reply, result);
            }
            Command::AddBot { token, bot, reply } => {
                let result = self.host_only(&token).and_then(|_| {
                    if !bots::NAMES.contains(&bot.as_str()) {
                        return Err(Status::invalid_argument(format!(
                            "no bot {bot:?}; the bots are {}",
                            bots::NAMES.join(", ")
                        )));
                    }
                    // A seeded table's bots are seeded from it too, so the whole game replays.
                    let seed = match self.seed {
                        Some(s) => s ^ (self.seats.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        None => rand::rng().random(),
                    };
                    let name = bot_name(&bot, &self.seats);
                    self.join(name, Some(SeatBot { kind: bot, seed })).map(|_| ())
                });
                self.reply(reply, result);
            }
            Command::Start { token, reply } => {
                let result = self.host_only(&token).and_then(|_| self.start());
                self.reply(reply, result);
            }
            Command::Info { reply } => {
                let info = self.info();
                self.reply(reply, info);
            }
            Command::Subscribe { token, since, tx, reply } => {
                let result = self.subscribe(token, since, tx);
                self.reply(reply, result);
            }
            Command::Act { token, action, reply } => {
                let result = self.act(&token, action);
                self.reply(reply, result);
            }
            Command::ChangeSettings { token, settings, reply } => {
                let result = self.host_only(&token).and_then(|_| self.change_settings(&settings));
                self.reply(reply, result);
            }
            Command::Remove { token, seat, reply } => {
                let result = self.host_only(&token).and_then(|_| self.remove(seat));
                self.reply(reply, result);
            }
            Command::Reset { token, reply } => {
                let result = self.host_only(&token).map(|_| self.reset());
                self.reply(reply, result);
            }
            Command::Leave { token, reply } => {
                let result = self.seat_of(&token).and_then(|seat| self.remove(seat));
                self.reply(reply, result);
            }
            Command::Close { token, reply } => {
                let result = self.host_only(&token).map(|_| {
                    self.closed_at = Some(unix_millis());
                    // Streams end now, with a reason: nothing more will come.
                    for s in &mut self.subscribers {
                        s.end(Status::not_found("the host closed the table"));
                    }
                });
                self.reply(reply, result);
            }
            Command::Shutdown { reply } => {
                for s in &mut self.subscribers {
                    s.end(Status::unavailable("the server is shutting down"));
                }
                self.reply(reply, ());
            }
        }
    }

    /// Ends the game: seats that left are gone, the rest (renumbered) play the next game with
    /// full time banks.
    fn reset(&mut self) {
        self.record(Journal::Reset(pb::TableReset {}));
        self.game = None;
        self.timing = None;
        self.bot_due = None;
        self.log_start = self.log.len();
        self.salts.clear();
        let host_hash = self.seats.get(self.host).map(|s| s.token_hash);
        let before = self.seats.len();
        self.seats.retain(|s| !s.left);
        metrics::gauge!("dudo_seats").decrement((before - self.seats.len()) as f64);
        self.host = self.seats.iter().position(|s| Some(s.token_hash) == host_hash).unwrap_or(0);
        if let Some(clock) = self.clock.as_mut() {
            clock.banks.clear();
        }
        self.drop_seat_streams("the table was reset: reconnect with your token");
    }

    fn seat_of(&self, token: &str) -> Result<Seat, Status> {
        let hash = token_hash(token);
        self.seats
            .iter()
            .position(|s| s.bot.is_none() && s.token_hash == hash)
            .ok_or_else(|| Status::unauthenticated("no seat at this table has that token"))
    }

    fn host_only(&self, token: &str) -> Result<(), Status> {
        let seat = self.seat_of(token)?;
        if seat != self.host {
            return Err(Status::permission_denied("only the host may do that"));
        }
        Ok(())
    }

    fn join(&mut self, name: String, bot: Option<SeatBot>) -> Result<(usize, String), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("the game has started; nobody joins now"));
        }
        if self.seats.len() >= self.capacity {
            return Err(Status::resource_exhausted(format!("the table's {} seats are taken", self.capacity)));
        }
        let name = name.trim().chars().take(32).collect::<String>();
        let name = if name.is_empty() { format!("Player {}", self.seats.len() + 1) } else { name };
        let token = secret();
        self.seat(name, token_hash(&token), bot);
        Ok((self.seats.len() - 1, token))
    }

    /// Seats a player (journalled), whether joining now or rebuilt from the journal.
    fn seat(&mut self, name: String, token_hash: [u8; 32], bot: Option<SeatBot>) {
        self.record(Journal::Joined(pb::SeatJoined {
            name: name.clone(),
            token_hash: token_hash.to_vec(),
            bot: bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
            bot_seed: bot.as_ref().map_or(0, |b| b.seed),
        }));
        self.seats.push(SeatSlot { name, token_hash, bot, left: false });
        metrics::gauge!("dudo_seats").increment(1.0);
    }

    /// Ends every seat's stream with a reason (spectators keep watching).
    fn drop_seat_streams(&mut self, why: &str) {
        for s in &mut self.subscribers {
            if !matches!(s.viewer, Viewer::Spectator) {
                s.end(Status::aborted(why.to_string()));
            }
        }
    }

    fn change_settings(&mut self, settings: &[(String, String)]) -> Result<(), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("settings change only before the game starts"));
        }
        let mut rules = (*self.rules).clone();
        for (path, value) in settings {
            rules = dudo_rules::presets::with_setting(rules, path, value)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
        }
        if self.capacity < usize::from(rules.players.min) || self.capacity > usize::from(rules.players.max) {
            return Err(Status::invalid_argument(format!(
                "players: the table has {} seats; these rules seat {} to {}",
                self.capacity, rules.players.min, rules.players.max
            )));
        }
        if !journals_faithfully(&rules) {
            return Err(Status::internal(
                "rules: these settings cannot be saved faithfully (a server bug; please report it)",
            ));
        }
        self.record(Journal::RulesChanged(pb::RulesChanged { rules: Some(convert::rules_to_wire(&rules)) }));
        self.rules = Arc::new(rules);
        Ok(())
    }

    /// Takes a seat out: before the start it frees the seat; during a game the engine allows
    /// it only before the first call of a round, and the seat finishes below those still in.
    fn remove(&mut self, seat: Seat) -> Result<(), Status> {
        if seat >= self.seats.len() {
            return Err(Status::invalid_argument(format!("seat: there is no seat {seat}")));
        }
        let journal = Journal::Removed(pb::SeatRemoved { seat: u32::try_from(seat).unwrap_or(u32::MAX) });
        match self.game.as_mut() {
            None => {
                if seat == self.host {
                    return Err(Status::failed_precondition(
                        "the host cannot leave a table that has not started",
                    ));
                }
                self.record(journal);
                self.seats.remove(seat);
                metrics::gauge!("dudo_seats").decrement(1.0);
                if self.host > seat {
                    self.host -= 1;
                }
                // Seats after it move down: every seat's stream must reconnect with its token
                // (which finds its new number), so no stream carries another seat's dice.
                self.drop_seat_streams("the seats were renumbered: reconnect with your token");
                Ok(())
            }
            Some(game) => {
                let events = game.remove(seat).map_err(|e| Status::failed_precondition(e.to_string()))?;
                self.record(journal);
                if self.store.is_some() {
                    let seat = u32::try_from(seat).unwrap_or(u32::MAX);
                    self.game_moves.push(pb::GameMove { seat, action: None, timed_out: false });
                }
                // No rejoin: the token no longer answers, and a bot no longer plays.
                if let Some(slot) = self.seats.get_mut(seat) {
                    // A bot keeps its kind (the record and ratings say what played the seat);
                    // the engine no longer asks a seat that left.
                    slot.token_hash = rand::rng().random();
                    slot.left = true;
                }
                self.publish(events);
                self.after_move();
                Ok(())
            }
        }
    }

    fn start(&mut self) -> Result<(), Status> {
        let seed = match self.seed {
            Some(s) => seed_from_u64(s),
            None => rand::rng().random(),
        };
        // Short enough to copy, unique enough (64 random bits): the table id's first 16 hex
        // digits and a count.
        let id = format!("{}-{}", self.id.get(..16).unwrap_or(&self.id), self.games + 1);
        self.start_with(seed, id)
    }

    fn start_with(&mut self, seed: dudo_rules::Seed, game_id: String) -> Result<(), Status> {
        if self.game.is_some() {
            return Err(Status::failed_precondition("the game has already started"));
        }
        let (game, events) = Game::start(Arc::clone(&self.rules), self.seats.len(), seed)
            .map_err(|e| Status::failed_precondition(e.to_string()))?;
        self.record(Journal::Started(pb::GameBegun { seed: seed.to_vec(), game_id: game_id.clone() }));
        self.game = Some(game);
        self.game_seed = seed;
        self.game_moves.clear();
        self.games += 1;
        self.game_id = game_id;
        self.game_started_at = self.now();
        self.game_recorded = false;
        self.publish(events);
        self.after_move();
        Ok(())
    }

    /// A token bucket per seat: `rate` calls a second, bursts of twice that.
    fn take_call(&mut self, seat: Seat) -> Result<(), Status> {
        let rate = f64::from(self.rate.max(1));
        let now = Instant::now();
        if self.buckets.len() <= seat {
            self.buckets.resize(seat + 1, (rate * 2.0, now));
        }
        let (tokens, last) = &mut self.buckets[seat];
        *tokens = (*tokens + now.saturating_duration_since(*last).as_secs_f64() * rate).min(rate * 2.0);
        *last = now;
        if *tokens < 1.0 {
            return Err(Status::resource_exhausted(format!(
                "slow down: at most {} calls a second",
                self.rate
            )));
        }
        *tokens -= 1.0;
        Ok(())
    }

    fn act(&mut self, token: &str, action: Action) -> Result<(), Status> {
        let started = Instant::now();
        let seat = self.seat_of(token)?;
        let _span = tracing::debug_span!("act", seat).entered();
        self.take_call(seat)?;
        if self.game.is_none() {
            return Err(Status::failed_precondition("the game has not started"));
        }
        self.play_move(seat, &action).map_err(|e| {
            metrics::counter!("dudo_rejections_total", "reason" => e.reason()).increment(1);
            Status::failed_precondition(e.to_string())
        })?;
        self.after_move();
        metrics::counter!("dudo_actions_total").increment(1);
        // From the command reaching the table to its events in every subscriber's outbox.
        metrics::histogram!("dudo_action_seconds").record(started.elapsed().as_secs_f64());
        Ok(())
    }

    /// Applies a move, journals it and publishes its events; a refused move changes nothing.
    fn play_move(&mut self, seat: Seat, action: &Action) -> Result<(), dudo_rules::RuleError> {
        let Some(game) = self.game.as_mut() else { return Err(dudo_rules::RuleError::GameOver) };
        let events = game.apply(seat, action)?;
        self.moved(seat, action, false);
        self.publish(events);
        Ok(())
    }

    /// After any move: the built-in bots move (at once, or one at a time after their pause),
    /// then the clock times whoever must move and the people who may act are prompted. When
    /// rebuilding from the journal nothing happens: the bots' moves are entries of their own.
    fn after_move(&mut self) {
        if self.replaying.is_some() {
            return;
        }
        self.bot_due = None;
        if self.bot_pause.is_zero() {
            // Each bot move raises a bid or ends a round, so this ends; the bound is for bugs.
            for _ in 0..100_000 {
                let Some((seat, action)) = self.bot_choice() else { break };
                if !self.play_bot(seat, &action) {
                    break;
                }
            }
        } else if let Some((seat, action)) = self.bot_choice() {
            self.bot_due = Some(BotMove {
                due: Instant::now() + self.bot_pause,
                seat,
                action,
                at_log_len: self.log.len(),
            });
        }
        // A move was made: the clock times whoever must move now (a reconnect does not reset it).
        self.restart_clock();
        self.prompt();
    }

    /// A paused bot's time has come: it moves if nothing happened since it chose.
    fn bot_moves(&mut self) {
        let Some(due) = self.bot_due.take() else { return };
        if due.at_log_len == self.log.len() {
            self.play_bot(due.seat, &due.action);
        }
        self.after_move();
    }

    /// The first bot that wants to move now, and its move: the bot whose turn it is, or one
    /// calling out of turn. Each decision draws from the bot's seed and the log's length, not
    /// from a generator carried along, so a table rebuilt from its journal decides as the
    /// original would have.
    fn bot_choice(&mut self) -> Option<(Seat, Action)> {
        let game = self.game.as_ref()?;
        let moment = (self.log.len() as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        for seat in game.seats_to_ask().collect::<Vec<_>>() {
            let Some(bot) = self.seats.get(seat).and_then(|s| s.bot.as_ref()) else { continue };
            let Some(mut brain) = bots::by_name(&bot.kind, bot.seed ^ moment) else { continue };
            let (view, legal) = (game.view(seat), game.legal(seat));
            let offer = if Some(seat) == game.turn() {
                Some(brain.act(game.rules(), &view, &legal))
            } else {
                brain.interject(game.rules(), &view, &legal)
            };
            if let Some(action) = offer {
                return Some((seat, action));
            }
        }
        None
    }

    /// Plays a bot's move (its seat's default if the move is refused, never a stall); false
    /// if nothing happened.
    fn play_bot(&mut self, seat: Seat, action: &Action) -> bool {
        if self.play_move(seat, action).is_ok() {
            return true;
        }
        let fallback = self.game.as_ref().and_then(|g| g.default_action(seat));
        fallback.is_some_and(|f| self.play_move(seat, &f).is_ok())
    }

    /// Tells every person who may act now what they see and may do.
    fn prompt(&mut self) {
        let Some(game) = &self.game else { return };
        let people: Vec<Seat> = game.seats_to_ask().collect();
        for seat in people {
            let Some(update) = self.prompt_for(seat) else { continue };
            self.subscribers.retain_mut(|s| s.viewer != Viewer::Seat(seat) || s.queue(Ok(update.clone())));
        }
    }

    /// The prompt for `seat`, if it is a person's seat that may act now.
    fn prompt_for(&self, seat: Seat) -> Option<pb::PlayUpdate> {
        let game = self.game.as_ref()?;
        if !game.seats_to_ask().any(|s| s == seat)
            || self.seats.get(seat).is_none_or(|slot| slot.bot.is_some())
        {
            return None;
        }
        let deadline = self.deadline().filter(|_| Some(seat) == game.turn()).map(|d| {
            let left = d.saturating_duration_since(Instant::now());
            let at = SystemTime::now() + left;
            at.duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        });
        Some(pb::PlayUpdate {
            update: Some(pb::play_update::Update::Prompt(pb::Prompt {
                view: Some(convert::view_to_wire(&game.view(seat))),
                legal: Some(convert::legal_to_wire(&game.legal(seat))),
                deadline_unix_millis: deadline,
                last_seq: (self.log.len() as u64).checked_sub(1),
            })),
        })
    }

    /// Appends events to the log and sends each subscriber what it may see. Every roll the
    /// engine reports is committed to (verifiable dice): the commitments follow the batch,
    /// the salts follow the reveal.
    ///
    /// Individual-hand games commit to the cup each time a seat looks under it, and open only
    /// the last of those at the reveal: the cup that was lifted. Opening the earlier ones would
    /// tell everyone what was under the cup before a re-roll, which the table game never shows.
    fn publish(&mut self, events: Vec<Event>) {
        let mut commitments: Vec<(Seat, String)> = Vec::new();
        for event in events {
            match &event.kind {
                EventKind::RoundStarted { round, .. } | EventKind::HandStarted { hand: round, .. } => {
                    // A batch may end one round and open the next: each round's commitments
                    // carry their own round number.
                    self.commit(&mut commitments);
                    self.round = *round;
                    self.salts.clear();
                }
                EventKind::DiceRolled { seat, dice } if matches!(event.audience, Audience::Hidden { .. }) => {
                    let dice: Vec<u8> = dice.iter().flatten().copied().collect();
                    let salt = self.salt();
                    commitments.push((*seat, hex(&commitment(self.round, *seat, &dice, &salt))));
                    self.salts.push((*seat, hex(&salt), dice));
                }
                EventKind::HandSeen { seat, dice } => {
                    let salt = self.salt();
                    commitments.push((*seat, hex(&commitment(self.round, *seat, dice, &salt))));
                    self.salts = vec![(*seat, hex(&salt), dice.clone())];
                }
                _ => {}
            }
            let revealed =
                matches!(event.kind, EventKind::DiceRevealed { .. } | EventKind::HandRevealed { .. });
            self.append(event);
            if revealed && !self.salts.is_empty() {
                let salts = std::mem::take(&mut self.salts);
                self.append(Event {
                    audience: Audience::Everyone,
                    kind: EventKind::DiceSalts { round: self.round, salts },
                });
            }
        }
        self.commit(&mut commitments);
    }

    /// A salt for a commitment: secret to the players (drawn from the table's secret),
    /// different for every commitment (the log's length goes in), and the same again when
    /// the table is rebuilt from its journal.
    fn salt(&self) -> [u8; 16] {
        let mut h = Sha256::new();
        h.update(b"dudo-salt-v1");
        h.update(self.salt_secret);
        h.update((self.log.len() as u64).to_be_bytes());
        let digest = h.finalize();
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&digest[..16]);
        salt
    }

    /// The finished game's record: who played and how they finished, the rules, and every
    /// event with its time.
    fn record_game(&self) -> FinishedGame {
        let standings = self.game.as_ref().map(Game::standings).unwrap_or_default();
        let players = self
            .seats
            .iter()
            .enumerate()
            .map(|(seat, slot)| GamePlayer {
                seat: u32::try_from(seat).unwrap_or(u32::MAX),
                name: slot.name.clone(),
                bot: slot.bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
                place: standings.iter().position(|&s| s == seat).map_or(0, |p| p as u32 + 1),
            })
            .collect();
        let summary = GameSummary {
            id: self.game_id.clone(),
            table: self.id.clone(),
            preset: self.rules.name.clone(),
            started_at: self.game_started_at,
            finished_at: self.now(),
            rating_pool: self.rating_pool.clone(),
            players,
        };
        let replay = pb::Replay {
            summary: Some(crate::history::summary_to_wire(&summary)),
            rules: Some(convert::rules_to_wire(&self.rules)),
            events: (self.log_start..self.log.len())
                .map(|seq| convert::event_to_wire(seq as u64, &self.log[seq]))
                .collect(),
            event_unix_millis: self.times[self.log_start..]
                .iter()
                .map(|&t| u64::try_from(t).unwrap_or(0))
                .collect(),
            seed: self.game_seed.to_vec(),
            moves: self.game_moves.clone(),
        };
        FinishedGame { summary, record: replay.encode_to_vec() }
    }

    /// Publishes the commitments gathered so far, for the current round.
    fn commit(&mut self, commitments: &mut Vec<(Seat, String)>) {
        if commitments.is_empty() {
            return;
        }
        let commitments = std::mem::take(commitments);
        let mut table = Sha256::new();
        for (_, h) in &commitments {
            table.update(h.as_bytes());
        }
        let table = hex(&table.finalize());
        self.append(Event {
            audience: Audience::Everyone,
            kind: EventKind::DiceCommitted { round: self.round, commitments, table },
        });
    }

    fn append(&mut self, event: Event) {
        let over = self.game.as_ref().is_some_and(Game::is_over);
        let seq = self.log.len() as u64;
        if !self.subscribers.is_empty() {
            let wire = convert::event_to_wire(seq, &event);
            self.subscribers.retain_mut(|s| {
                if !event.audience.admits(s.viewer, over) {
                    return true;
                }
                s.queue(Ok(pb::PlayUpdate { update: Some(pb::play_update::Update::Event(wire.clone())) }))
            });
        }
        self.times.push(self.now());
        self.log.push(event);
    }

    fn subscribe(
        &mut self,
        token: Option<String>,
        since: Option<u64>,
        tx: mpsc::Sender<Update>,
    ) -> Result<(), Status> {
        let viewer = match &token {
            Some(t) => Viewer::Seat(self.seat_of(t)?),
            None => Viewer::Spectator,
        };
        let over = self.game.as_ref().is_some_and(Game::is_over);
        let mut sub = Subscriber::new(viewer, tx);
        match since {
            // Resuming: the table as it is now, then every event after `since` this viewer
            // may see, nothing twice.
            Some(since) => {
                let table = pb::PlayUpdate { update: Some(pb::play_update::Update::Table(self.info())) };
                sub.queue(Ok(table));
                for (seq, event) in
                    self.log.iter().enumerate().skip(
                        usize::try_from(since).unwrap_or(usize::MAX).saturating_add(1).max(self.log_start),
                    )
                {
                    if event.audience.admits(viewer, over) {
                        let update = pb::PlayUpdate {
                            update: Some(pb::play_update::Update::Event(convert::event_to_wire(
                                seq as u64, event,
                            ))),
                        };
                        if !sub.queue(Ok(update)) {
                            return Err(Status::resource_exhausted("too much to replay at once"));
                        }
                    }
                }
            }
            // A new connection: a snapshot of what this viewer may know.
            None => {
                let view = self.game.as_ref().map(|g| match viewer {
                    Viewer::Seat(s) => convert::view_to_wire(&g.view(s)),
                    _ => convert::view_to_wire(&g.spectator_view()),
                });
                let snapshot = pb::Snapshot {
                    last_seq: (self.log.len() as u64).checked_sub(1),
                    view,
                    table: Some(self.info()),
                };
                sub.queue(Ok(pb::PlayUpdate { update: Some(pb::play_update::Update::Snapshot(snapshot)) }));
            }
        }
        // A seat that may act is asked on its new stream; its other streams were asked already.
        if let Viewer::Seat(seat) = viewer
            && let Some(prompt) = self.prompt_for(seat)
        {
            sub.queue(Ok(prompt));
        }
        self.subscribers.push(sub);
        Ok(())
    }

    pub fn info(&self) -> pb::TableInfo {
        let state = match &self.game {
            None => pb::TableState::Waiting,
            Some(g) if g.is_over() => pb::TableState::Over,
            Some(_) => pb::TableState::Playing,
        };
        pb::TableInfo {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: format!("dudo://join/{}", self.code),
            rules: Some(convert::rules_to_wire(&self.rules)),
            seats: u32::try_from(self.capacity).unwrap_or(u32::MAX),
            players: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| pb::SeatInfo {
                    seat: u32::try_from(i).unwrap_or(u32::MAX),
                    name: s.name.clone(),
                    bot: s.bot.as_ref().map(|b| b.kind.clone()).unwrap_or_default(),
                })
                .collect(),
            host: u32::try_from(self.host).unwrap_or(0),
            state: state as i32,
        }
    }
}

/// SHA-256 of `"dudo-v1" ‖ round ‖ seat ‖ dice ‖ salt`, numbers as big-endian u32.
pub fn commitment(round: u32, seat: Seat, dice: &[u8], salt: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"dudo-v1");
    h.update(round.to_be_bytes());
    h.update(u32::try_from(seat).unwrap_or(u32::MAX).to_be_bytes());
    h.update(dice);
    h.update(salt);
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A channel for a new subscriber.
pub fn subscriber_channel() -> (mpsc::Sender<Update>, mpsc::Receiver<Update>) {
    mpsc::channel(SUBSCRIBER_BUFFER)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_preset_comes_back_from_the_journal_as_it_went_in() {
        for name in dudo_rules::presets::NAMES {
            let rules = dudo_rules::presets::by_name(name).unwrap_or_else(|| panic!("{name}"));
            assert!(super::journals_faithfully(&rules), "{name}");
            let changed = dudo_rules::presets::with_setting(rules, "dice.faces", "8");
            if let Ok(changed) = changed {
                assert!(super::journals_faithfully(&changed), "{name} with eight faces");
            }
        }
    }
}
