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

/// The longest a window waits for every seat to answer on a table without a move clock.
pub const WINDOW_WITHOUT_CLOCK: Duration = Duration::from_secs(30);
/// The least time a seat is asked in a call window for: with less patience left, it is not
/// asked (an answer cannot come back in less).
const MIN_PATIENCE: Duration = Duration::from_millis(1);

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

/// What a seat asked in the window has answered.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Waiting,
    Passed,
    Called(Action),
    /// Its time ran out first: the claim stood for it, as for a pass.
    TimedOut,
}

/// One seat asked in a window.
#[derive(Clone, Debug)]
struct Asked {
    seat: Seat,
    /// When its time to answer is up (monotonic): a seat's own, see [`Patience`].
    closes: Duration,
    /// Whether it was given the table's whole window (a lapse of a shortened one is not held
    /// against it).
    whole: bool,
    answer: Answer,
    /// When it answered (or its time ran out).
    at: Option<Duration>,
    /// When its prompt was handed to its stream, if later than the opening (a busy server
    /// writes it late): its time is counted from then.
    written: Option<Duration>,
}

/// One claim's window.
#[derive(Clone, Debug)]
pub struct CallWindow {
    /// When it opened (monotonic).
    opened: Duration,
    /// The seats asked, in play order from the claimant.
    asked: Vec<Asked>,
    /// The move of the seat whose turn it is, waiting for the window to close.
    held: Option<(Seat, Action)>,
    /// Closed: the claim stands, and the turn's seat plays on.
    closed: bool,
}

/// What the window decides, once it can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A seat's call wins: it is played.
    Call(Seat, Action),
    /// Nobody called: the claim stands, and the held move of the seat whose turn it is (if
    /// it has moved) is played.
    Closed(Option<(Seat, Action)>),
    /// Someone earlier in play order than any caller has not answered yet.
    Waiting,
}

impl CallWindow {
    /// A window opened at `opened`, asking each seat (in play order from the claimant) until
    /// its own time is up, and whether that time is the table's whole window.
    pub fn open(asked: impl IntoIterator<Item = (Seat, Duration, bool)>, opened: Duration) -> CallWindow {
        let asked = asked
            .into_iter()
            .map(|(seat, closes, whole)| Asked {
                seat,
                closes,
                whole,
                answer: Answer::Waiting,
                at: None,
                written: None,
            })
            .collect();
        CallWindow { opened, asked, held: None, closed: false }
    }

    pub fn is_open(&self) -> bool {
        !self.closed
    }

    /// Whether `seat` was asked and has not answered yet.
    pub fn waits_for(&self, seat: Seat) -> bool {
        !self.closed && self.asked.iter().any(|a| a.seat == seat && a.answer == Answer::Waiting)
    }

    /// The seats asked that have not answered yet.
    pub fn waiting(&self) -> impl Iterator<Item = Seat> + '_ {
        self.asked.iter().filter(|a| !self.closed && a.answer == Answer::Waiting).map(|a| a.seat)
    }

    /// When the next seat still waited for runs out of time (monotonic).
    pub fn closes(&self) -> Option<Duration> {
        self.asked.iter().filter(|a| !self.closed && a.answer == Answer::Waiting).map(|a| a.closes).min()
    }

    /// When the last seat still waited for runs out of time (monotonic).
    pub fn closes_last(&self) -> Option<Duration> {
        self.asked.iter().filter(|a| !self.closed && a.answer == Answer::Waiting).map(|a| a.closes).max()
    }

    /// When `seat`'s time to answer is up, if the window waits for it.
    pub fn closes_for(&self, seat: Seat) -> Option<Duration> {
        self.asked
            .iter()
            .find(|a| !self.closed && a.seat == seat && a.answer == Answer::Waiting)
            .map(|a| a.closes)
    }

    /// Whether `seat` was asked in this window (answered or not).
    pub fn asked(&self, seat: Seat) -> bool {
        self.asked.iter().any(|a| a.seat == seat)
    }

    /// Whether `seat` answered in this window itself (a call or a pass, not its time running
    /// out).
    pub fn answered(&self, seat: Seat) -> bool {
        self.asked.iter().any(|a| a.seat == seat && matches!(a.answer, Answer::Passed | Answer::Called(_)))
    }

    /// Whether the move of `seat` (whose turn it is) is held.
    pub fn holds(&self, seat: Seat) -> bool {
        self.held.as_ref().is_some_and(|(s, _)| *s == seat)
    }

    /// `seat` calls.
    pub fn call(&mut self, seat: Seat, action: Action, now: Duration) {
        self.answer(seat, Answer::Called(action), now);
    }

    /// `seat` lets the claim pass.
    pub fn pass(&mut self, seat: Seat, now: Duration) {
        self.answer(seat, Answer::Passed, now);
    }

    fn answer(&mut self, seat: Seat, answer: Answer, now: Duration) {
        if let Some(a) = self.asked.iter_mut().find(|a| a.seat == seat && a.answer == Answer::Waiting) {
            a.answer = answer;
            a.at = Some(now);
        }
    }

    /// The move of the seat whose turn it is, played if nobody calls.
    pub fn hold(&mut self, seat: Seat, action: Action) {
        self.held = Some((seat, action));
    }

    /// Time is up for whoever has not answered by `now`: they let the claim pass. Returns
    /// those of them that had the whole window (a lapse the ladder holds against a seat), and
    /// those given less (cut short by their patience, not held against them).
    pub fn time_up(&mut self, now: Duration) -> (Vec<Seat>, Vec<Seat>) {
        let (mut lapsed, mut cut_short) = (Vec::new(), Vec::new());
        for a in self.asked.iter_mut().filter(|a| a.answer == Answer::Waiting && a.closes <= now) {
            a.answer = Answer::TimedOut;
            a.at = Some(now);
            if a.whole { lapsed.push(a.seat) } else { cut_short.push(a.seat) }
        }
        (lapsed, cut_short)
    }

    /// What the window decides now. A call wins as soon as every seat before it in play
    /// order has passed; with no call, the window closes once everyone has answered.
    pub fn decide(&self) -> Decision {
        for a in &self.asked {
            match &a.answer {
                Answer::Waiting => return Decision::Waiting,
                Answer::Called(action) => return Decision::Call(a.seat, action.clone()),
                Answer::Passed | Answer::TimedOut => {}
            }
        }
        Decision::Closed(self.held.clone())
    }

    /// The claim stands: the window takes no more calls, and lets go of the held move.
    pub fn close(&mut self) -> Option<(Seat, Action)> {
        self.closed = true;
        self.held.take()
    }

    /// `seat`'s prompt was handed to its stream at `at`: a seat still waited for has its time
    /// counted from then (the server's delay is not the seat's), up to `latest`, the table's
    /// whole window. Only the first such word counts (a seat's second stream is no later).
    pub fn written(&mut self, seat: Seat, at: Duration, latest: Duration) {
        let Some(a) = self
            .asked
            .iter_mut()
            .find(|a| a.seat == seat && a.answer == Answer::Waiting && a.written.is_none())
        else {
            return;
        };
        let late = at.saturating_sub(self.opened);
        if late.is_zero() {
            return;
        }
        a.written = Some(at);
        a.closes = a.closes.saturating_add(late).min(latest.max(a.closes));
    }

    /// How long each seat that answered (or ran out of time) took: from when its prompt was
    /// written (its own time), and from the window's opening (what the game waited).
    pub(super) fn answer_times(&self) -> impl Iterator<Item = (Seat, Duration, Duration)> + '_ {
        self.asked.iter().filter_map(|a| {
            let at = a.at?;
            Some((
                a.seat,
                at.saturating_sub(a.written.unwrap_or(self.opened)),
                at.saturating_sub(self.opened),
            ))
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    const CALZA: Action = Action::Calza;

    #[test]
    fn the_first_caller_in_play_order_wins_whoever_answered_first() {
        let mut w = open(&[3, 0, 1]);
        // Seat 1 calls first in time, but seats 3 and 0 come before it in play order.
        w.call(1, CALZA, ms(1));
        assert_eq!(w.decide(), Decision::Waiting);
        w.call(0, CALZA, ms(2));
        assert_eq!(w.decide(), Decision::Waiting);
        w.pass(3, ms(3));
        assert_eq!(w.decide(), Decision::Call(0, CALZA));
    }

    #[test]
    fn with_no_call_the_held_move_is_played_once_all_have_answered_or_time_is_up() {
        let mut w = open(&[2, 3]);
        let raise = Action::Accept;
        w.hold(1, raise.clone());
        assert!(w.holds(1));
        w.pass(2, ms(1));
        assert_eq!(w.decide(), Decision::Waiting);
        assert_eq!(w.time_up(ms(2_999)), (vec![], vec![]));
        assert_eq!(w.decide(), Decision::Waiting);
        assert_eq!(w.time_up(ms(3_000)), (vec![3], vec![]));
        assert!(w.answered(2) && !w.answered(3) && w.asked(3));
        assert_eq!(w.decide(), Decision::Closed(Some((1, raise.clone()))));
        assert_eq!(w.close(), Some((1, raise)));
        assert!(!w.is_open() && !w.waits_for(3));
    }

    #[test]
    fn an_answer_is_given_once() {
        let mut w = open(&[2]);
        w.pass(2, ms(1));
        w.call(2, CALZA, ms(2));
        assert_eq!(w.decide(), Decision::Closed(None));
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A window opened at 0 asking `seats` for the whole of 3 s.
    fn open(seats: &[Seat]) -> CallWindow {
        CallWindow::open(seats.iter().map(|&s| (s, ms(3_000), true)), ms(0))
    }

    #[test]
    fn a_shortened_time_runs_out_first_and_is_not_a_lapse() {
        let mut w = CallWindow::open([(1, ms(40), false), (2, ms(1_000), true)], ms(0));
        assert_eq!(w.closes(), Some(ms(40)));
        assert_eq!(w.time_up(ms(40)), (vec![], vec![1]));
        assert!(!w.waits_for(1) && w.waits_for(2));
        assert_eq!(w.closes(), Some(ms(1_000)));
    }

    /// A prompt the server handed to the seat's stream late moves the seat's closing time
    /// on by as much (never past the whole window), and its answer is charged from then: a
    /// bot answering in a millisecond is not cut short by the server's own delay.
    #[test]
    fn a_prompt_written_late_moves_the_seats_time_on_and_charges_it_from_then() {
        let mut w = CallWindow::open([(1, ms(25), false), (2, ms(1_000), true)], ms(0));
        w.written(1, ms(60), ms(1_000));
        assert_eq!(w.closes_for(1), Some(ms(85)));
        assert_eq!(w.time_up(ms(61)), (vec![], vec![]), "not cut short before it could answer");
        w.pass(1, ms(61));
        let times: Vec<_> = w.answer_times().collect();
        assert_eq!(times, vec![(1, ms(1), ms(61))], "its own millisecond, and the game's wait");
        // The whole window is the bound, and a second word for the same seat changes nothing.
        let mut w = CallWindow::open([(1, ms(900), false)], ms(0));
        w.written(1, ms(500), ms(1_000));
        assert_eq!(w.closes_for(1), Some(ms(1_000)));
        w.written(1, ms(800), ms(1_000));
        assert_eq!(w.closes_for(1), Some(ms(1_000)));
    }
}
