//! What an address holds of the node's limits: the tables it made and the streams it reads,
//! counted when taken and given back when dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Per-IP and per-connection counts, for the limits above.
#[derive(Default)]
pub(crate) struct PerIp {
    pub(crate) tables: HashMap<std::net::IpAddr, usize>,
    pub(crate) streams: HashMap<std::net::IpAddr, usize>,
    /// Open streams by peer address: an entry is removed at zero, as ports are not reused
    /// for long.
    pub(crate) connections: HashMap<std::net::SocketAddr, usize>,
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
        if let Some(n) = counts.streams.get_mut(&peer.ip()) {
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
