//! How long each seat may keep a game waiting in the call windows (ladder tables): the one
//! policy `window`'s windows ask how long a seat is asked for.

use std::time::Duration;

use dudo_rules::Seat;

use super::window::CallWindow;

/// How long each seat may keep a game waiting in call windows (ladder tables).
///
/// A window waits for every seat asked, so one seat that never answers, or answers at the
/// last moment, would hold every claim for the whole window. Each seat has two allowances:
/// its own, its mean move time for each window it has been asked in (its answers so far
/// deducted), so a seat on a slow link answers as often as a quick one
/// and an honest seat is never cut short by another; and the table's, shared by every seat:
/// the windows may wait, in all, as long as the rest of the game has taken (at least
/// [`PATIENCE_FLOOR`]). A seat past both is asked with what is left, or not at all. A seat
/// that stalls windows (or several taking turns) makes a game at most about twice as long
/// as without, not the window's length per claim.
#[derive(Clone, Debug, Default)]
pub struct Patience {
    /// When the game began (monotonic).
    began: Duration,
    /// How long the game's windows waited on network seats, in all (each window's slowest
    /// answer).
    waited: Duration,
    /// Per seat: how long its answers in windows took this game.
    kept: Vec<Duration>,
    /// Per seat: the windows it was asked in this game.
    asked: Vec<u32>,
    /// Per seat: its moves this game, and how long they took from being asked to moving.
    moves: Vec<(u32, Duration)>,
}

/// What the windows may wait, in all, however fast the game has been.
pub const PATIENCE_FLOOR: Duration = Duration::from_millis(25);

impl Patience {
    /// A new game of `seats` begins at `now`.
    pub fn begin(&mut self, seats: usize, now: Duration) {
        *self = Patience {
            began: now,
            waited: Duration::ZERO,
            kept: vec![Duration::ZERO; seats],
            asked: vec![0; seats],
            moves: vec![(0, Duration::ZERO); seats],
        };
    }

    /// How long `seat` may be waited on in a window opening `now`. `even`: every seat alike,
    /// the table's shared allowance only (a tournament's deal is played in rotation, and a
    /// seat's own allowance would give a slow seat longer windows than a quick one).
    pub fn allows(&self, seat: Seat, now: Duration, even: bool) -> Duration {
        let kept = self.kept.get(seat).copied().unwrap_or_default();
        let own = match (self.moves.get(seat), self.asked.get(seat)) {
            _ if even => Duration::ZERO,
            (Some(&(moves, took)), Some(&asked)) if moves > 0 => (took / moves).saturating_mul(asked + 1),
            _ => Duration::ZERO,
        };
        let rest = now.saturating_sub(self.began).saturating_sub(self.waited);
        let shared = rest.max(PATIENCE_FLOOR).saturating_sub(self.waited);
        own.saturating_sub(kept).max(shared)
    }

    /// `seat` is asked in a window.
    pub fn asked(&mut self, seat: Seat) {
        if let Some(asked) = self.asked.get_mut(seat) {
            *asked += 1;
        }
    }

    /// `seat` moved, `took` after it was asked to.
    pub fn moved(&mut self, seat: Seat, took: Duration) {
        if let Some((moves, total)) = self.moves.get_mut(seat) {
            *moves += 1;
            *total += took;
        }
    }

    /// A window decided: each seat is charged the time its answer took (from when its
    /// prompt reached its stream), and the table what the game waited (from the opening,
    /// for the slowest): the shared allowance bounds the game's real length.
    pub fn charge(&mut self, window: &CallWindow) {
        let mut slowest = Duration::ZERO;
        for (seat, took, waited) in window.answer_times() {
            if let Some(kept) = self.kept.get_mut(seat) {
                *kept += took;
            }
            slowest = slowest.max(waited);
        }
        self.waited += slowest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn every_seat_is_charged_its_own_answer_time_and_the_table_the_slowest() {
        let mut patience = Patience::default();
        patience.begin(4, ms(0));
        let mut w =
            CallWindow::open([(1, ms(3_000), true), (2, ms(3_000), true), (3, ms(3_000), true)], ms(100));
        w.pass(1, ms(101));
        w.pass(3, ms(103));
        w.pass(2, ms(900));
        patience.charge(&w);
        assert_eq!(patience.kept, vec![ms(0), ms(1), ms(800), ms(3)]);
        assert_eq!(patience.waited, ms(800));
    }

    #[test]
    fn the_windows_wait_in_all_for_what_the_rest_of_the_game_took() {
        let mut patience = Patience::default();
        patience.begin(4, ms(0));
        // At the start: the floor.
        assert_eq!(patience.allows(0, ms(0), false), PATIENCE_FLOOR);
        // 1 s in, 400 ms of it in windows: they may wait 600 - 400 more, for any seat.
        patience.waited = ms(400);
        patience.kept[1] = ms(400);
        assert_eq!(patience.allows(0, ms(1_000), false), ms(200));
        assert_eq!(patience.allows(1, ms(1_000), false), ms(200));
        assert_eq!(patience.allows(0, ms(800), false), ms(0));
    }

    #[test]
    fn a_seat_is_always_given_its_mean_move_per_window() {
        let mut patience = Patience::default();
        patience.begin(4, ms(0));
        patience.waited = ms(10_000);
        // Its moves took 150 ms each: each window it is asked in may wait on it as long,
        // whatever the others have taken of the table's patience.
        patience.moved(0, ms(200));
        patience.moved(0, ms(100));
        for _ in 0..4 {
            patience.asked(0);
        }
        patience.kept[0] = ms(400);
        assert_eq!(patience.allows(0, ms(800), false), ms(5 * 150 - 400));
        // Evenly (a tournament's): only what the table's shared allowance leaves, for all.
        assert_eq!(patience.allows(0, ms(800), true), ms(0));
    }
}
