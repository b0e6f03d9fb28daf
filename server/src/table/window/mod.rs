//! Calls out of turn, made fair: the call window.
//!
//! Some rules let seats other than the next one call on a claim (Calza by the others, the
//! out-of-sequence challenges of the encyclopedia article). If the first call to arrive won, a fast
//! connection would beat a slow one, and a bot that answers at once would beat everyone.
//! Instead, after each claim every such seat is asked at once and answers (a call, or a
//! pass); the table moves on when each has answered or the window closes. If several call,
//! the first in play order from the claimant wins, as `dudo simulate` decides. The seat
//! whose turn it is may move meanwhile: its move is held, and played only if nobody called.
//!
//! Each seat asked has its own closing time: the table's window, or on a ladder table what is
//! left of its [`Patience`], so a seat that stalls windows cannot make a game drag.

use std::collections::BTreeMap;
use std::time::Duration;

use dudo_rules::{Action, Seat};

use super::clock::Clock;
use super::patience::Patience;

mod claim;
pub use claim::{CallWindow, Decision};

/// The longest a window waits for every seat to answer on a table without a move clock.
pub const WINDOW_WITHOUT_CLOCK: Duration = Duration::from_secs(30);
/// The least time a seat is asked in a call window for: with less patience left, it is not
/// asked. An answer needs a round trip, and on a busy machine (four games dealt at once on
/// two cores) one took up to 20 ms: asked with what was left (10 to 15 ms), bots answering
/// at once were cut short.
pub const MIN_PATIENCE: Duration = Duration::from_millis(20);

/// A table's call windows: the last claim's, and what the table remembers of those before it
/// (who was asked in which, who let one lapse, how patient each seat has been), so that
/// whether a seat is asked, and whether its late answer is refused, is decided here alone.
#[derive(Debug, Default)]
pub struct CallWindows {
    /// The table's window, in ms; 0: until every seat asked has answered, within the move
    /// clock (or [`WINDOW_WITHOUT_CLOCK`]).
    millis: u32,
    /// The last claim's window; none until a claim has callers out of turn, and again after
    /// every move.
    current: Option<CallWindow>,
    /// Per seat, the claims (their prompts' `last_seq`) of the last two windows that asked
    /// it, the latest first: a late answer naming one is refused as `call_window_closed`,
    /// however far the game has moved (on a busy server the next window may ask the seat
    /// before its answer to the last one arrives).
    asked_in: BTreeMap<Seat, [u64; 2]>,
    /// What the journal keeps of the last window, for a table rebuilt in it.
    kept: KeptWindow,
    /// The seat whose clock ran out while a window was open: its default move is held there.
    timed_out_held: Option<Seat>,
    /// Seats that let a call window lapse this game (where lapses count): not asked again
    /// until the next game, so a seat that never answers windows cannot hold every claim for
    /// the whole window.
    lapsed: Vec<Seat>,
    /// How long each seat may keep this game waiting in call windows (ladder tables).
    patience: Patience,
    /// How many call windows each seat was asked in, over the table's life (a bot check asks
    /// whether its bot met one).
    asked_count: BTreeMap<Seat, u32>,
}

/// How long a seat is asked for in a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asking {
    /// The table's whole window, always (people's tables, seeded test pools, bot checks).
    Whole,
    /// What is left of the seat's patience: its own allowance or the table's (ladders).
    Patiently,
    /// What is left of the table's allowance, the same rule for every seat (tournaments:
    /// a deal's rotations are played alike).
    Evenly,
}

/// What the last claim's window says the table plays next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// No window is open (or it closed with no move held): the game goes on as it stands.
    Nothing,
    /// The window waits for a seat's answer: nothing is played yet.
    Waiting,
    /// A call that won, or the held move of the seat whose turn it is.
    Play(Seat, Action),
}

impl CallWindows {
    pub fn new(millis: u32) -> CallWindows {
        CallWindows { millis, ..CallWindows::default() }
    }

    /// The table's window, in ms (0: as long as the move clock).
    pub fn millis(&self) -> u32 {
        self.millis
    }

    /// The last claim's window, open or closed.
    pub fn current(&self) -> Option<&CallWindow> {
        self.current.as_ref()
    }

    /// The last claim's window, while it takes answers.
    pub fn open(&self) -> Option<&CallWindow> {
        self.current.as_ref().filter(|w| w.is_open())
    }

    pub fn open_mut(&mut self) -> Option<&mut CallWindow> {
        self.current.as_mut().filter(|w| w.is_open())
    }

    /// Whether the move of `seat` (whose turn it is) waits in the open window.
    pub fn holds(&self, seat: Seat) -> bool {
        self.current.as_ref().is_some_and(|w| w.holds(seat))
    }

    /// Whether the window is waiting for `seat`'s answer.
    pub fn waits_for(&self, seat: Seat) -> bool {
        self.current.as_ref().is_some_and(|w| w.waits_for(seat))
    }

    /// How long a window stays open at most, with the table's move clock.
    pub fn limit(&self, clock: Option<&Clock>) -> Duration {
        match (self.millis, clock) {
            (0, Some(clock)) => clock.per_move,
            (0, None) => WINDOW_WITHOUT_CLOCK,
            (ms, _) => Duration::from_millis(ms.into()),
        }
    }

    /// A new position (a move, a seat gone, a reset): the last claim's window is over.
    pub fn new_position(&mut self) {
        self.current = None;
        self.kept.answers.clear();
    }

    /// A game of `seats` begins at `now`, with `unasked` seats never asked in it.
    pub fn game_began(&mut self, seats: usize, unasked: &[Seat], now: Duration) {
        self.lapsed = unasked.to_vec();
        self.patience.begin(seats, now);
    }

    /// The table was reset: no game, no window anyone can answer late.
    pub fn reset(&mut self) {
        self.lapsed.clear();
        self.asked_in.clear();
    }

    /// A move was made at `at` (Unix ms): the claim a window opens on.
    pub fn claimed(&mut self, at: i64) {
        self.kept.claimed_at = at;
    }

    /// These seats let a window lapse: not asked again this game.
    pub fn lapse(&mut self, seats: &[Seat]) {
        for &seat in seats {
            if !self.lapsed.contains(&seat) {
                self.lapsed.push(seat);
            }
        }
    }

    /// Whether `seat` let a window lapse this game (or starts it unasked).
    pub fn has_lapsed(&self, seat: Seat) -> bool {
        self.lapsed.contains(&seat)
    }

    /// Until when `seat` is asked in a window opening `now` (monotonic, and Unix ms), and
    /// whether that is the table's whole window: the whole window, counted from the claim so
    /// that a table rebuilt mid-window resumes it; or where `patient`, what is left of the
    /// seat's patience; or not asked when none is left.
    pub fn ask_until(
        &self,
        seat: Seat,
        limit: Duration,
        patience: Asking,
        now: Duration,
        wall: i64,
    ) -> Option<(Seat, Duration, bool)> {
        let patient = patience != Asking::Whole;
        let allowed = self.patience.allows(seat, now, patience == Asking::Evenly);
        if !patient || allowed >= limit {
            Some((seat, now + self.kept.left_of(limit, wall), true))
        } else {
            (allowed >= MIN_PATIENCE).then_some((seat, now + allowed, false))
        }
    }

    /// Opens the claim's window (the claim is the log's `claim`) asking `asked` at `now`.
    pub fn open_window(
        &mut self,
        asked: &[(Seat, Duration, bool)],
        claim: Option<u64>,
        now: Duration,
    ) -> &mut CallWindow {
        for &(seat, _, _) in asked {
            self.patience.asked(seat);
            *self.asked_count.entry(seat).or_default() += 1;
        }
        if let Some(claim) = claim {
            for &(seat, _, _) in asked {
                let claims = self.asked_in.entry(seat).or_insert([claim; 2]);
                *claims = [claim, claims[0]];
            }
        }
        self.current.insert(CallWindow::open(asked.iter().copied(), now))
    }

    /// A person's answer in the last claim's window: a call, its held move (the seat whose
    /// `turn` it is; `timed_out`: its clock's default) or a pass (none). Live it goes into the
    /// open window; a table being rebuilt (no window yet) keeps it for the window it opens
    /// when it is back.
    pub fn answer(
        &mut self,
        seat: Seat,
        action: Option<Action>,
        timed_out: bool,
        turn: Option<Seat>,
        now: Duration,
    ) {
        if self.current.is_none() {
            self.kept.answers.push((seat, action, timed_out));
        } else {
            self.answer_in_window(seat, action, timed_out, turn, now);
        }
    }

    /// An answer into the open window: a pass or a call of a seat it waits for, or the held
    /// move of the seat whose `turn` it is (`timed_out`: its clock's default).
    fn answer_in_window(
        &mut self,
        seat: Seat,
        action: Option<Action>,
        timed_out: bool,
        turn: Option<Seat>,
        now: Duration,
    ) {
        let Some(window) = self.current.as_mut().filter(|w| w.is_open()) else { return };
        match action {
            None if window.waits_for(seat) => window.pass(seat, now),
            Some(a) if Some(seat) == turn && !window.holds(seat) => {
                window.hold(seat, a);
                if timed_out {
                    self.timed_out_held = Some(seat);
                }
            }
            Some(a) if window.waits_for(seat) => window.call(seat, a, now),
            _ => {}
        }
    }

    /// A rebuilt table's window just opened (or none did): the answers replayed from the
    /// journal go into it. The move of the seat whose turn it is, when no window holds it,
    /// is given back to be played now.
    pub fn resume_kept(&mut self, turn: Option<Seat>, now: Duration) -> Option<(Seat, Action)> {
        let mut unheld = None;
        for (seat, action, timed_out) in std::mem::take(&mut self.kept.answers) {
            match action {
                // No window opened (nobody is asked now): the move is played as it is.
                Some(action) if self.current.is_none() && Some(seat) == turn => {
                    if timed_out {
                        self.timed_out_held = Some(seat);
                    }
                    unheld = Some((seat, action));
                }
                action => self.answer_in_window(seat, action, timed_out, turn, now),
            }
        }
        unheld
    }

    /// Whether the move played for `seat` is the clock's default its time-out left in a
    /// window (asked once: the answer is taken).
    pub fn take_timed_out_held(&mut self, seat: Seat) -> bool {
        self.timed_out_held.take() == Some(seat)
    }

    /// What the open window decides now, with `to_hold` (the move the table plays for the
    /// seat whose turn it is) held in it first; a window that decides is charged to the
    /// seats' patience and closes.
    pub fn decide(&mut self, to_hold: Option<(Seat, Action)>) -> Next {
        let Some(window) = self.current.as_mut().filter(|w| w.is_open()) else { return Next::Nothing };
        if let Some((seat, action)) = to_hold {
            window.hold(seat, action);
        }
        let decision = window.decide();
        if decision != Decision::Waiting {
            self.patience.charge(window);
        }
        match decision {
            Decision::Waiting => Next::Waiting,
            Decision::Call(seat, action) => {
                window.close();
                Next::Play(seat, action)
            }
            Decision::Closed(_) => match window.close() {
                Some((seat, action)) => Next::Play(seat, action),
                None => Next::Nothing,
            },
        }
    }

    /// Whether the open window can decide now (nobody it still waits for comes first).
    pub fn can_decide(&self) -> bool {
        self.current.as_ref().is_none_or(|w| w.decide() != Decision::Waiting)
    }

    /// The window's time is up at `now` for whoever has not answered: those that had the
    /// whole window, and those cut short.
    pub fn time_up(&mut self, now: Duration) -> (Vec<Seat>, Vec<Seat>) {
        self.current.as_mut().map(|w| w.time_up(now)).unwrap_or_default()
    }

    /// `seat`, whose turn it was, moved `took` after it was asked to.
    pub fn moved(&mut self, seat: Seat, took: Duration) {
        self.patience.moved(seat, took);
    }

    /// Whether an answer from `seat` naming `answers` was to the last window that asked it,
    /// now closed.
    pub fn answers_closed_window(&self, seat: Seat, answers: u64) -> bool {
        let latest = self.asked_in.get(&seat).map(|claims| claims[0]);
        let asked = self.asked_in.get(&seat).is_some_and(|claims| claims.contains(&answers));
        // The latest window is closed only once it no longer waits for the seat.
        asked && (latest != Some(answers) || !self.waits_for(seat))
    }

    /// How many windows `seat` was asked in, and how many seats were asked in all.
    pub fn asked_count(&self, seat: Seat) -> (u32, u32) {
        (self.asked_count.get(&seat).copied().unwrap_or(0), self.asked_count.values().sum())
    }

    /// `seat`'s prompt on the claim `answers` (its `last_seq`) was handed to its stream at
    /// `at` (monotonic): its time in the open window counts from then, within `limit` (the
    /// table's whole window) of the claim.
    pub fn prompt_written(&mut self, seat: Seat, answers: u64, at: Duration, limit: Duration, wall: i64) {
        if self.asked_in.get(&seat).map(|claims| claims[0]) != Some(answers) {
            return;
        }
        // The whole window's end, as `ask_until` counts it (from the claim), at `at`.
        let latest = at + self.kept.left_of(limit, wall);
        if let Some(window) = self.current.as_mut().filter(|w| w.is_open()) {
            window.written(seat, at, latest);
        }
    }

    /// The table was rebuilt at `at` (Unix ms): its people are taken to be reconnecting.
    pub fn rebuilt_at(&mut self, at: i64) {
        self.kept.rebuilt_at = Some(at);
    }

    /// Whether `now` (Unix ms) is within the grace after a rebuild.
    pub fn reconnecting(&self, now: i64) -> bool {
        self.kept.reconnecting(now)
    }
}

/// What the journal keeps of the last claim's window, so that a table rebuilt mid-window (a
/// node died, or drained) resumes it: the claim's time (the window's time counts from it, not
/// from the rebuild) and each person's answer (bots answer the same again). Live, the answers
/// are in the window; a table being rebuilt gathers them here for the window it opens when it
/// is back.
#[derive(Clone, Debug, Default)]
struct KeptWindow {
    /// When the last move was made (Unix ms): the claim a window opens on.
    claimed_at: i64,
    /// Answers replayed from the journal, in order: the seat, its call, its held move or a
    /// pass (none), and whether the clock played the held move.
    answers: Vec<(Seat, Option<Action>, bool)>,
    /// When the table was rebuilt (Unix ms): its people are taken to be here for
    /// [`RECONNECT_GRACE`] after it (they are reconnecting).
    rebuilt_at: Option<i64>,
}

/// How long after a rebuild its people are taken to be here without a stream.
pub const RECONNECT_GRACE: Duration = Duration::from_secs(5);

impl KeptWindow {
    /// How much of a window of `limit` the claim has already spent by `now` (Unix ms).
    fn left_of(&self, limit: Duration, now: i64) -> Duration {
        let spent = u64::try_from(now.saturating_sub(self.claimed_at)).unwrap_or(0);
        limit.saturating_sub(Duration::from_millis(spent))
    }

    /// Whether `now` (Unix ms) is within the grace after a rebuild.
    fn reconnecting(&self, now: i64) -> bool {
        let grace = i64::try_from(RECONNECT_GRACE.as_millis()).unwrap_or(i64::MAX);
        self.rebuilt_at.is_some_and(|at| now < at.saturating_add(grace))
    }
}
