//! How fast connections may be opened: new connections a second from one address, and from
//! every address together, checked as each is accepted, before its TLS handshake or anything
//! else of it is read. One captured ClientHello replayed by four processes made 6,450
//! handshakes a second (the server's CPU 9% → 122%, everyone else's p99 tripled); past the
//! rate a connection is closed at once, unread, and costs the server an accept.
//!
//! Each rate is a token bucket holding two seconds' worth, so a client that opens its few
//! connections at once (a browser, a load balancer's pool) is never held up.
//!
//! The call gate keeps two more of these per address: calls a second, and stream opens a
//! second (see `call_gate`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The most addresses remembered at once; past it, the buckets of addresses quiet long
/// enough to be full again are forgotten (they would admit the same).
const MOST_ADDRESSES: usize = 65_536;

pub struct OpeningRate {
    /// New connections a second from one address (0: no limit).
    per_address: u32,
    /// New connections a second from every address together (0: no limit).
    all: u32,
    buckets: Mutex<Buckets>,
}

#[derive(Default)]
struct Buckets {
    addresses: HashMap<IpAddr, Bucket>,
    all: Option<Bucket>,
}

#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(rate: u32, now: Instant) -> Bucket {
        Bucket { tokens: burst(rate), at: now }
    }

    /// Refilled to `now`; takes a token if there is one.
    fn take(&mut self, rate: u32, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * f64::from(rate)).min(burst(rate));
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return true;
        }
        false
    }

    /// Whether it would be full again by `now` (forgetting it admits the same).
    fn refilled(&self, rate: u32, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens + elapsed * f64::from(rate) >= burst(rate)
    }
}

/// Two seconds' worth, and never less than one.
fn burst(rate: u32) -> f64 {
    (2.0 * f64::from(rate)).max(1.0)
}

impl OpeningRate {
    pub fn new(per_address: u32, all: u32) -> OpeningRate {
        OpeningRate { per_address, all, buckets: Mutex::default() }
    }

    /// The rate for one address (0: none).
    pub fn per_address(&self) -> u32 {
        self.per_address
    }

    /// The rates a node's limits set.
    pub fn of(limits: &crate::limits::Limits) -> OpeningRate {
        OpeningRate::new(limits.connections_per_second_per_ip, limits.connections_per_second)
    }

    /// Whether a connection just accepted from `ip` may go on to its opening (one refused is
    /// counted in `dudo_connections_refused_total{why="rate"}`).
    pub fn admit(&self, ip: IpAddr, now: Instant) -> bool {
        let admitted = self.take(ip, now);
        if !admitted {
            metrics::counter!("dudo_connections_refused_total", "why" => "rate").increment(1);
        }
        admitted
    }

    /// The address's own rate first: a connection it refuses takes nothing from everyone's,
    /// so one address flooding cannot spend the others' share.
    fn take(&self, ip: IpAddr, now: Instant) -> bool {
        let Ok(mut buckets) = self.buckets.lock() else { return true };
        if self.per_address > 0 {
            let rate = self.per_address;
            if buckets.addresses.len() >= MOST_ADDRESSES && !buckets.addresses.contains_key(&ip) {
                buckets.addresses.retain(|_, b| !b.refilled(rate, now));
            }
            if !buckets.addresses.entry(ip).or_insert_with(|| Bucket::full(rate, now)).take(rate, now) {
                return false;
            }
        }
        if self.all > 0 {
            let all = buckets.all.get_or_insert_with(|| Bucket::full(self.all, now));
            return all.take(self.all, now);
        }
        true
    }

    /// Takes one from `ip`'s bucket (and everyone's); how long until it has one if not.
    pub fn allow(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        match self.take(ip, now) {
            true => Ok(()),
            false => Err(self.wait_for(ip, now)),
        }
    }

    /// How long until a connection from `ip` would be admitted again (for logs and tests).
    pub fn wait_for(&self, ip: IpAddr, now: Instant) -> Duration {
        let Ok(buckets) = self.buckets.lock() else { return Duration::ZERO };
        match buckets.addresses.get(&ip) {
            Some(b) if self.per_address > 0 => {
                let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
                let missing = (1.0 - (b.tokens + elapsed * f64::from(self.per_address))).max(0.0);
                Duration::from_secs_f64(missing / f64::from(self.per_address))
            }
            _ => Duration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_opens_two_seconds_worth_at_once_then_at_its_rate_and_others_are_not_held_up() {
        let rate = OpeningRate::new(10, 0);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let now = Instant::now();
        let admitted = (0..100).filter(|_| rate.admit(a, now)).count();
        assert_eq!(admitted, 20, "a burst of two seconds' worth");
        assert!(rate.admit(b, now), "another address has its own");
        assert!(rate.wait_for(a, now) > Duration::ZERO);
        let later = now + Duration::from_millis(500);
        let admitted = (0..100).filter(|_| rate.admit(a, later)).count();
        assert_eq!(admitted, 5, "half a second at ten a second");
    }

    #[test]
    fn every_address_together_is_held_to_its_own_rate() {
        let rate = OpeningRate::new(0, 5);
        let now = Instant::now();
        let admitted = (0..50u8).filter(|i| rate.admit(IpAddr::from([10, 0, 0, *i]), now)).count();
        assert_eq!(admitted, 10);
    }

    #[test]
    fn one_address_flooding_does_not_spend_everyone_elses_share() {
        let rate = OpeningRate::new(10, 100);
        let (flood, other): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let now = Instant::now();
        let admitted = (0..10_000).filter(|_| rate.admit(flood, now)).count();
        assert_eq!(admitted, 20, "its own burst");
        let others = (0..100).filter(|_| rate.admit(other, now)).count();
        assert_eq!(others, 20, "another address still has its own burst, the total untouched");
    }
}
