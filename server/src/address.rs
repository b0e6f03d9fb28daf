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
/// with someone holding every connection it may have). A cluster's nodes tell each other
/// theirs (`share_refused` in the store), so a player whose reconnects one node refuses is
/// not taken out by the node that holds their table.
#[derive(Clone, Default)]
pub struct Refused(Arc<Mutex<Lately>>);

#[derive(Default)]
struct Lately {
    /// Until when each address counts as refused.
    until: HashMap<IpAddr, Instant>,
    /// Addresses this node refused since it last told the cluster (each once).
    untold: Vec<IpAddr>,
    /// When this node last told the cluster of each (told again a second on, while it is
    /// still refused, so the cluster's word never runs out while the refusals go on).
    told: HashMap<IpAddr, Instant>,
    /// Addresses a table asked about lately (its away seats'), and when: what this node asks
    /// the cluster about, so addresses refused elsewhere in a flood cannot crowd them out.
    asked: HashMap<IpAddr, Instant>,
}

impl Refused {
    /// `ip` (as counted) was refused now.
    pub fn note(&self, ip: IpAddr) {
        let Ok(mut lately) = self.0.lock() else { return };
        let now = Instant::now();
        let told = lately.told.get(&ip).is_some_and(|&at| now.duration_since(at) < TELL_AGAIN);
        if lately.remember(ip, now + REFUSED_LATELY) && !told && lately.untold.len() < MOST_UNTOLD {
            lately.untold.push(ip);
            if lately.told.len() >= MOST_REFUSED {
                lately.told.retain(|_, at| now.duration_since(*at) < TELL_AGAIN);
            }
            lately.told.insert(ip, now);
        }
    }

    /// Another node refused `ip`: it counts as refused for `left` more.
    pub fn heard(&self, ip: IpAddr, left: Duration) {
        let Ok(mut lately) = self.0.lock() else { return };
        let until = Instant::now() + left.min(REFUSED_LATELY);
        lately.remember(ip, until);
    }

    /// The addresses refused here since the last asking, to tell the cluster.
    pub fn untold(&self) -> Vec<IpAddr> {
        self.0.lock().map(|mut lately| std::mem::take(&mut lately.untold)).unwrap_or_default()
    }

    /// The addresses tables asked about within [`REFUSED_LATELY`], the latest first, at most
    /// `most`: to ask the cluster whether another node refused them.
    pub fn asked(&self, most: usize) -> Vec<IpAddr> {
        let Ok(mut lately) = self.0.lock() else { return Vec::new() };
        let now = Instant::now();
        lately.asked.retain(|_, at| now.duration_since(*at) < REFUSED_LATELY);
        let mut asked: Vec<(IpAddr, Instant)> = lately.asked.iter().map(|(ip, at)| (*ip, *at)).collect();
        asked.sort_by_key(|&(_, at)| std::cmp::Reverse(at));
        asked.into_iter().take(most).map(|(ip, _)| ip).collect()
    }

    /// Whether `ip` (an away seat's address) was refused within [`REFUSED_LATELY`], here or
    /// at another node; the cluster is asked about it from now on.
    pub fn lately(&self, ip: IpAddr) -> bool {
        let Ok(mut lately) = self.0.lock() else { return false };
        let now = Instant::now();
        if lately.asked.len() < MOST_REFUSED || lately.asked.contains_key(&ip) {
            lately.asked.insert(ip, now);
        }
        lately.until.get(&ip).is_some_and(|&until| until > now)
    }
}

/// How soon an address still being refused is told to the cluster again.
const TELL_AGAIN: Duration = Duration::from_secs(1);
/// Addresses refused here that wait to be told to the cluster at once (its next heartbeat
/// tells them); past it, the rest wait for the heartbeat after.
const MOST_UNTOLD: usize = 1024;

impl Lately {
    /// `ip` counts as refused until `until` (or later, if it already did); false if there is
    /// no room to remember it.
    fn remember(&mut self, ip: IpAddr, until: Instant) -> bool {
        let now = Instant::now();
        if self.until.len() >= MOST_REFUSED && !self.until.contains_key(&ip) {
            self.until.retain(|_, until| *until > now);
            if self.until.len() >= MOST_REFUSED {
                return false;
            }
        }
        let at = self.until.entry(ip).or_insert(until);
        *at = (*at).max(until);
        true
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
        // Told to the cluster once a second at most, however often it is refused meanwhile,
        // and told again while the refusals go on.
        refused.note(a);
        assert_eq!(refused.untold(), vec![a]);
        refused.note(a);
        assert!(refused.untold().is_empty());
        refused.0.lock().unwrap().told.insert(a, Instant::now() - TELL_AGAIN);
        refused.note(a);
        assert_eq!(refused.untold(), vec![a]);
        // Another node's refusal counts here for as long as it has left, never past its own.
        refused.heard(b, Duration::from_millis(50));
        assert!(refused.lately(b));
        std::thread::sleep(Duration::from_millis(60));
        assert!(!refused.lately(b) && refused.untold().is_empty());
        refused.heard(b, Duration::from_secs(3600));
        assert!(refused.0.lock().unwrap().until[&b] <= Instant::now() + REFUSED_LATELY);
    }
}
