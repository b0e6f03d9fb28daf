//! How fast a table may be driven.
//!
//! Two token buckets. Each seat has one sized for people (`per_seat` calls a second, bursts
//! of twice that): every call a seat makes that the table was not waiting for (out of turn,
//! refused, flooding) comes out of it. A move the table was waiting for, answering a prompt,
//! never touches it, so a bot that answers every prompt at once is never slowed by a limit
//! meant for people and can never stall its own game. Those moves come out of one bucket for
//! the whole table instead, sized to protect the server (`table` moves a second), which
//! only a table of programs playing flat out ever reaches.
//!
//! The same [`Allowance`] counts the table's talk (`talk`), the host's calls that change the
//! table without a move (pause, resume, mute, seat links: each is a journal entry) and the
//! node's talk per address.

use std::time::Duration;

use dudo_rules::Seat;

use super::error::TableError;

/// How fast something may be done: `burst` at once, then one every `every`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    pub burst: f64,
    pub every: Duration,
}

impl Pace {
    /// `rate` a second, bursts of twice that (the table's moves).
    pub fn per_second(rate: f64) -> Pace {
        Pace { burst: rate * 2.0, every: Duration::from_secs_f64(1.0 / rate) }
    }

    fn per_sec(self) -> f64 {
        1.0 / self.every.as_secs_f64()
    }
}

/// What is left of a [`Pace`]: the one token bucket the table's limits (moves, talk, the
/// host's calls) and the node's per-address talk are counted with.
#[derive(Clone, Copy, Debug)]
pub struct Allowance {
    left: f64,
    /// When it was last counted (monotonic).
    at: Duration,
}

impl Allowance {
    pub fn full(pace: Pace, at: Duration) -> Allowance {
        Allowance { left: pace.burst, at }
    }

    fn refill(&mut self, pace: Pace, now: Duration) {
        self.left = (self.left + now.saturating_sub(self.at).as_secs_f64() * pace.per_sec()).min(pace.burst);
        self.at = now;
    }

    /// Whether one is there now, or how long until there is one (milliseconds).
    fn ready(&mut self, pace: Pace, now: Duration) -> Result<(), u64> {
        self.refill(pace, now);
        if self.left < 1.0 {
            return Err(((1.0 - self.left) / pace.per_sec() * 1000.0).ceil().max(1.0) as u64);
        }
        Ok(())
    }

    /// Takes one if it is there; otherwise how long until it is (milliseconds).
    pub fn take(&mut self, pace: Pace, now: Duration) -> Result<(), u64> {
        self.ready(pace, now)?;
        self.left -= 1.0;
        Ok(())
    }

    /// Spends one even if none is left (it never goes below none).
    fn spend(&mut self, pace: Pace, now: Duration) {
        self.refill(pace, now);
        self.left = (self.left - 1.0).max(0.0);
    }

    /// Whether it has refilled to the whole burst by `now` (nothing left to remember).
    pub fn is_full(&self, pace: Pace, now: Duration) -> bool {
        let mut later = *self;
        later.refill(pace, now);
        later.left >= pace.burst
    }
}

/// Allowances kept by key (seats, addresses), at most `most` of them: past that, those that
/// have refilled are forgotten (they have nothing to remember), so a flood of keys cannot
/// grow the map; if none has, a new key is refused as if its allowance were spent.
#[derive(Debug)]
pub struct Allowances<K> {
    pace: Pace,
    most: usize,
    kept: std::collections::HashMap<K, Allowance>,
}

impl<K: std::hash::Hash + Eq> Allowances<K> {
    pub fn new(pace: Pace, most: usize) -> Allowances<K> {
        Allowances { pace, most, kept: std::collections::HashMap::new() }
    }

    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// Takes one of `key`'s, or says how long until it may (milliseconds).
    pub fn take(&mut self, key: K, now: Duration) -> Result<(), u64> {
        let pace = self.pace;
        if self.kept.len() >= self.most && !self.kept.contains_key(&key) {
            self.kept.retain(|_, a| !a.is_full(pace, now));
            if self.kept.len() >= self.most {
                return Err(pace.every.as_millis().try_into().unwrap_or(u64::MAX).max(1));
            }
        }
        self.kept.entry(key).or_insert_with(|| Allowance::full(pace, now)).take(pace, now)
    }

    /// Gives back the one `key` took (what it was for did not happen).
    pub fn give_back(&mut self, key: &K) {
        let burst = self.pace.burst;
        if let Some(a) = self.kept.get_mut(key) {
            a.left = (a.left + 1.0).min(burst);
        }
    }

    /// Every key starts again (seats renumbered).
    pub fn clear(&mut self) {
        self.kept.clear();
    }
}

pub struct RateLimit {
    per_seat: u32,
    table_rate: u32,
    seats: Vec<Allowance>,
    table: Option<Allowance>,
}

impl RateLimit {
    pub fn new(per_seat: u32, table: u32) -> RateLimit {
        RateLimit { per_seat: per_seat.max(1), table_rate: table.max(1), seats: Vec::new(), table: None }
    }

    fn seat(&mut self, seat: Seat, now: Duration) -> &mut Allowance {
        if self.seats.len() <= seat {
            self.seats.resize(seat + 1, Allowance::full(Pace::per_second(f64::from(self.per_seat)), now));
        }
        &mut self.seats[seat]
    }

    fn limited(per_second: u32) -> impl Fn(u64) -> TableError {
        move |wait| TableError::RateLimited { per_second, retry_after_millis: wait }
    }

    /// A call from `seat`; `awaited`: the table is waiting for this seat's move. An awaited
    /// call spends the table's budget, and is refused only while the seat has used up its
    /// own calls on refusals; any other call spends the seat's calls.
    pub fn check(&mut self, seat: Seat, awaited: bool, now: Duration) -> Result<(), TableError> {
        let per_seat = self.per_seat;
        let seat_pace = Pace::per_second(f64::from(per_seat));
        if !awaited {
            return self.seat(seat, now).take(seat_pace, now).map_err(Self::limited(per_seat));
        }
        self.seat(seat, now).ready(seat_pace, now).map_err(Self::limited(per_seat))?;
        let pace = Pace::per_second(f64::from(self.table_rate));
        let bucket = self.table.get_or_insert_with(|| Allowance::full(pace, now));
        bucket.take(pace, now).map_err(Self::limited(self.table_rate))
    }

    /// An awaited call was refused (a bad move): it spends the seat's calls after all.
    pub fn refused(&mut self, seat: Seat, now: Duration) {
        let pace = Pace::per_second(f64::from(self.per_seat));
        self.seat(seat, now).spend(pace, now);
    }

    /// Seats are renumbered: every seat's bucket starts full.
    pub fn reset(&mut self) {
        self.seats.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompted_moves_never_spend_a_seats_calls() {
        let mut rate = RateLimit::new(2, 1000);
        let t = Duration::from_millis;
        for i in 0..500 {
            assert!(rate.check(0, true, t(i)).is_ok(), "move {i}");
        }
        for _ in 0..4 {
            assert!(rate.check(0, false, t(500)).is_ok());
        }
        let Err(TableError::RateLimited { retry_after_millis, .. }) = rate.check(0, false, t(500)) else {
            panic!("a fifth call at once is refused")
        };
        assert_eq!(retry_after_millis, 500, "one call comes back every half second");
        assert!(rate.check(0, false, t(1000)).is_ok());
        // Refused moves spend the seat's calls even when awaited.
        for _ in 0..4 {
            rate.refused(1, t(1000));
        }
        assert!(rate.check(1, true, t(1000)).is_err());
        assert!(rate.check(1, true, t(1500)).is_ok());
    }
}
