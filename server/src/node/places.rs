//! What an address holds of the node's limits: the tables it made and the streams it reads,
//! counted when taken and given back when dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::connections::StreamOf;
use crate::refusal::Refusal;
use crate::table::Command;
use crate::table::rate::{Allowances, Pace};

/// Per-IP and per-connection counts, for the limits above.
#[derive(Default)]
pub(crate) struct PerIp {
    pub(crate) tables: HashMap<std::net::IpAddr, usize>,
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
    /// Its place among its address's streams (none: not a TCP connection's).
    pub(crate) place: Option<crate::connections::Slot>,
    /// Its mark as its seat's (or account's) newest stream, if it is one.
    pub(crate) _newest: Option<crate::connections::SeatCarried>,
}

impl StreamSlot {
    /// Whether a seat's stream of the address took this one's place (it must end now); if
    /// not, the reader is woken when it does.
    pub(crate) fn poll_displaced(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        match &self.place {
            Some(slot) => slot.place().poll_closing(cx),
            None => std::task::Poll::Pending,
        }
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        metrics::gauge!("dudo_streams").decrement(1.0);
        let (Some(peer), Ok(mut counts)) = (self.peer, self.per_ip.lock()) else { return };
        if let Some(n) = counts.connections.get_mut(&peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.connections.remove(&peer);
            }
        }
    }
}

/// An address's streams (see [`StreamSlot`]): which may open, and which a seat's makes room
/// for at the cap.
impl super::Dudo {
    /// A place for one more open stream from the connection at `peer` (none: not a TCP
    /// connection, which no limit counts), or which limit is full.
    pub(crate) fn stream_slot(&self, peer: Option<std::net::SocketAddr>) -> Result<StreamSlot, Refusal> {
        self.take_stream_slot(peer, None)
    }

    /// A place for the stream of the seat `token` holds at `table`: as [`Dudo::stream_slot`],
    /// but once this node's table says the token holds a seat there, the stream is its seat's
    /// newest (protected), and at the address's cap it ends the address's oldest stream that
    /// is not (someone watching, or an older stream of a seat), so others at a shared address
    /// cannot keep a player from their seat. A token that holds no seat here (or a table at
    /// another node) is counted as any stream.
    pub(crate) async fn seat_stream_slot(
        &self,
        peer: Option<std::net::SocketAddr>,
        table: &str,
        token: &str,
    ) -> Result<StreamSlot, Refusal> {
        let holds = match self.find(table) {
            Ok(handle) => {
                self.ask(&handle, |reply| Command::HoldsSeat { token: token.to_string(), reply }).await?
            }
            Err(_) => false,
        };
        self.take_stream_slot(peer, holds.then_some(token))
    }

    /// A place for the stream of the account `token` names (its ladder or tournament entry,
    /// its bot check), the account already known: its newest stream, as a seat's.
    pub(crate) fn account_stream_slot(
        &self,
        peer: Option<std::net::SocketAddr>,
        token: &str,
    ) -> Result<StreamSlot, Refusal> {
        self.take_stream_slot(peer, Some(token))
    }

    /// A stream's place; `seat`: the token of the seat (or account) whose newest stream it
    /// is, checked.
    fn take_stream_slot(
        &self,
        peer: Option<std::net::SocketAddr>,
        seat: Option<&str>,
    ) -> Result<StreamSlot, Refusal> {
        let (mut place, mut newest) = (None, None);
        if let Some(peer) = peer {
            let mut counts = self.per_ip.lock().map_err(|_| Refusal::internal("limits poisoned"))?;
            if counts.connections.get(&peer).copied().unwrap_or(0) >= self.limits.max_streams_per_connection {
                return Err(Refusal::resource_exhausted(format!(
                    "at most {} open streams per connection",
                    self.limits.max_streams_per_connection
                )));
            }
            let ip = crate::address::of(peer.ip());
            let most = self.limits.max_streams_per_ip;
            let whose = match seat {
                Some(token) => StreamOf::Seat { newest: self.stream_carriers.newest_of(token) },
                None => StreamOf::Unchecked,
            };
            let Some(taken) = self.streams.take_stream(ip, most, whose) else {
                self.refused.note(ip);
                return Err(Refusal::resource_exhausted(format!("at most {most} open streams per address")));
            };
            newest = seat.map(|token| self.stream_carriers.carries(taken.place(), token));
            place = Some(taken);
            *counts.connections.entry(peer).or_default() += 1;
        }
        metrics::gauge!("dudo_streams").increment(1.0);
        Ok(StreamSlot { per_ip: Arc::clone(&self.per_ip), peer, place, _newest: newest })
    }
}
