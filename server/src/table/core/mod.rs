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
//! table settles once, when it is back. Settling and playing are in `turns`; what the
//! streams are told, and what waits to be saved, in `streams`.

use std::sync::Arc;
use std::time::Duration;

use dudo_proto::v1 as pb;
use dudo_proto::v1::journal_entry::Entry;
use dudo_proto::{TableEvent, convert};
use dudo_rules::describe::Narrator;
use dudo_rules::{Event, Game, RuleSet, Seat};
use dudo_store::FinishedGame;

use super::bots::BotMove;
use super::clock::{Clock, Now};
use super::error::TableError;
use super::journal::{Input, Journal};
use super::log::EventLog;
use super::offers::{Offers, SeatOffers};
use super::pause::Pauses;
use super::proofs::DiceProofs;
use super::record::{self, GameRecord};
use super::seats::Seats;
use super::talk::Talk;
use super::window::CallWindows;
use crate::budget::Budget;

mod creation;
mod inputs;
mod leaving;
mod pausing;
mod stalling;
mod streams;
mod talking;
mod turns;

use leaving::Departures;

pub use pausing::Ready;
pub use stalling::Stalling;

/// How a table is paced: its turn clock, how long its bots think, and how long seats have
/// to call out of turn.
#[derive(Clone, Debug, Default)]
pub struct Pacing {
    pub clock: Option<Clock>,
    pub bot_pause: Duration,
    /// The call window, in ms; 0: until every seat asked has answered, within the move
    /// clock (or [`super::window::WINDOW_WITHOUT_CLOCK`]).
    pub call_window_millis: u32,
    /// After a showdown, how long the next round waits for the people to see it (0: never).
    pub reveal_pause_millis: u32,
}

/// The longest game the server lets a table play: a game that reaches any of these is
/// stopped, with a `game_stopped` event, and ranked as a game of rounds ends. Zero: no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameLength {
    pub max_moves: u64,
    pub max_millis: u64,
    /// The encoded bytes of the game's events (what its streams, resumes and record hold).
    pub max_bytes: u64,
    /// The table's journal entries, past which it refuses another game (see
    /// `Limits::max_journal_entries`).
    pub max_journal_entries: u64,
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
    /// What it holds against seats that stall its call windows.
    pub stalling: Stalling,
    /// A table the server seats itself: never listed, answering to no join code.
    pub hidden: bool,
    /// Spectators may chat.
    pub spectators_chat: bool,
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
    /// The rules as they go on the wire, encoded (a fraction of the message's size), made once
    /// each time they change: every table update and reply carries them.
    rules_wire: Vec<u8>,
    /// Where the server's pages are, for the table's link (empty: a path alone).
    link_base: Arc<str>,
    seed: Option<u64>,
    rate: u32,
    rating_pool: String,
    /// What it holds against seats that stall its call windows (a ladder's tables also
    /// count lapses by their rating pool).
    stalling: Stalling,
    /// A table the server seats itself (kept in the journal, so a rebuilt one stays hidden).
    hidden: bool,
    /// What each seat was asked and played, by kind: at a bot check's table only.
    offers: Option<Offers>,
    /// A seat to warn that its clock runs low as soon as its move is timed (a bot check's).
    warn_soon: Option<Seat>,
    seats: Seats,
    /// Seats leaving at the round's end, and what tells that a seat is gone for good.
    departures: Departures,
    game: Option<Game>,
    log: EventLog,
    clock: Option<Clock>,
    /// How long bots wait before moving (zero: they move at once, in one go).
    bot_pause: Duration,
    /// The bot move waiting out `bot_pause`.
    bot_due: Option<BotMove>,
    /// The call windows: the last claim's, and what is held of those before it.
    windows: CallWindows,
    /// The wait after a showdown, and the host's pause.
    pauses: Pauses,
    /// Chat, reactions and the table's own news.
    talk: Talk,
    /// The person last asked to move, and when: how long its moves take.
    prompted: Option<(Seat, Duration)>,
    /// Whose move the clock was last (re)started for, at which point of the log: the clock
    /// restarts only when that changes, not each time the table settles.
    timed_for: Option<(Option<Seat>, u64, u32)>,
    proofs: DiceProofs,
    /// What says the game's events in words, in its own terms, and the seats' names as the
    /// game began (seats only leave mid-game).
    narrator: Narrator,
    names: Vec<String>,
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
    /// How long one go of bot moves may take: [`BOT_SLICE`] (tests shorten it).
    bot_slice: Duration,
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
            stalling,
            hidden,
            spectators_chat,
        } = setup;
        let mut core = TableCore {
            id,
            code,
            rules_wire: prost::Message::encode_to_vec(&convert::rules_to_wire(&rules)),
            rules: Arc::new(rules),
            link_base: Arc::from(""),
            seed,
            rate,
            rating_pool,
            stalling,
            hidden,
            offers: None,
            warn_soon: None,
            seats: Seats::new(capacity, host_token),
            departures: Departures::default(),
            game: None,
            log: EventLog::new(budget),
            clock: pacing.clock,
            bot_pause: pacing.bot_pause,
            bot_due: None,
            windows: CallWindows::new(pacing.call_window_millis),
            pauses: Pauses::new(pacing.reveal_pause_millis),
            talk: Talk::new(spectators_chat),
            prompted: None,
            timed_for: None,
            proofs: DiceProofs::new(salt_secret),
            narrator: Narrator::default(),
            names: Vec::new(),
            journal: Journal::new(journalled),
            record: GameRecord::default(),
            finished: Vec::new(),
            announced: None,
            length,
            changes: 0,
            thinking: Duration::ZERO,
            bot_slice: BOT_SLICE,
        };
        let created = core.journal.kept.then(|| Entry::Created(core.creation()));
        core.journal.record(now.wall, created);
        core
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the server seats this table itself (never listed, no join code).
    pub fn hidden(&self) -> bool {
        self.hidden
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

    pub fn length(&self) -> GameLength {
        self.length
    }

    /// What the table draws its dice salts from: a stored record makes its game's
    /// commitments and salts again from it.
    pub fn dice_secret(&self) -> [u8; 32] {
        self.proofs.secret()
    }

    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// The rules as the wire has them.
    pub(super) fn rules_on_wire(&self) -> pb::RuleSet {
        prost::Message::decode(self.rules_wire.as_slice()).unwrap_or_default()
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
    ///
    /// Each input's step (in `inputs` and `leaving`) refuses before it changes anything, so
    /// the journal is written here, once, for whatever it accepted; what every input of a
    /// kind changes besides (the call window, the table's listing) is its
    /// [`Effects`](super::journal::Effects).
    pub fn apply(&mut self, input: Input, now: Now) -> Result<Caused, TableError> {
        let effects = input.effects();
        // Made only when there is a journal to keep it (a table in memory plays without).
        let entry = self.journal.kept.then(|| input.to_entry());
        // What the table says of it, in words, made from the table before it changes.
        let news = self.news_of(&input);
        let mut caused = Caused::default();
        match input {
            Input::Joined { name, token_hash, bot, account } => {
                caused.seat = Some(self.join(name, token_hash, bot, account, now)?);
            }
            Input::RulesChanged { rules } => self.change_rules(rules)?,
            Input::Started { seed, game_id } => self.start(seed, game_id, now)?,
            Input::Moved { seat, action, timed_out } => self.make_move(seat, action, timed_out, now)?,
            Input::Removed { seat, why } => self.remove(seat, why, now)?,
            Input::Leaving { seat, why } => self.mark_leaving(seat, why, now)?,
            Input::Stopped { why, limit } => self.stop(why, limit, now)?,
            Input::WindowLapsed { seats, cut_short } => self.window_lapsed(seats, cut_short, now)?,
            Input::WindowAnswered { seat, action, timed_out } => {
                self.window_answered(seat, action, timed_out, now)?;
            }
            Input::Rebuilt => self.rebuilt()?,
            Input::Reset => self.reset(),
            Input::Paused { by, at } => self.pause(by, at, now)?,
            Input::Resumed { by } => self.resume(by, now)?,
            Input::SeatLinkMade { seat, secret_hash } => self.seats.set_link(seat, secret_hash)?,
            Input::SeatLinked { seat, token_hash } => self.linked(seat, token_hash)?,
            Input::SeatLinkRevoked { seat } => self.revoke_link(seat, now)?,
            Input::Muted { seat, muted } => self.seats.set_muted(seat, muted)?,
        }
        self.journal.record(now.wall, entry);
        if let Some(news) = news {
            self.tell(news, now);
        }
        if effects.position {
            self.windows.new_position();
        }
        self.record_if_over(now);
        self.let_the_leaving_go_if_over();
        if self.game_over() {
            // Nothing is left to wait for.
            self.pauses.clear();
        }
        if effects.table {
            self.changes += 1;
            self.announce_table();
        }
        Ok(caused)
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
                rules_wire: self.rules_on_wire(),
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

    /// Appends an entry to the log, with its line in words for the audience it is for.
    fn log_event(&mut self, event: TableEvent, now: Now) {
        let over = self.game_over();
        let text = event.words(&mut self.narrator, &self.names, self.rules.family.hand_game());
        self.log.append(event, text, now.wall, over);
    }
}

impl TableCore {
    /// A bot check's table: lapsed call windows count as on a ladder's, and what each seat
    /// is asked and plays is kept.
    pub fn for_bot_check(&mut self) {
        self.stalling.lapses_counted = true;
        self.offers = Some(Offers::default());
    }

    /// Whether this is a bot check's table.
    pub(super) fn is_bot_check(&self) -> bool {
        self.offers.is_some()
    }

    /// What `seat` was asked and played, by kind (empty but at a bot check's table).
    pub fn offers_of(&self, seat: Seat) -> SeatOffers {
        self.offers.as_ref().map(|o| o.of(seat)).unwrap_or_default()
    }
}
