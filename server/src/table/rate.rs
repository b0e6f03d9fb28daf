//! Calls per seat: a token bucket each, `rate` calls a second with bursts of twice that.

use std::time::Duration;

use dudo_rules::Seat;

use super::error::TableError;

pub struct RateLimit {
    per_second: u32,
    /// Each seat's tokens left, and when they were last counted (monotonic).
    buckets: Vec<(f64, Duration)>,
}

impl RateLimit {
    pub fn new(per_second: u32) -> RateLimit {
        RateLimit { per_second, buckets: Vec::new() }
    }

    /// Takes one call from `seat`'s bucket, or says when the next is allowed.
    pub fn take(&mut self, seat: Seat, now: Duration) -> Result<(), TableError> {
        let rate = f64::from(self.per_second.max(1));
        if self.buckets.len() <= seat {
            self.buckets.resize(seat + 1, (rate * 2.0, now));
        }
        let (tokens, last) = &mut self.buckets[seat];
        *tokens = (*tokens + now.saturating_sub(*last).as_secs_f64() * rate).min(rate * 2.0);
        *last = now;
        if *tokens < 1.0 {
            let wait = ((1.0 - *tokens) / rate * 1000.0).ceil();
            return Err(TableError::RateLimited {
                per_second: self.per_second,
                retry_after_millis: wait as u64,
            });
        }
        *tokens -= 1.0;
        Ok(())
    }

    /// Seats are renumbered: every bucket starts full.
    pub fn reset(&mut self) {
        self.buckets.clear();
    }
}
