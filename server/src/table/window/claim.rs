//! One claim's call window: the seats asked, each until its own time, what each answered,
//! the move held for the seat whose turn it is, and what the window decides. `CallWindows`
//! (the module above) opens them and keeps what the table remembers between them.

use std::time::Duration;

use dudo_rules::{Action, Seat};

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
    pub(in crate::table) fn answer_times(&self) -> impl Iterator<Item = (Seat, Duration, Duration)> + '_ {
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
