//! What an address holds of the node's limits: the tables it made and the streams it reads,
//! counted when taken and given back when dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::table::rate::{Allowances, Pace};

/// Per-IP and per-connection counts, for the limits above.
#[derive(Default)]
pub(crate) struct PerIp {
    pub(crate) tables: HashMap<std::net::IpAddr, usize>,
    pub(crate) streams: HashMap<std::net::IpAddr, usize>,
    /// Open streams by peer address: an entry is removed at zero, as ports are not reused
    /// for long.
    pub(crate) connections: HashMap<std::net::SocketAddr, usize>,
    /// Chat lines each address may still say: lines from one address across all tables and
    /// seats (a seat's own limit is its table's).
    pub(crate) chat: Option<(std::time::Instant, Allowances<std::net::IpAddr>)>,
    /// Seats each address may still leave (Leave), across all tables.
    pub(crate) leaves: Option<(std::time::Instant, Allowances<std::net::IpAddr>)>,
}

/// Chat lines an address may say at once, then one every half second.
pub(crate) const CHAT_PACE: Pace = Pace { burst: 20.0, every: std::time::Duration::from_millis(500) };
/// Addresses counted at once (see [`Allowances`]).
const CHAT_ADDRESSES: usize = 10_000;

impl PerIp {
    /// One chat line from `ip` at `now`, or how long until it may say one (ms).
    pub(crate) fn chat_line(&mut self, ip: std::net::IpAddr, now: std::time::Instant) -> Result<(), u64> {
        let (epoch, chat) =
            self.chat.get_or_insert_with(|| (now, Allowances::new(CHAT_PACE, CHAT_ADDRESSES)));
        chat.take(ip, now.saturating_duration_since(*epoch))
    }
}

impl PerIp {
    /// One seat left from `ip` at `now`, `per_minute` allowed (as many at once), or
    /// how long until it may (ms).
    pub(crate) fn leave_seat(
        &mut self,
        ip: std::net::IpAddr,
        now: std::time::Instant,
        per_minute: u32,
    ) -> Result<(), u64> {
        let pace = Pace {
            burst: f64::from(per_minute.max(1)),
            every: std::time::Duration::from_secs(60) / per_minute.max(1),
        };
        let (epoch, changes) =
            self.leaves.get_or_insert_with(|| (now, Allowances::new(pace, CHAT_ADDRESSES)));
        changes.take(ip, now.saturating_duration_since(*epoch))
    }

    /// The leave `ip` was counted for did not happen (refused: no such table, no such seat).
    pub(crate) fn leave_not_made(&mut self, ip: std::net::IpAddr) {
        if let Some((_, changes)) = self.leaves.as_mut() {
            changes.give_back(&ip);
        }
    }
}

/// One of the tables an address may create, held by the table until it ends (or by a
/// creation until it is refused).
pub(crate) struct TablePlace {
    pub(crate) per_ip: Arc<Mutex<PerIp>>,
    pub(crate) ip: std::net::IpAddr,
}

impl Drop for TablePlace {
    fn drop(&mut self) {
        if let Ok(mut counts) = self.per_ip.lock()
            && let Some(n) = counts.tables.get_mut(&self.ip)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.tables.remove(&self.ip);
            }
        }
    }
}

/// Holds one of a connection's (and its IP address's) open streams; dropping it (the stream
/// ends) gives it back.
pub(crate) struct StreamSlot {
    pub(crate) per_ip: Arc<Mutex<PerIp>>,
    pub(crate) peer: Option<std::net::SocketAddr>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        metrics::gauge!("dudo_streams").decrement(1.0);
        let (Some(peer), Ok(mut counts)) = (self.peer, self.per_ip.lock()) else { return };
        if let Some(n) = counts.streams.get_mut(&crate::address::of(peer.ip())) {
            *n = n.saturating_sub(1);
        }
        if let Some(n) = counts.connections.get_mut(&peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.connections.remove(&peer);
            }
        }
    }
}
