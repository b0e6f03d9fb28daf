//! How fast a table may be driven.
//!
//! Two token buckets. Each seat has one sized for people (`per_seat` calls a second, bursts
//! of twice that): every call a seat makes that the table was not waiting for (out of turn,
//! refused, flooding) comes out of it. A move the table was waiting for, answering a prompt,
//! never touches it, so a bot that answers every prompt at once is never slowed by a limit
//! meant for people and can never stall its own game. Those moves come out of one bucket for
//! the whole table instead, sized to protect the server (`table` moves a second), which
//! only a table of programs playing flat out ever reaches.

use std::time::Duration;

use dudo_rules::Seat;

use super::error::TableError;

/// A token bucket: `rate` a second, bursts of twice that.
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    tokens: f64,
    /// When the tokens were last counted (monotonic).
    at: Duration,
}

impl Bucket {
    pub fn full(rate: f64, at: Duration) -> Bucket {
        Bucket { tokens: rate * 2.0, at }
    }

    fn refill(&mut self, rate: f64, now: Duration) {
        self.tokens = (self.tokens + now.saturating_sub(self.at).as_secs_f64() * rate).min(rate * 2.0);
        self.at = now;
    }

    /// Whether a token is there now, or how long until there is one (milliseconds).
    fn ready(&mut self, rate: f64, now: Duration) -> Result<(), u64> {
        self.refill(rate, now);
        if self.tokens < 1.0 {
            return Err(((1.0 - self.tokens) / rate * 1000.0).ceil().max(1.0) as u64);
        }
        Ok(())
    }

    /// Takes a token if one is there; otherwise how long until one is (milliseconds).
    pub fn take(&mut self, rate: f64, now: Duration) -> Result<(), u64> {
        self.ready(rate, now)?;
        self.tokens -= 1.0;
        Ok(())
    }
}

pub struct RateLimit {
    per_seat: u32,
    table_rate: u32,
    seats: Vec<Bucket>,
    table: Option<Bucket>,
}

impl RateLimit {
    pub fn new(per_seat: u32, table: u32) -> RateLimit {
        RateLimit { per_seat: per_seat.max(1), table_rate: table.max(1), seats: Vec::new(), table: None }
    }

    fn seat(&mut self, seat: Seat, now: Duration) -> &mut Bucket {
        if self.seats.len() <= seat {
            self.seats.resize(seat + 1, Bucket::full(f64::from(self.per_seat), now));
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
        let seat_rate = f64::from(per_seat);
        if !awaited {
            return self.seat(seat, now).take(seat_rate, now).map_err(Self::limited(per_seat));
        }
        self.seat(seat, now).ready(seat_rate, now).map_err(Self::limited(per_seat))?;
        let rate = f64::from(self.table_rate);
        let bucket = self.table.get_or_insert_with(|| Bucket::full(rate, now));
        bucket.take(rate, now).map_err(Self::limited(self.table_rate))
    }

    /// An awaited call was refused (a bad move): it spends the seat's calls after all.
    pub fn refused(&mut self, seat: Seat, now: Duration) {
        let rate = f64::from(self.per_seat);
        let bucket = self.seat(seat, now);
        bucket.refill(rate, now);
        bucket.tokens = (bucket.tokens - 1.0).max(0.0);
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
