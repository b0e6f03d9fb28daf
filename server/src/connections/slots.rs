//! An address's connections, counted from their acceptance, and which of them carry a seat;
//! and in the same way (the node's) an address's streams, and which of them are a seat's.
//!
//! Many people share an address (a household's or a campus's router, a carrier's NAT), so an
//! address's cap must not let one of them keep another from their seat: at the public port's
//! cap a new connection takes the place of the address's oldest connection that carries no
//! seat's stream, which is closed. Only connections each carrying the newest stream of some
//! seat can hold the cap against a seat's reconnection (a seat streaming from many
//! connections protects only its newest). A new connection cannot be pushed out before the
//! address has opened its whole cap's worth after it: at the connection rate, more than half a
//! second to subscribe (64 at 100 a second). At an address's cap of streams, likewise, a
//! seat's new stream ends the address's oldest stream that is no seat's (someone watching).

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;
use tokio::time::Instant;

/// What an address's cap does with a connection (or stream) past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtTheCap {
    /// Refuse it (the node port: its few connections are other nodes'; a stream that is no
    /// seat's).
    Refuse,
    /// Close the oldest carrying no seat to make room (the public port's connections; a
    /// seat's stream).
    MakeRoom,
}

/// Whose a stream is, as its address's cap of streams sees it.
pub enum StreamOf {
    /// A seat's (or account's), its token checked; with that seat's newest stream so far,
    /// which it may push out too (a reconnect while the last stream still looks open).
    Seat { newest: Option<Arc<Place>> },
    /// Anyone's: a watcher's, or a token nobody checked.
    Unchecked,
}

/// Open connections (or streams) per address.
#[derive(Clone, Default)]
pub struct Places {
    open: Arc<Mutex<HashMap<IpAddr, Vec<Arc<Place>>>>>,
}

/// An address's connections.
pub type Connections = Places;

impl Places {
    /// A place for a connection from `ip`, whose address may have `most` open; at the cap,
    /// as `at_the_cap` says.
    pub fn take_slot(&self, ip: IpAddr, most: usize, at_the_cap: AtTheCap) -> Option<Slot> {
        self.take(ip, most, at_the_cap, None)
    }

    /// A place for a stream from `ip`, whose address may have `most` open: at the cap, a
    /// seat's makes room, and another is refused. Either is protected only once marked as
    /// its seat's newest stream ([`Carriers`]).
    pub fn take_stream(&self, ip: IpAddr, most: usize, whose: StreamOf) -> Option<Slot> {
        match whose {
            StreamOf::Seat { newest } => self.take(ip, most, AtTheCap::MakeRoom, newest),
            StreamOf::Unchecked => self.take(ip, most, AtTheCap::Refuse, None),
        }
    }

    fn take(&self, ip: IpAddr, most: usize, at_the_cap: AtTheCap, own: Option<Arc<Place>>) -> Option<Slot> {
        let mut open = self.open.lock().ok()?;
        let places = open.entry(ip).or_default();
        let staying = places.iter().filter(|p| !p.is_closing()).count();
        if staying >= most {
            let own = |p: &Arc<Place>| own.as_ref().is_some_and(|own| Arc::ptr_eq(own, p));
            let oldest = places
                .iter()
                .filter(|p| !p.is_closing() && (p.seats.load(Ordering::Acquire) == 0 || own(p)))
                .min_by_key(|p| p.accepted);
            match (at_the_cap, oldest) {
                (AtTheCap::MakeRoom, Some(oldest)) => {
                    tracing::debug!(%ip, "at the address's cap: its oldest without a seat makes room");
                    metrics::counter!("dudo_places_made_room_total").increment(1);
                    oldest.close();
                }
                _ => {
                    tracing::debug!(%ip, "connection refused: the address has as many open as it may");
                    return None;
                }
            }
        }
        let place = Arc::new(Place::new());
        places.push(Arc::clone(&place));
        Some(Slot { ip, place, open: Arc::clone(&self.open) })
    }
}

/// A connection's place among its address's, given back when dropped.
pub struct Slot {
    ip: IpAddr,
    place: Arc<Place>,
    open: Arc<Mutex<HashMap<IpAddr, Vec<Arc<Place>>>>>,
}

impl Slot {
    pub(crate) fn place(&self) -> &Arc<Place> {
        &self.place
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut open) = self.open.lock()
            && let Some(places) = open.get_mut(&self.ip)
        {
            places.retain(|p| !Arc::ptr_eq(p, &self.place));
            if places.is_empty() {
                open.remove(&self.ip);
            }
        }
    }
}

/// One connection, as its address's cap sees it.
pub struct Place {
    accepted: Instant,
    /// Seats whose newest stream it carries: while any, it is not closed to make room.
    seats: AtomicUsize,
    /// Told to close (a newer connection of its address took its place).
    closing: AtomicBool,
    /// Whoever reads the connection, woken to close it.
    reader: AtomicWaker,
}

impl Place {
    fn new() -> Place {
        Place {
            accepted: Instant::now(),
            seats: AtomicUsize::new(0),
            closing: AtomicBool::new(false),
            reader: AtomicWaker::new(),
        }
    }

    fn close(&self) {
        self.closing.store(true, Ordering::Release);
        self.reader.wake();
    }

    fn is_closing(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    /// Whether the connection (or stream) must close now; if not, the reader is woken when
    /// it must.
    pub(crate) fn poll_closing(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.reader.register(cx.waker());
        if self.is_closing() { Poll::Ready(()) } else { Poll::Pending }
    }
}

/// Which connection carries each seat's newest stream (a seat streaming from several
/// connections protects only its newest).
#[derive(Clone, Default)]
pub struct Carriers {
    /// By a hash of the seat's token (a seat's own, whatever name its table is called by; no
    /// token is kept here), the newest stream's number and its connection.
    newest: Arc<Mutex<HashMap<u64, Newest>>>,
    numbers: Arc<AtomicUsize>,
    keys: std::collections::hash_map::RandomState,
}

impl Carriers {
    /// The place of the newest stream of the seat of `token`, if it has one open.
    pub(crate) fn newest_of(&self, token: &str) -> Option<Arc<Place>> {
        let key = self.keys.hash_one(token);
        self.newest.lock().ok()?.get(&key).map(|(_, place)| Arc::clone(place))
    }

    /// The seat of `token` now streams on the connection of `place`, until the returned mark
    /// is dropped or a newer stream of the seat takes over.
    pub(crate) fn carries(&self, place: &Arc<Place>, token: &str) -> SeatCarried {
        let key = self.keys.hash_one(token);
        let number = self.numbers.fetch_add(1, Ordering::AcqRel) as u64;
        place.seats.fetch_add(1, Ordering::AcqRel);
        if let Ok(mut newest) = self.newest.lock()
            && let Some((_, before)) = newest.insert(key, (number, Arc::clone(place)))
        {
            before.seats.fetch_sub(1, Ordering::AcqRel);
        }
        SeatCarried { key, number, carriers: self.clone() }
    }
}

/// A seat's newest stream: its number, and the connection it came on.
type Newest = (u64, Arc<Place>);

/// A seat's stream on a connection, marked while it is open (see [`Carriers`]).
pub struct SeatCarried {
    key: u64,
    number: u64,
    carriers: Carriers,
}

impl Drop for SeatCarried {
    fn drop(&mut self) {
        if let Ok(mut newest) = self.carriers.newest.lock()
            && newest.get(&self.key).is_some_and(|(number, _)| *number == self.number)
            && let Some((_, place)) = newest.remove(&self.key)
        {
            place.seats.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip() -> IpAddr {
        IpAddr::from([127, 0, 0, 5])
    }

    #[tokio::test]
    async fn at_the_cap_the_oldest_connection_without_a_seat_makes_room() {
        let (connections, carriers) = (Connections::default(), Carriers::default());
        let first = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        let second = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        let third = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        // The first carries a seat's stream: the second, oldest of the others, makes room.
        let seat = carriers.carries(first.place(), "seat-token");
        let fourth = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        assert!(!first.place().is_closing() && second.place().is_closing() && !third.place().is_closing());
        // The node port's rule refuses instead.
        assert!(connections.take_slot(ip(), 3, AtTheCap::Refuse).is_none());
        // A newer stream of the same seat elsewhere: the first no longer holds its place.
        drop(second);
        let again = carriers.carries(fourth.place(), "seat-token");
        let _fifth = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        assert!(first.place().is_closing(), "a seat protects only its newest stream's connection");
        // The older mark dropping does not unmark the newer.
        drop(seat);
        let _sixth = connections.take_slot(ip(), 3, AtTheCap::MakeRoom).unwrap();
        assert!(third.place().is_closing() && !fourth.place().is_closing());
        // Every connection left carries a seat: the cap holds.
        let _other = carriers.carries(_fifth.place(), "another-token");
        let _last = carriers.carries(_sixth.place(), "third-token");
        assert!(connections.take_slot(ip(), 3, AtTheCap::MakeRoom).is_none());
        drop(again);
    }

    #[test]
    fn at_the_cap_of_streams_a_seats_ends_the_oldest_unprotected_and_a_watchers_is_refused() {
        let (streams, carriers) = (Places::default(), Carriers::default());
        let seat = streams.take_stream(ip(), 3, StreamOf::Seat { newest: None }).unwrap();
        let _mark = carriers.carries(seat.place(), "seat-token");
        let watcher = streams.take_stream(ip(), 3, StreamOf::Unchecked).unwrap();
        let _another = streams.take_stream(ip(), 3, StreamOf::Unchecked).unwrap();
        assert!(streams.take_stream(ip(), 3, StreamOf::Unchecked).is_none(), "a watcher's past the cap");
        let second = streams.take_stream(ip(), 3, StreamOf::Seat { newest: None }).unwrap();
        assert!(watcher.place().is_closing() && !seat.place().is_closing());
        // The same seat's next stream protects only itself: the first is no longer kept.
        let _newer = carriers.carries(second.place(), "seat-token");
        let _third = streams.take_stream(ip(), 3, StreamOf::Seat { newest: None }).unwrap();
        assert!(seat.place().is_closing(), "a seat's older stream is no longer kept");
        assert!(!second.place().is_closing() && !_another.place().is_closing());
    }
}
