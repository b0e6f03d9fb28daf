//! The table's core: seats, the game, the log, the clock, the bots, the dice proofs and the
//! journal, with one way in. It knows no tokio, no gRPC status and no store: time comes in
//! with each call, refusals are [`TableError`]s, and what must be saved waits in the
//! journal for the task to write.
//!
//! [`TableCore::apply`] takes an [`Input`] (a seat joined, the rules changed, a game
//! started, a move with or without a time-out, a seat removed, a reset) and applies exactly
//! that: live play and recovery from the journal both go through it. [`TableCore::settle`]
//! is what a live table does next (the bots move, the clock times whoever must move, the
//! people who may act are prompted, every other stream is told whose turn it is); a rebuilt
//! table settles once, when it is back.

use std::sync::Arc;
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::journal_entry::Entry;
use dudo_proto::v1::play_update::Update as Up;
use dudo_proto::{StopWhy, TableEvent, convert};
use dudo_rules::{Action, Event, Game, RuleSet, Seat, Viewer};
use dudo_store::FinishedGame;

use super::bots::{self, BotMove};
use super::clock::{Clock, Now};
use super::error::TableError;
use super::journal::{Input, Journal};
use super::log::{self, EventLog, Sink, StreamEnd};
use super::proofs::DiceProofs;
use super::record::{self, GameRecord};
use super::seats::{SeatSlot, Seats};
use super::window::{CallWindow, Decision, Patience};
use crate::budget::Budget;

/// How a table is paced: its turn clock, how long its bots think, and how long seats have
/// to call out of turn.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub clock: Option<Clock>,
    pub bot_pause: Duration,
    /// The call window, in ms; 0: until every seat asked has answered, within the move
    /// clock (or [`WINDOW_WITHOUT_CLOCK`]).
    pub call_window_millis: u32,
}

/// The least time a seat is asked in a call window for: with less patience left, it is not
/// asked (an answer cannot come back in less).
const MIN_PATIENCE: Duration = Duration::from_millis(1);
/// The longest a window waits for every seat to answer on a table without a move clock.
pub const WINDOW_WITHOUT_CLOCK: Duration = Duration::from_secs(30);

/// The longest game the server lets a table play: a game that reaches any of these is
/// stopped, with a `game_stopped` event, and ranked as a game of rounds ends. Zero: no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameLength {
    pub max_moves: u64,
    pub max_millis: u64,
    /// The encoded bytes of the game's events (what its streams, resumes and record hold).
    pub max_bytes: u64,
}

/// What a table is made with, besides its rules.
pub struct Setup {
    pub id: String,
    pub code: String,
    pub capacity: usize,
    /// A seeded table deals the same dice (and seeds its bots the same) every time.
    pub seed: Option<u64>,
    pub pacing: Pacing,
    /// Calls a seat may make each second (kept with the table, for its journal).
    pub rate: u32,
    /// The ratings this table's games count for ("" for none).
    pub rating_pool: String,
    /// Whether the table keeps a journal (a running table keeps one when it has a store).
    pub journalled: bool,
    pub length: GameLength,
    /// What the server lets clients make it hold; the table's events and streams count
    /// against it.
    pub budget: Arc<Budget>,
    /// A host that holds no seat: the SHA-256 of its token.
    pub host_token: Option<[u8; 32]>,
}

/// What an input caused, beyond the events it logged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Caused {
    /// The seat a `Joined` input seated.
    pub seat: Option<Seat>,
}

pub struct TableCore {
    id: String,
    code: String,
    rules: Arc<RuleSet>,
    /// Where the server's pages are, for the table's link (empty: a path alone).
    link_base: Arc<str>,
    seed: Option<u64>,
    rate: u32,
    rating_pool: String,
    seats: Seats,
    game: Option<Game>,
    log: EventLog,
    clock: Option<Clock>,
    /// How long bots wait before moving (zero: they move at once, in one go).
    bot_pause: Duration,
    /// The bot move waiting out `bot_pause`.
    bot_due: Option<BotMove>,
    call_window_millis: u32,
    /// The last claim's call window; none until a claim has callers out of turn, and again
    /// after every move.
    window: Option<CallWindow>,
    /// The seat whose clock ran out while a window was open: its default move is held there.
    timed_out_held: Option<Seat>,
    /// Seats that let a call window lapse this game (ladder tables only): not asked again
    /// until the next game, so a seat that never answers windows cannot hold every claim
    /// for the whole window.
    lapsed: Vec<Seat>,
    /// How long each seat may keep this game waiting in call windows (ladder tables).
    patience: Patience,
    /// The person last asked to move, and when: how long its moves take.
    prompted: Option<(Seat, Duration)>,
    /// Whose move the clock was last (re)started for, at which point of the log: the clock
    /// restarts only when that changes, not each time the table settles.
    timed_for: Option<(Option<Seat>, u64, u32)>,
    proofs: DiceProofs,
    journal: Journal,
    record: GameRecord,
    /// Finished games to write with the journal.
    finished: Vec<FinishedGame>,
    /// The table as last announced to the streams, so only changes are sent.
    announced: Option<pb::TableInfo>,
    length: GameLength,
    /// Counts changes to what a list shows of the table (seats, rules, state).
    changes: u64,
    /// CPU time spent playing built-in bots since the task last took it: what the table's
    /// share of the server's CPU is charged (see `bot_cpu`).
    thinking: Duration,
}

/// Bot moves played in one go: a table of bots playing at once hands back to the task after
/// this many, or after [`BOT_SLICE`] of thinking, whichever comes first (the rest follow
/// after other tables and calls have had their turn), so one table can never hold a worker
/// thread for long, however many dice its bots weigh.
const BOT_MOVES_AT_ONCE: usize = 256;
/// The events a finished game keeps for resumes: its last round's reveal and result, with
/// room to spare.
const FINISHED_GAME_KEEPS: usize = 64;
/// The most real time one go of bot moves takes (one move past it at most, and a bot's
/// decision is bounded: see `dudo_rules::bots`).
pub const BOT_SLICE: Duration = Duration::from_millis(2);

impl TableCore {
    /// A new table; `salt_secret` is what its dice commitments' salts are drawn from. With
    /// a journal, its creation is the journal's first entry.
    pub fn new(rules: RuleSet, setup: Setup, salt_secret: [u8; 32], now: Now) -> TableCore {
        let Setup {
            id,
            code,
            capacity,
            seed,
            pacing,
            rate,
            rating_pool,
            journalled,
            length,
            budget,
            host_token,
        } = setup;
        let mut core = TableCore {
            id,
            code,
            rules: Arc::new(rules),
            link_base: Arc::from(""),
            seed,
            rate,
            rating_pool,
            seats: Seats::new(capacity, host_token),
            game: None,
            log: EventLog::new(budget),
            clock: pacing.clock,
            bot_pause: pacing.bot_pause,
            bot_due: None,
            call_window_millis: pacing.call_window_millis,
            window: None,
            timed_out_held: None,
            lapsed: Vec::new(),
            patience: Patience::default(),
            prompted: None,
            timed_for: None,
            proofs: DiceProofs::new(salt_secret),
            journal: Journal::new(journalled),
            record: GameRecord::default(),
            finished: Vec::new(),
            announced: None,
            length,
            changes: 0,
            thinking: Duration::ZERO,
        };
        let created = core.journal.kept.then(|| Entry::Created(core.creation()));
        core.journal.record(now.wall, created);
        core
    }

    /// The table's first journal entry.
    pub fn creation(&self) -> pb::TableCreated {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        pb::TableCreated {
            id: self.id.clone(),
            code: self.code.clone(),
            rules: Some(convert::rules_to_wire(&self.rules)),
            capacity: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            seed: self.seed,
            move_millis: self.clock.as_ref().map_or(0, |c| millis(c.per_move)),
            bank_millis: self.clock.as_ref().map_or(0, |c| millis(c.bank)),
            bot_think_millis: millis(self.bot_pause),
            actions_per_second: self.rate,
            salt_secret: self.proofs.secret().to_vec(),
            rating_pool: self.rating_pool.clone(),
            host_token_hash: self.seats.host_token().map(|h| h.to_vec()).unwrap_or_default(),
            call_window_millis: self.call_window_millis.into(),
        }
    }

    /// A table as its creation entry made it (recovery; no journal entry is made for it).
    pub fn from_creation(
        id: String,
        code: String,
        c: &pb::TableCreated,
        length: GameLength,
        budget: Arc<Budget>,
    ) -> Result<TableCore, TableError> {
        let bad = |why: String| TableError::Journal(why);
        let wire = c.rules.as_ref().ok_or_else(|| bad("no rules".into()))?;
        let rules = convert::rules_from_wire(wire).map_err(|e| bad(e.to_string()))?;
        let secret: [u8; 32] =
            c.salt_secret.as_slice().try_into().map_err(|_| bad("salt secret is not 32 bytes".into()))?;
        let clock = (c.move_millis > 0)
            .then(|| Clock::new(Duration::from_millis(c.move_millis), Duration::from_millis(c.bank_millis)));
        let setup = Setup {
            id,
            code,
            capacity: c.capacity as usize,
            seed: c.seed,
            pacing: Pacing {
                clock,
                bot_pause: Duration::from_millis(c.bot_think_millis),
                call_window_millis: u32::try_from(c.call_window_millis).unwrap_or(u32::MAX),
            },
            rate: c.actions_per_second,
            rating_pool: c.rating_pool.clone(),
            journalled: true,
            length,
            budget,
            host_token: match c.host_token_hash.as_slice() {
                [] => None,
                hash => Some(hash.try_into().map_err(|_| bad("host token hash is not 32 bytes".into()))?),
            },
        };
        let mut core = TableCore::new(rules, setup, secret, Now::at(0));
        core.journal.discard();
        Ok(core)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn code(&self) -> &str {
        &self.code
    }

    pub fn seed(&self) -> Option<u64> {
        self.seed
    }

    /// Games started at this table (for game ids).
    pub fn games_started(&self) -> u32 {
        self.record.games
    }

    /// Whether nothing more fits in the memory budget this table counts against.
    pub fn budget_full(&self) -> bool {
        self.log.budget_full()
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    pub fn seats(&self) -> &Seats {
        &self.seats
    }

    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    fn game_over(&self) -> bool {
        self.game.as_ref().is_some_and(Game::is_over)
    }

    /// Applies one input, journals it and logs what it caused; a refused input changes
    /// nothing. The one way a table's state changes, live or rebuilt.
    pub fn apply(&mut self, input: Input, now: Now) -> Result<Caused, TableError> {
        let mut caused = Caused::default();
        // Made only when there is a journal to keep it (a table in memory plays without).
        let mut entry = self.journal.kept.then(|| input.to_entry());
        let table_changed = !matches!(input, Input::Moved { .. } | Input::WindowLapsed { .. });
        let game_changed =
            !matches!(input, Input::Joined { .. } | Input::RulesChanged { .. } | Input::WindowLapsed { .. });
        match input {
            Input::Joined { name, token_hash, bot, account } => {
                if self.game.is_some() {
                    return Err(TableError::GameStarted("nobody joins now"));
                }
                self.seats.check_room()?;
                match &account {
                    Some(a) if self.seats.holds(a) => return Err(TableError::AlreadySeated),
                    // A rating is an account's: at a ranked table every person has one.
                    None if bot.is_none() && self.rating_pool == "ranked" => {
                        return Err(TableError::AccountRequired);
                    }
                    _ => {}
                }
                self.journal.record(now.wall, entry.take());
                caused.seat = Some(self.seats.push(SeatSlot { name, token_hash, bot, account, left: false }));
            }
            Input::RulesChanged { rules } => {
                if self.game.is_some() {
                    return Err(TableError::GameStarted("settings change only before it starts"));
                }
                let (min, max) = (rules.players.min, rules.players.max);
                let capacity = self.seats.capacity;
                if capacity < usize::from(min) || capacity > usize::from(max) {
                    return Err(TableError::SeatsOutsideRules { capacity, min, max });
                }
                if !super::journals_faithfully(&rules) {
                    return Err(TableError::NotJournalable);
                }
                self.journal.record(now.wall, entry.take());
                self.rules = rules;
            }
            Input::Started { seed, game_id } => {
                if self.game.is_some() {
                    return Err(TableError::GameStarted("it cannot start again"));
                }
                let (game, events) = Game::start(Arc::clone(&self.rules), self.seats.len(), seed)?;
                self.journal.record(now.wall, entry.take());
                self.game = Some(game);
                self.lapsed.clear();
                self.patience.begin(self.seats.len(), now.mono);
                self.record.begin(game_id, seed, now.wall);
                self.publish(events, now);
            }
            Input::Moved { seat, action, timed_out } => {
                let game = self.game.as_mut().ok_or(TableError::NotStarted)?;
                let events = game.apply(seat, &action)?;
                self.journal.record(now.wall, entry.take());
                self.record.played += 1;
                if self.journal.kept {
                    self.record.moves.push(pb::GameMove {
                        seat: u32::try_from(seat).unwrap_or(u32::MAX),
                        action: Some(convert::action_to_wire(&action)),
                        timed_out,
                    });
                }
                if timed_out {
                    if let Some(clock) = self.clock.as_mut() {
                        clock.ran_out(seat);
                    }
                    self.log_event(TableEvent::TurnTimedOut { seat, action }, now);
                }
                self.publish(events, now);
            }
            Input::Removed { seat, by_host } => self.remove(seat, by_host, entry.take(), now)?,
            Input::Stopped { why, limit } => {
                let game = self.game.as_mut().ok_or(TableError::NotStarted)?;
                if game.is_over() {
                    return Err(TableError::Rule(dudo_rules::RuleError::GameOver));
                }
                let events = game.stop();
                self.journal.record(now.wall, entry.take());
                self.log_event(TableEvent::GameStopped { why, limit }, now);
                self.publish(events, now);
            }
            Input::WindowLapsed { seats } => {
                if self.game.as_ref().is_none_or(Game::is_over) {
                    return Err(TableError::NotStarted);
                }
                self.journal.record(now.wall, entry.take());
                for &seat in &seats {
                    if !self.lapsed.contains(&seat) {
                        self.lapsed.push(seat);
                    }
                }
                self.log_event(TableEvent::CallWindowLapsed { seats }, now);
            }
            Input::Reset => {
                self.journal.record(now.wall, entry.take());
                self.game = None;
                self.lapsed.clear();
                self.bot_due = None;
                self.log.forget();
                self.proofs.reset();
                self.seats.drop_left();
                if let Some(clock) = self.clock.as_mut() {
                    clock.reset();
                }
                self.log.end_seats(StreamEnd::Reseated(pb::reseated::Why::Reset));
            }
        }
        if game_changed {
            // A new position: the last claim's window (if any) is over.
            self.window = None;
        }
        self.record_if_over(now);
        if table_changed {
            self.changes += 1;
            self.announce_table();
        }
        Ok(caused)
    }

    /// Takes a seat out: before the start it frees the seat; during a game the engine allows
    /// it only before the first call of a round, and the seat finishes below those still in.
    /// The seat's own streams are told why (the host removed it, or it left) and end.
    fn remove(
        &mut self,
        seat: Seat,
        by_host: bool,
        mut entry: Option<Entry>,
        now: Now,
    ) -> Result<(), TableError> {
        if seat >= self.seats.len() {
            return Err(TableError::NoSuchSeat { seat });
        }
        let why = if by_host { pb::reseated::Why::Removed } else { pb::reseated::Why::Left };
        match self.game.as_mut() {
            None => {
                self.seats.free(seat)?;
                self.journal.record(now.wall, entry.take());
                self.log.end_seat(seat, StreamEnd::Reseated(why));
                // Seats after it move down: every seat's stream must reconnect with its token
                // (which finds its new number), so no stream carries another seat's dice.
                self.log.end_seats(StreamEnd::Reseated(pb::reseated::Why::Renumbered));
            }
            Some(game) => {
                let events = game.remove(seat)?;
                self.journal.record(now.wall, entry.take());
                let wire_seat = u32::try_from(seat).unwrap_or(u32::MAX);
                self.record.moves.push(pb::GameMove { seat: wire_seat, action: None, timed_out: false });
                // No rejoin: the token no longer answers, and a bot no longer plays.
                self.seats.leave(seat);
                self.log.end_seat(seat, StreamEnd::Reseated(why));
                self.publish(events, now);
            }
        }
        Ok(())
    }

    /// A game that just ended is recorded, whole, to be written with the input that ended it.
    fn record_if_over(&mut self, now: Now) {
        let Some(game) = self.game.as_ref().filter(|g| g.is_over()) else { return };
        if self.record.recorded {
            return;
        }
        self.changes += 1;
        // Without a store nothing keeps records: none is made.
        if self.journal.kept {
            let cx = record::Context {
                table: &self.id,
                rules: &self.rules,
                rating_pool: &self.rating_pool,
                seats: &self.seats,
                log: &self.log,
            };
            let finished = self.record.finish(game, now.wall, cx);
            self.finished.push(finished);
        } else {
            self.record.recorded = true;
        }
        // The record has the whole game: a finished table keeps only its end for resumes (an
        // earlier resume gets a snapshot of the final position), not its whole log, which
        // would hold the budget until the table is closed.
        self.log.keep_last(FINISHED_GAME_KEEPS);
    }

    /// Appends engine events to the log, with the dice proofs around them.
    fn publish(&mut self, events: Vec<Event>, now: Now) {
        for event in events {
            if let Some(earlier) = self.proofs.before(&event, self.log.next_seq()) {
                self.log_event(earlier, now);
            }
            let salts = self.proofs.after(&event);
            self.log_event(TableEvent::Game(event), now);
            if let Some(salts) = salts {
                self.log_event(salts, now);
            }
        }
        if let Some(commitments) = self.proofs.commitments() {
            self.log_event(commitments, now);
        }
    }

    fn log_event(&mut self, event: TableEvent, now: Now) {
        let over = self.game_over();
        self.log.append(event, now.wall, over);
    }

    /// What a live table does after an input: the built-in bots move (at once, or one after
    /// its pause), the clock times the person who must move, and every stream learns where
    /// the game stands (a prompt for each person who may act, the view for the rest).
    pub fn settle(&mut self, now: Now) {
        self.bot_due = None;
        self.enforce_length(now);
        // Bots that move at once play here; with a pause, only what a call window decided
        // (and bots' answers in it, which are never paused) plays now.
        let at_once = self.bot_pause.is_zero();
        let mut played_all = false;
        // Real time, not the table's `now`: this bounds the work, it decides nothing in the game.
        // What the bots cost is this thread's CPU time over the slice (wall time where the
        // system cannot say): on a loaded machine, time the core spent elsewhere is not theirs.
        // A table of people only thinks nothing: no clock read on their moves.
        let bots = self.seats.any_bot();
        let started = std::time::Instant::now();
        let cpu = if bots { cpu_time::ThreadTime::try_now().ok() } else { None };
        for n in 0..BOT_MOVES_AT_ONCE {
            if n > 0 && started.elapsed() >= BOT_SLICE {
                break;
            }
            let Some((seat, action)) = self.next_move(at_once, now) else {
                played_all = true;
                break;
            };
            if !self.play_bot(seat, action, now) {
                played_all = true;
                break;
            }
            self.enforce_length(now);
        }
        if !played_all {
            // More to play: it comes back through the task's loop, at once.
            if let Some((seat, action)) = self.next_move(at_once, now) {
                self.bot_due = Some(BotMove { due: now.mono, seat, action, at_log_len: self.log.next_seq() });
            }
        } else if !at_once && let Some((seat, action)) = self.paused_bot_move() {
            self.bot_due = Some(BotMove {
                due: now.mono + self.bot_pause,
                seat,
                action,
                at_log_len: self.log.next_seq(),
            });
        }
        if bots {
            self.thinking += cpu.and_then(|t| t.try_elapsed().ok()).unwrap_or_else(|| started.elapsed());
        }
        let turn = self.game.as_ref().filter(|g| !g.is_over()).and_then(Game::turn);
        // A seat whose move is held in the call window has moved: its clock stops.
        let held = |t: Seat| self.window.as_ref().is_some_and(|w| w.holds(t));
        let person = turn.filter(|&t| !self.seats.is_bot(t) && !held(t));
        let timed_for = Some((person, self.log.next_seq(), self.record.games));
        if self.timed_for != timed_for {
            if let Some(clock) = self.clock.as_mut() {
                clock.restart(person, now.mono);
            }
            self.prompted = person.map(|p| (p, now.mono));
            self.timed_for = timed_for;
        }
        self.tell_streams(now);
    }

    /// Stops a game in play that reached the server's length limit.
    fn enforce_length(&mut self, now: Now) {
        if self.game.as_ref().is_none_or(Game::is_over) {
            return;
        }
        let moves = self.record.played;
        let lasted = u64::try_from(now.wall.saturating_sub(self.record.started_at)).unwrap_or(0);
        let bytes = self.log.bytes() as u64;
        let stop = if self.length.max_moves > 0 && moves >= self.length.max_moves {
            Some((StopWhy::Moves, self.length.max_moves))
        } else if self.length.max_millis > 0 && lasted >= self.length.max_millis {
            Some((StopWhy::Time, self.length.max_millis))
        } else if self.length.max_bytes > 0 && bytes >= self.length.max_bytes {
            Some((StopWhy::Size, self.length.max_bytes))
        } else if self.log.budget_exceeded() {
            // The server holds more than its budget: the games still growing stop, rather
            // than the server running out of memory (what they played is kept).
            Some((StopWhy::Memory, bytes))
        } else {
            None
        };
        if let Some((why, limit)) = stop {
            tracing::info!(moves, lasted_ms = lasted, bytes, ?why, "a game reached a limit and is stopped");
            let _ = self.apply(Input::Stopped { why, limit }, now);
        }
    }

    /// The next move to play now, if any: opens the claim's call window (the bots asked
    /// answer at once), then plays what it decides; with no window open, the move of the bot
    /// whose turn it is (when `bots_now`).
    fn next_move(&mut self, bots_now: bool, now: Now) -> Option<(Seat, Action)> {
        let game = self.game.as_ref().filter(|g| !g.is_over())?;
        let turn = game.turn();
        if self.window.is_none() {
            let limit = self.window_limit();
            // A seeded table plays the same game whatever the timing: no patience there.
            let patient = self.lapses_count() && self.seed.is_none();
            // Each seat asked until its own time is up: the whole window, or on a ladder
            // table what is left of its patience (see `Patience`), or not asked when none is.
            let asked: Vec<(Seat, Duration, bool)> = game
                .seats_to_ask()
                .filter(|&s| Some(s) != turn && !self.lapsed.contains(&s))
                .filter_map(|s| {
                    let allowed = self.patience.allows(s, now.mono);
                    if !patient || self.seats.is_bot(s) || allowed >= limit {
                        Some((s, now.mono + limit, true))
                    } else {
                        (allowed >= MIN_PATIENCE).then_some((s, now.mono + allowed, false))
                    }
                })
                .collect();
            if !asked.is_empty() {
                for &(seat, _, _) in &asked {
                    self.patience.asked(seat);
                }
                let mut window = CallWindow::open(asked.iter().copied(), now.mono);
                for &(seat, _, _) in asked.iter().filter(|&&(s, _, _)| self.seats.is_bot(s)) {
                    match bots::decide(game, &self.seats, seat) {
                        Some(call) => window.call(seat, call, now.mono),
                        None => window.pass(seat, now.mono),
                    }
                }
                self.window = Some(window);
            }
        }
        if let Some(window) = self.window.as_mut().filter(|w| w.is_open()) {
            if bots_now
                && let Some(t) = turn.filter(|&t| self.seats.is_bot(t) && !window.holds(t))
                && let Some(action) = bots::decide(game, &self.seats, t)
            {
                window.hold(t, action);
            }
            let decision = window.decide();
            if decision != Decision::Waiting {
                self.patience.charge(window);
            }
            match decision {
                Decision::Waiting => return None,
                Decision::Call(seat, action) => {
                    window.close();
                    return Some((seat, action));
                }
                Decision::Closed(_) => {
                    if let Some(held) = window.close() {
                        return Some(held);
                    }
                }
            }
        }
        let t = turn.filter(|&t| bots_now && self.seats.is_bot(t))?;
        Some((t, bots::decide(game, &self.seats, t)?))
    }

    /// The move the bot whose turn it is will play after its pause (none while its move
    /// waits in a call window, or when it is not a bot's turn).
    fn paused_bot_move(&self) -> Option<(Seat, Action)> {
        let game = self.game.as_ref().filter(|g| !g.is_over())?;
        let t = game.turn().filter(|&t| self.seats.is_bot(t))?;
        if self.window.as_ref().is_some_and(|w| w.holds(t)) {
            return None;
        }
        Some((t, bots::decide(game, &self.seats, t)?))
    }

    /// How long a call window stays open at most.
    fn window_limit(&self) -> Duration {
        match (self.call_window_millis, &self.clock) {
            (0, Some(clock)) => clock.per_move,
            (0, None) => WINDOW_WITHOUT_CLOCK,
            (ms, _) => Duration::from_millis(ms.into()),
        }
    }

    /// When the open call window closes (monotonic), if one is waiting for someone.
    pub fn window_closes(&self) -> Option<Duration> {
        self.window.as_ref().and_then(CallWindow::closes)
    }

    /// Whether a seat that lets a call window lapse is not asked again this game (and named in
    /// a `call_window_lapsed` event the ladder counts like a time-out). Ladder tables only: a
    /// network seat there is a bot that can answer at once, while at a game night letting
    /// the window close is how a person says no. Derived from the journalled rating pool, so
    /// a rebuilt table decides the same.
    fn lapses_count(&self) -> bool {
        self.rating_pool.starts_with(dudo_store::ladder::POOL_PREFIX)
    }

    /// The call window's time is up: whoever has not answered lets the claim pass.
    pub fn close_window(&mut self, now: Now) {
        let lapsed = self.window.as_mut().map(|w| w.time_up(now.mono)).unwrap_or_default();
        let seats: Vec<Seat> = lapsed.into_iter().filter(|&s| !self.seats.is_bot(s)).collect();
        if self.lapses_count() && !seats.is_empty() {
            let _ = self.apply(Input::WindowLapsed { seats }, now);
        }
        self.settle(now);
    }

    /// A person's move or call. In an open call window, a call waits for the window's
    /// decision and the move of the seat whose turn it is is held until it closes; true when
    /// the table must settle (something may have changed), false when only the seat's own
    /// prompt is answered.
    pub fn play(&mut self, seat: Seat, action: Action, now: Now) -> Result<bool, TableError> {
        let game = self.game.as_ref().ok_or(TableError::NotStarted)?;
        if let Some((asked, at)) = self.prompted.filter(|&(p, _)| p == seat && game.turn() == Some(seat)) {
            self.patience.moved(asked, now.mono.saturating_sub(at));
        }
        if let Some(window) = self.window.as_mut() {
            let my_turn = game.turn() == Some(seat);
            if window.is_open() {
                if window.waits_for(seat) {
                    game.check(seat, &action)?;
                    window.call(seat, action, now.mono);
                    return Ok(self.answered(seat, now));
                }
                if my_turn && !window.holds(seat) {
                    game.check(seat, &action)?;
                    window.hold(seat, action);
                    return Ok(self.answered(seat, now));
                }
                if window.asked(seat) || my_turn {
                    return Err(TableError::AlreadyAnswered);
                }
            } else if window.asked(seat) && !my_turn {
                return Err(TableError::CallWindowClosed);
            }
        }
        self.apply(Input::Moved { seat, action, timed_out: false }, now)?;
        Ok(true)
    }

    /// A person lets the last claim pass without calling.
    pub fn pass_call(&mut self, seat: Seat, now: Now) -> Result<bool, TableError> {
        match self.window.as_mut() {
            Some(window) if window.waits_for(seat) => {
                window.pass(seat, now.mono);
                Ok(self.answered(seat, now))
            }
            Some(window) if window.asked(seat) && window.is_open() => Err(TableError::AlreadyAnswered),
            _ => Err(TableError::NoCallWindow),
        }
    }

    /// A seat answered in the window: true if the window may now decide; otherwise only the
    /// seat's streams learn that it waits (its prompt is answered).
    fn answered(&mut self, seat: Seat, now: Now) -> bool {
        if self.window.as_ref().is_none_or(|w| w.decide() != Decision::Waiting) {
            return true;
        }
        let viewer = Viewer::Seat(seat);
        if let Some(turn) = self.turn_for(viewer, now) {
            self.log.queue_each(|v| (v == viewer).then(|| turn.clone()));
        }
        false
    }

    /// Plays a bot's move (its seat's default if the move is refused, never a stall); false
    /// if nothing happened.
    fn play_bot(&mut self, seat: Seat, action: Action, now: Now) -> bool {
        // The default move a time-out left in a call window is played as a time-out.
        let timed_out = self.timed_out_held.take() == Some(seat);
        if self.apply(Input::Moved { seat, action, timed_out }, now).is_ok() {
            return true;
        }
        let fallback = self.game.as_ref().and_then(|g| g.default_action(seat));
        fallback
            .is_some_and(|action| self.apply(Input::Moved { seat, action, timed_out: false }, now).is_ok())
    }

    /// Whether the table is waiting for `seat`: a person's seat that may act now.
    pub fn awaits(&self, seat: Seat) -> bool {
        !self.seats.is_bot(seat) && self.game.as_ref().is_some_and(|g| !g.is_over() && self.asks(g, seat))
    }

    /// Whether `seat` is asked to act now: its turn (unless its move is held in the call
    /// window), or its call out of turn while the window waits for it.
    fn asks(&self, game: &Game, seat: Seat) -> bool {
        match self.window.as_ref().filter(|w| w.is_open()) {
            Some(w) => w.waits_for(seat) || (game.turn() == Some(seat) && !w.holds(seat)),
            None => game.turn() == Some(seat),
        }
    }

    /// Prompts `seat` again, if it may still act (its last move was refused for the pace).
    pub fn prompt_again(&mut self, seat: Seat, now: Now) {
        if let Some(prompt) = self.prompt_for(seat, now) {
            self.log.queue_each(|viewer| (viewer == Viewer::Seat(seat)).then(|| prompt.clone()));
        }
    }

    /// When the clock runs out for the seat it is timing (monotonic).
    pub fn deadline(&self) -> Option<Duration> {
        self.clock.as_ref()?.deadline()
    }

    /// The real time bots took since this was last asked.
    pub fn take_thinking(&mut self) -> Duration {
        std::mem::take(&mut self.thinking)
    }

    /// When the paused bot's move is due (monotonic).
    pub fn bot_due(&self) -> Option<Duration> {
        self.bot_due.as_ref().map(|b| b.due)
    }

    /// The clock ran out: the seat's default action is played for it, and the log says so.
    pub fn time_out(&mut self, now: Now) {
        let Some(seat) = self.clock.as_ref().and_then(Clock::timing) else { return };
        let action = self.game.as_ref().and_then(|g| g.default_action(seat));
        // A call window is open on the claim: the default move waits in it like any move of
        // the seat whose turn it is, and a call made in the window still wins.
        if let (Some(window), Some(action)) = (self.window.as_mut().filter(|w| w.is_open()), action.clone()) {
            window.hold(seat, action);
            self.timed_out_held = Some(seat);
            if let Some(clock) = self.clock.as_mut() {
                clock.ran_out(seat);
            }
            self.settle(now);
            return;
        }
        match action.map(|action| self.apply(Input::Moved { seat, action, timed_out: true }, now)) {
            Some(Ok(_)) => self.settle(now),
            // Nothing to play for it: the clock stops rather than fire again at once.
            _ => {
                if let Some(clock) = self.clock.as_mut() {
                    clock.stop();
                }
            }
        }
    }

    /// The paused bot's time has come: it moves if nothing happened since it chose.
    pub fn bot_moves(&mut self, now: Now) {
        let Some(due) = self.bot_due.take() else { return };
        if due.at_log_len == self.log.next_seq() {
            let turn = self.game.as_ref().and_then(Game::turn);
            match self.window.as_mut().filter(|w| w.is_open()) {
                // Its pause is over but the window is not: the move waits in it.
                Some(window) if turn == Some(due.seat) => window.hold(due.seat, due.action),
                _ => {
                    self.play_bot(due.seat, due.action, now);
                }
            }
        }
        self.settle(now);
    }

    /// The banks as a rebuilt table's journal last recorded them.
    pub fn restore_banks(&mut self, banks_millis: &[u64]) {
        if let Some(clock) = self.clock.as_mut()
            && !banks_millis.is_empty()
        {
            clock.restore(banks_millis.iter().map(|&ms| Duration::from_millis(ms)).collect());
        }
    }

    /// The prompt for `seat`, if it is a person's seat that may act now.
    fn prompt_for(&self, seat: Seat, now: Now) -> Option<log::Shared> {
        let game = self.game.as_ref()?;
        if self.seats.is_bot(seat) || game.is_over() || !self.asks(game, seat) {
            return None;
        }
        let deadline = self.deadline_for(seat, now);
        let window = self.window.as_ref().and_then(|w| w.closes_for(seat)).map(|c| now.wall_at(c));
        Some(log::update(Up::Prompt(Box::new(pb::Prompt {
            view: Some(convert::view_to_wire(&game.view(seat))),
            legal: Some(convert::legal_to_wire(&game.legal(seat))),
            deadline_unix_millis: deadline,
            last_seq: self.log.last_seq(),
            call_window_unix_millis: window,
        }))))
    }

    /// When the clock runs out for `seat`, in Unix ms, if it is the seat being timed.
    fn deadline_for(&self, seat: Seat, now: Now) -> Option<u64> {
        let clock = self.clock.as_ref()?;
        (clock.timing() == Some(seat)).then(|| clock.deadline().map(|d| now.wall_at(d))).flatten()
    }

    /// Where the game stands for `viewer`, as a `turn` update.
    fn turn_for(&self, viewer: Viewer, now: Now) -> Option<log::Shared> {
        let game = self.game.as_ref()?;
        let view = match viewer {
            Viewer::Seat(s) => game.view(s),
            _ => game.spectator_view(),
        };
        let deadline = game.turn().and_then(|t| self.deadline_for(t, now));
        let window = self.window.as_ref().and_then(CallWindow::closes_last).map(|c| now.wall_at(c));
        Some(log::update(Up::Turn(Box::new(pb::Turn {
            last_seq: self.log.last_seq(),
            view: Some(convert::view_to_wire(&view)),
            deadline_unix_millis: deadline,
            call_window_unix_millis: window,
        }))))
    }

    /// Every stream learns where the game stands: a prompt for each person who may act, the
    /// view for everyone else (one copy per viewer, shared by its streams).
    fn tell_streams(&mut self, now: Now) {
        if self.game.is_none() {
            return;
        }
        let updates: Vec<(Viewer, Option<log::Shared>)> = self
            .log
            .viewers()
            .into_iter()
            .map(|viewer| {
                let prompt = match viewer {
                    Viewer::Seat(s) => self.prompt_for(s, now),
                    _ => None,
                };
                (viewer, prompt.or_else(|| self.turn_for(viewer, now)))
            })
            .collect();
        self.log.queue_each(|viewer| updates.iter().find(|(v, _)| *v == viewer).and_then(|(_, u)| u.clone()));
    }

    /// Tells every stream who sits at the table now, if that changed.
    fn announce_table(&mut self) {
        let info = self.info();
        if self.announced.as_ref() == Some(&info) {
            return;
        }
        let update = log::update(Up::Table(Box::new(info.clone())));
        self.announced = Some(info);
        self.log.queue_each(|_| Some(update.clone()));
    }

    /// Opens a stream for the holder of `token` (a spectator without one). Resuming after
    /// `since`: the table, every event since that the viewer may see, then where the game
    /// stands; a new stream, or a resume from before the events kept: a snapshot.
    pub fn subscribe(
        &mut self,
        token: Option<&str>,
        since: Option<u64>,
        sink: Box<dyn Sink>,
        now: Now,
    ) -> Result<(), TableError> {
        let viewer = match token {
            Some(t) => Viewer::Seat(self.seats.seat_of(t)?),
            None => Viewer::Spectator,
        };
        let over = self.game_over();
        let mut first = Vec::new();
        let resumed = since.and_then(|since| self.log.since(viewer, since, over));
        let is_resume = resumed.is_some();
        match resumed {
            Some(events) => {
                if events.len() >= log::SUBSCRIBER_BUFFER {
                    return Err(TableError::TooFarBehind);
                }
                first.push(log::update(Up::Table(Box::new(self.info()))));
                first.extend(events);
            }
            None => {
                let view = self.game.as_ref().map(|g| match viewer {
                    Viewer::Seat(s) => convert::view_to_wire(&g.view(s)),
                    _ => convert::view_to_wire(&g.spectator_view()),
                });
                let seat = match viewer {
                    Viewer::Seat(s) => u32::try_from(s).ok(),
                    _ => None,
                };
                let snapshot =
                    pb::Snapshot { last_seq: self.log.last_seq(), view, table: Some(self.info()), seat };
                first.push(log::update(Up::Snapshot(Box::new(snapshot))));
            }
        }
        let prompt = match viewer {
            Viewer::Seat(s) => self.prompt_for(s, now),
            _ => None,
        };
        match prompt {
            Some(p) => first.push(p),
            // A resumed stream learns where the game stands (a snapshot says it already).
            None if is_resume => first.extend(self.turn_for(viewer, now)),
            None => {}
        }
        match self.log.subscribe(viewer, sink, first) {
            Ok(()) => {}
            Err(log::Refused::TooMuch) => return Err(TableError::TooFarBehind),
            // Refused for the budget, not for the resume's length: the client is not behind.
            Err(log::Refused::Budget) => return Err(TableError::ServerBusy),
        }
        Ok(())
    }

    /// The last event logged (what a prompt's `last_seq` says).
    pub fn last_seq(&self) -> Option<u64> {
        self.log.last_seq()
    }

    /// A number that changes whenever [`TableCore::summary`] may have.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The link people open to join: the browser table's page for this table's code.
    fn link(&self) -> String {
        format!("{}/t/{}", self.link_base, self.code)
    }

    /// Where the server's pages are (`http://HOST:PORT`), for the table's link.
    pub fn set_link_base(&mut self, base: Arc<str>) {
        self.link_base = base;
    }

    /// The table in a list: its name, seats and host, without the whole rule set.
    pub fn summary(&self) -> pb::TableSummary {
        pb::TableSummary {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: self.link(),
            rules: self.rules.name.clone(),
            seats: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            taken: u32::try_from(self.seats.len()).unwrap_or(u32::MAX),
            host: self.seats.get(self.seats.host()).map(|s| s.name.clone()).unwrap_or_default(),
            state: self.state() as i32,
        }
    }

    fn state(&self) -> pb::TableState {
        match &self.game {
            None => pb::TableState::Waiting,
            Some(g) if g.is_over() => pb::TableState::Over,
            Some(_) => pb::TableState::Playing,
        }
    }

    pub fn info(&self) -> pb::TableInfo {
        let state = self.state();
        pb::TableInfo {
            id: self.id.clone(),
            join_code: self.code.clone(),
            link: self.link(),
            rules: Some(convert::rules_to_wire(&self.rules)),
            seats: u32::try_from(self.seats.capacity).unwrap_or(u32::MAX),
            players: self.seats.to_wire(),
            host: u32::try_from(self.seats.host()).unwrap_or(u32::MAX),
            state: state as i32,
            call_window_millis: self.call_window_millis,
            seeded: self.seed.is_some(),
        }
    }

    /// What waits to be written: the journal's entries (the last with the clock's banks) and
    /// the games finished since the last write.
    pub fn take_unsaved(&mut self) -> (Vec<(i64, pb::JournalEntry)>, Vec<FinishedGame>) {
        let banks = match self.clock.as_ref() {
            Some(clock) => clock
                .banks(self.seats.len())
                .iter()
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .collect(),
            None => Vec::new(),
        };
        (self.journal.take(banks), std::mem::take(&mut self.finished))
    }

    /// Whether anything waits to be written.
    pub fn has_unsaved(&self) -> bool {
        !self.journal.is_empty() || !self.finished.is_empty()
    }

    /// Forgets what a rebuilt table "journalled" while its journal was replayed.
    pub fn discard_unsaved(&mut self) {
        self.journal.discard();
        self.finished.clear();
    }

    /// Sends every stream what waited for the journal.
    pub fn deliver(&mut self) {
        self.log.deliver();
    }

    pub fn end_streams(&mut self, why: StreamEnd) {
        self.log.end_all(why);
    }

    /// Ends every stream now, sending nothing unsaved.
    pub fn abandon_streams(&mut self, why: StreamEnd) {
        self.log.abandon(why);
    }

    /// Drops streams whose readers are gone; true if none is left.
    pub fn prune_streams(&mut self) -> bool {
        self.log.prune()
    }
}
