//! Time at a table: the moment an input happens, and the turn clock.
//!
//! The table's core never reads a clock: each input comes with a [`Now`], so recovery
//! replays a journal at the times it was written and tests drive time by hand.

use std::time::Duration;

use dudo_rules::Seat;

/// When something happens: wall-clock time for records and deadlines people read, and a
/// monotonic reading for the turn clock (which a wall-clock jump must not cheat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Now {
    /// Unix time, milliseconds.
    pub wall: i64,
    /// Monotonic time since the table's task began.
    pub mono: Duration,
}

impl Now {
    /// A journal entry's time: recovery has no monotonic reading, and needs none (the clock
    /// restarts when the table is back).
    pub fn at(wall: i64) -> Now {
        Now { wall, mono: Duration::ZERO }
    }

    /// The wall-clock time of a monotonic `moment`, in Unix milliseconds: counted from the
    /// wall time of the table's monotonic zero, so the same moment is the same millisecond
    /// whenever it is asked (a prompt sent again says the very deadline it said first).
    pub fn wall_at(&self, moment: Duration) -> u64 {
        let ms = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let zero = self.wall.saturating_sub(ms(self.mono));
        u64::try_from(zero.saturating_add(ms(moment))).unwrap_or(0)
    }
}

/// A table's turn clock: time per move, and a bank per seat spent on moves that took longer.
#[derive(Clone, Debug)]
pub struct Clock {
    pub per_move: Duration,
    pub bank: Duration,
    /// What each seat has left of its bank (seats not listed have a full one).
    banks: Vec<Duration>,
    /// Whose move is being timed, and since when.
    timing: Option<(Seat, Duration)>,
    /// Whether the seat being timed has been told its time is running low.
    warned: bool,
    /// Play waits (a pause, the moment after a showdown): the seat that was being timed, and
    /// how long it had used.
    frozen: Option<(Seat, Duration)>,
}

/// The most time left at which a seat is warned its clock is running low.
const WARN_BEFORE: Duration = Duration::from_secs(10);

impl Clock {
    pub fn new(per_move: Duration, bank: Duration) -> Clock {
        Clock { per_move, bank, banks: Vec::new(), timing: None, warned: false, frozen: None }
    }

    pub fn bank_of(&self, seat: Seat) -> Duration {
        self.banks.get(seat).copied().unwrap_or(self.bank)
    }

    fn set_bank(&mut self, seat: Seat, left: Duration) {
        if self.banks.len() <= seat {
            let fresh = self.bank;
            self.banks.resize(seat + 1, fresh);
        }
        self.banks[seat] = left;
    }

    /// Every seat's bank, for the journal (`seats` at least).
    pub fn banks(&self, seats: usize) -> Vec<Duration> {
        (0..seats.max(self.banks.len())).map(|s| self.bank_of(s)).collect()
    }

    /// The banks as the journal last recorded them.
    pub fn restore(&mut self, banks: Vec<Duration>) {
        self.banks = banks;
    }

    /// The seat whose move is being timed.
    pub fn timing(&self) -> Option<Seat> {
        self.timing.map(|(seat, _)| seat)
    }

    /// When the clock runs out for the seat it is timing (monotonic).
    pub fn deadline(&self) -> Option<Duration> {
        let (seat, since) = self.timing?;
        Some(since + self.per_move + self.bank_of(seat))
    }

    /// When the seat being timed is warned that its time is running low (monotonic): when a
    /// quarter of its time is left, or 10 s, whichever is less; none once it has been.
    pub fn warning(&self) -> Option<Duration> {
        let (seat, _) = self.timing.filter(|_| !self.warned)?;
        let whole = self.per_move + self.bank_of(seat);
        Some(self.deadline()?.saturating_sub(WARN_BEFORE.min(whole / 4)))
    }

    /// The seat being timed has been warned (until the next move).
    pub fn warned(&mut self) {
        self.warned = true;
    }

    /// A move was made: the seat that was timed spends its bank by what it used past its
    /// move time, and `next` (a person whose turn it is, if any) is timed from `now`.
    pub fn restart(&mut self, next: Option<Seat>, now: Duration) {
        if let Some((seat, since)) = self.timing {
            let over = now.saturating_sub(since).saturating_sub(self.per_move);
            let left = self.bank_of(seat).saturating_sub(over);
            self.set_bank(seat, left);
        }
        self.timing = next.map(|s| (s, now));
        self.warned = false;
    }

    /// Play waits from `now`: nobody's time runs, and the seat being timed keeps what it had
    /// used for when play goes on.
    pub fn freeze(&mut self, now: Duration) {
        if let Some((seat, since)) = self.timing.take() {
            self.frozen = Some((seat, now.saturating_sub(since)));
        }
    }

    /// Play goes on at `now`: the seat that was being timed is timed again, from what it had
    /// used.
    pub fn thaw(&mut self, now: Duration) {
        if let Some((seat, used)) = self.frozen.take() {
            self.timing = Some((seat, now.saturating_sub(used)));
        }
    }

    /// The seat ran out of time: its bank is spent and nobody is timed until the next move.
    pub fn ran_out(&mut self, seat: Seat) {
        self.set_bank(seat, Duration::ZERO);
        self.timing = None;
    }

    /// Nobody is timed until the next move (the timed seat had no move to play for it).
    pub fn stop(&mut self) {
        self.timing = None;
    }

    /// A new game: full banks, nobody timed.
    pub fn reset(&mut self) {
        self.banks.clear();
        self.timing = None;
        self.frozen = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_is_the_same_millisecond_whenever_it_is_asked() {
        let zero = 1_700_000_000_000;
        let at = |mono: Duration| Now { wall: zero + i64::try_from(mono.as_millis()).unwrap(), mono };
        let deadline = Duration::from_micros(3_000_600);
        let asked: Vec<u64> = [0, 400, 999, 1_000_401, 2_999_999]
            .iter()
            .map(|&us| at(Duration::from_micros(us)).wall_at(deadline))
            .collect();
        assert!(asked.iter().all(|&w| w == asked[0]), "{asked:?}");
    }

    #[test]
    fn a_slow_move_spends_the_bank_and_a_time_out_empties_it() {
        let s = Duration::from_secs;
        let mut clock = Clock::new(s(10), s(30));
        clock.restart(Some(0), s(0));
        assert_eq!(clock.deadline(), Some(s(40)));
        // Warned 10 s before the end (a quarter of 40 s is more), once.
        assert_eq!(clock.warning(), Some(s(30)));
        clock.warned();
        assert_eq!(clock.warning(), None);
        // Seat 0 took 25 s: 15 s past its move time come out of its bank.
        clock.restart(Some(1), s(25));
        assert_eq!(clock.bank_of(0), s(15));
        assert_eq!(clock.deadline(), Some(s(25 + 10 + 30)));
        assert_eq!(clock.warning(), Some(s(25 + 10 + 30 - 10)), "each move is warned afresh");
        // A short clock warns a quarter of its time before the end.
        let mut short = Clock::new(s(4), Duration::ZERO);
        short.restart(Some(0), s(0));
        assert_eq!(short.warning(), Some(s(3)));
        clock.ran_out(1);
        assert_eq!(clock.bank_of(1), Duration::ZERO);
        assert_eq!(clock.deadline(), None);
        clock.reset();
        assert_eq!(clock.bank_of(0), s(30));
    }
}
