//! Calls out of turn, made fair: the call window.
//!
//! Some rules let seats other than the next one call on a claim (Calza by the others, the
//! out-of-sequence challenges of the encyclopedia article). If the first call to arrive won, a fast
//! connection would beat a slow one, and a bot that answers at once would beat everyone.
//! Instead, after each claim every such seat is asked at once and answers (a call, or a
//! pass); the table moves on when each has answered or the window closes. If several call,
//! the first in play order from the claimant wins, as `dudo simulate` decides. The seat
//! whose turn it is may move meanwhile: its move is held, and played only if nobody called.

use std::time::Duration;

use dudo_rules::{Action, Seat};

/// What a seat asked in the window has answered.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Waiting,
    Passed,
    Called(Action),
}

/// One claim's window.
#[derive(Clone, Debug)]
pub struct CallWindow {
    /// When it closes (monotonic); what has not been answered by then is a pass.
    pub closes: Duration,
    /// The seats asked, in play order from the claimant, and their answers.
    asked: Vec<(Seat, Answer)>,
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
    /// A window asking `asked` (in play order from the claimant) until `closes`.
    pub fn open(asked: impl IntoIterator<Item = Seat>, closes: Duration) -> CallWindow {
        let asked = asked.into_iter().map(|s| (s, Answer::Waiting)).collect();
        CallWindow { closes, asked, held: None, closed: false }
    }

    pub fn is_open(&self) -> bool {
        !self.closed
    }

    /// Whether `seat` was asked and has not answered yet.
    pub fn waits_for(&self, seat: Seat) -> bool {
        !self.closed && self.asked.iter().any(|(s, a)| *s == seat && *a == Answer::Waiting)
    }

    /// The seats asked that have not answered yet.
    pub fn waiting(&self) -> impl Iterator<Item = Seat> + '_ {
        self.asked.iter().filter(|(_, a)| !self.closed && *a == Answer::Waiting).map(|(s, _)| *s)
    }

    /// Whether `seat` was asked in this window (answered or not).
    pub fn asked(&self, seat: Seat) -> bool {
        self.asked.iter().any(|(s, _)| *s == seat)
    }

    /// Whether the move of `seat` (whose turn it is) is held.
    pub fn holds(&self, seat: Seat) -> bool {
        self.held.as_ref().is_some_and(|(s, _)| *s == seat)
    }

    /// `seat` calls.
    pub fn call(&mut self, seat: Seat, action: Action) {
        self.answer(seat, Answer::Called(action));
    }

    /// `seat` lets the claim pass.
    pub fn pass(&mut self, seat: Seat) {
        self.answer(seat, Answer::Passed);
    }

    fn answer(&mut self, seat: Seat, answer: Answer) {
        if let Some((_, a)) = self.asked.iter_mut().find(|(s, a)| *s == seat && *a == Answer::Waiting) {
            *a = answer;
        }
    }

    /// The move of the seat whose turn it is, played if nobody calls.
    pub fn hold(&mut self, seat: Seat, action: Action) {
        self.held = Some((seat, action));
    }

    /// Time is up: whoever has not answered lets the claim pass.
    pub fn time_up(&mut self) {
        for (_, a) in &mut self.asked {
            if *a == Answer::Waiting {
                *a = Answer::Passed;
            }
        }
    }

    /// What the window decides now. A call wins as soon as every seat before it in play
    /// order has passed; with no call, the window closes once everyone has answered.
    pub fn decide(&self) -> Decision {
        for (seat, answer) in &self.asked {
            match answer {
                Answer::Waiting => return Decision::Waiting,
                Answer::Called(action) => return Decision::Call(*seat, action.clone()),
                Answer::Passed => {}
            }
        }
        Decision::Closed(self.held.clone())
    }

    /// The claim stands: the window takes no more calls, and lets go of the held move.
    pub fn close(&mut self) -> Option<(Seat, Action)> {
        self.closed = true;
        self.held.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALZA: Action = Action::Calza;

    #[test]
    fn the_first_caller_in_play_order_wins_whoever_answered_first() {
        let mut w = CallWindow::open([3, 0, 1], Duration::from_secs(3));
        // Seat 1 calls first in time, but seats 3 and 0 come before it in play order.
        w.call(1, CALZA);
        assert_eq!(w.decide(), Decision::Waiting);
        w.call(0, CALZA);
        assert_eq!(w.decide(), Decision::Waiting);
        w.pass(3);
        assert_eq!(w.decide(), Decision::Call(0, CALZA));
    }

    #[test]
    fn with_no_call_the_held_move_is_played_once_all_have_answered_or_time_is_up() {
        let mut w = CallWindow::open([2, 3], Duration::from_secs(3));
        let raise = Action::Accept;
        w.hold(1, raise.clone());
        assert!(w.holds(1));
        w.pass(2);
        assert_eq!(w.decide(), Decision::Waiting);
        w.time_up();
        assert_eq!(w.decide(), Decision::Closed(Some((1, raise.clone()))));
        assert_eq!(w.close(), Some((1, raise)));
        assert!(!w.is_open() && !w.waits_for(3));
    }

    #[test]
    fn an_answer_is_given_once() {
        let mut w = CallWindow::open([2], Duration::from_secs(3));
        w.pass(2);
        w.call(2, CALZA);
        assert_eq!(w.decide(), Decision::Closed(None));
    }
}
