//! What "one address" is for every per-address limit: an IPv4 address, or an IPv6 /64.
//!
//! An IPv6 host is usually given a whole /64 and may take any address in it, so counting
//! IPv6 addresses one by one would give one machine 2^64 shares of every limit. Every
//! per-address limit counts [`of`] the client's address: the connection gate as it accepts
//! (connections, their rate, memory shares), the call gate (calls and stream opens a second),
//! and the services (`services::client_ip`: tables, streams, chat, leaves, registrations).
//! A connection itself is still known by its own address and port. An
//! IPv4 address written as IPv6 (`::ffff:a.b.c.d`, a dual-stack listener's form) is the IPv4
//! address. [`Refused`] remembers the addresses those limits refused lately.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The address `ip` is counted as.
pub fn of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
    }
}

/// How long after a refusal an address counts as being refused.
pub const REFUSED_LATELY: Duration = Duration::from_secs(10);
/// Addresses remembered at once; past it, those refused longest ago are forgotten.
const MOST_REFUSED: usize = 65_536;

/// The addresses a per-address limit refused lately (a connection past the cap or the
/// opening rate, a call or stream open past its rate, a stream past the address's): a
/// game-night table does not take a player out while their address is being refused, for
/// their reconnects may be among those refused (a household's or a campus's address, shared
/// with someone holding every connection it may have).
#[derive(Clone, Default)]
pub struct Refused(Arc<Mutex<HashMap<IpAddr, Instant>>>);

impl Refused {
    /// `ip` (as counted) was refused now.
    pub fn note(&self, ip: IpAddr) {
        let Ok(mut refused) = self.0.lock() else { return };
        let now = Instant::now();
        if refused.len() >= MOST_REFUSED && !refused.contains_key(&ip) {
            refused.retain(|_, at| now.duration_since(*at) < REFUSED_LATELY);
            if refused.len() >= MOST_REFUSED {
                return;
            }
        }
        refused.insert(ip, now);
    }

    /// Whether `ip` was refused within [`REFUSED_LATELY`].
    pub fn lately(&self, ip: IpAddr) -> bool {
        self.0.lock().is_ok_and(|r| r.get(&ip).is_some_and(|at| at.elapsed() < REFUSED_LATELY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_64_is_one_address_and_ipv4_is_itself() {
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let same: IpAddr = "2001:db8:1:2:ffff:ffff:ffff:ffff".parse().unwrap();
        let next: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(of(one), of(same));
        assert_eq!(of(one), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        assert_ne!(of(one), of(next));
        let v4: IpAddr = "203.0.113.7".parse().unwrap();
        assert_eq!(of(v4), v4);
        assert_eq!(of("::ffff:203.0.113.7".parse().unwrap()), v4);
        assert_eq!(of("::1".parse().unwrap()), "::".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn an_address_refused_lately_is_known_and_others_are_not() {
        let refused = Refused::default();
        let (a, b): (IpAddr, IpAddr) = ("203.0.113.7".parse().unwrap(), "203.0.113.8".parse().unwrap());
        refused.note(a);
        assert!(refused.lately(a) && !refused.lately(b));
    }
}
