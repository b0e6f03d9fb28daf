//! The event log and the streams reading it.
//!
//! Every event gets the table's next sequence number and keeps its audience; a stream (a
//! seat's, a spectator's) is the log filtered by what its viewer may see. Only the current
//! game's events are kept in memory: that is all a resume can be given (a reset renumbers
//! seats, so an older game's events could carry another seat's dice), and finished games
//! live on in the store's records. A resume from before the kept events gets a fresh
//! snapshot instead.
//!
//! What a stream is sent waits in its outbox until the journal is durable, then goes to its
//! [`Sink`] (a bounded channel). A stream whose outbox or channel is full is dropped; it
//! resumes from its sequence number, so a slow reader never holds up the table. One copy of
//! each update is shared by every stream it goes to: the log keeps its events as the updates
//! it sent, so a resume hands out the same copies rather than making new ones.
//!
//! Both the kept events and what waits for each reader are counted against the server's
//! [`Budget`]: a stream that would take it past its limit is dropped as too far behind, and a
//! game whose events keep growing past it is stopped by the table.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dudo_proto::TableEvent;
use dudo_proto::convert;
use dudo_proto::v1 as pb;
use dudo_rules::{Audience, Seat, Viewer};

use crate::budget::Budget;

/// How many updates a stream may have waiting before it is dropped.
pub const SUBSCRIBER_BUFFER: usize = 1024;
/// How many bytes of updates (as [`Shared::bytes`] counts them) a stream may have waiting
/// (in its outbox and its channel) before it is dropped. Updates are shared among the
/// streams they go to, so this bounds what one reader that stopped reading can hold on to,
/// not a copy each.
pub const SUBSCRIBER_BYTES: usize = 1024 * 1024;
/// The most a new stream's story so far (`StorySoFar`) holds, in encoded bytes: a long game's
/// latest events, never more than a quarter of what a stream may hold.
pub const HISTORY_BYTES: usize = SUBSCRIBER_BYTES / 4;

/// Decoded, a message takes about this many times its encoded bytes: a die is a 4-byte
/// integer in a vector rather than one byte on the wire, and each nested message and vector
/// has a header and an allocation of its own (measured: a 64-seat game's events took 10 to
/// 12 times their encoded size before the estimate counted this).
const DECODED_PER_ENCODED: usize = 4;

/// One update, shared by every stream it goes to, with the memory it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared(Arc<(pb::PlayUpdate, usize)>);

impl Shared {
    pub fn new(update: pb::PlayUpdate) -> Shared {
        let encoded = prost::Message::encoded_len(&update);
        // The update itself (the shared allocation, with its counts) and what it points to.
        let bytes = std::mem::size_of::<(pb::PlayUpdate, usize)>() + 16 + encoded * DECODED_PER_ENCODED;
        Shared(Arc::new((update, bytes)))
    }

    /// The memory the update takes, estimated: what streams, logs and the budget count.
    pub fn bytes(&self) -> usize {
        self.0.1
    }

    pub fn update(&self) -> &pb::PlayUpdate {
        &self.0.0
    }

    /// The update itself (a copy if another stream still holds it).
    pub fn into_update(self) -> pb::PlayUpdate {
        Arc::unwrap_or_clone(self.0).0
    }
}

impl std::ops::Deref for Shared {
    type Target = pb::PlayUpdate;
    fn deref(&self) -> &pb::PlayUpdate {
        self.update()
    }
}

/// What a stream is sent.
#[derive(Clone, Debug)]
pub enum Delivery {
    Update(Shared),
    /// The last thing a stream is sent: why it ends.
    End(StreamEnd),
}

/// Why the table ended a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// The host closed the table.
    Closed,
    /// The seat's number may have changed (a reset, or seats renumbered): reconnect with
    /// the token and no `since`.
    Reseated(pb::reseated::Why),
    /// The server is stopping.
    ShuttingDown,
    /// The table could not be saved; it is back when the server restarts.
    Unsaved,
    /// Another node of the cluster holds the table now: reconnecting finds it there.
    Moved,
    /// The server cut the seat's connection on purpose (a bot check tries a bot's
    /// reconnecting): resume with `since`.
    Dropped,
}

/// The bytes of updates one stream holds (queued, and not yet taken by its reader), bounded
/// by [`SUBSCRIBER_BYTES`] and counted against the server's budget too. The table adds as it
/// queues; whoever lets go of an update (the reader as it reads, a dropped stream) gives back.
#[derive(Debug)]
pub struct StreamBytes {
    bytes: AtomicUsize,
    budget: Arc<Budget>,
}

impl StreamBytes {
    pub fn new(budget: Arc<Budget>) -> Arc<StreamBytes> {
        Arc::new(StreamBytes { bytes: AtomicUsize::new(0), budget })
    }

    /// Takes `bytes` if they fit in the stream's bound and in the server's budget.
    fn reserve(&self, bytes: usize) -> bool {
        let fits = self
            .bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(bytes).filter(|&after| after <= SUBSCRIBER_BYTES)
            })
            .is_ok();
        if fits && !self.budget.try_take(bytes) {
            self.bytes.fetch_sub(bytes, Ordering::Relaxed);
            return false;
        }
        fits
    }

    /// Gives back what a delivery held (nothing for a stream's end).
    pub fn release(&self, delivery: &Delivery) {
        if let Delivery::Update(update) = delivery {
            self.bytes.fetch_sub(update.bytes(), Ordering::Relaxed);
            self.budget.give(update.bytes());
        }
    }

    pub fn held(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// Where a stream's deliveries go: in the server, a bounded channel to the gRPC stream.
pub trait Sink: Send {
    /// Hands over one delivery; gives it back if the reader is gone or too far behind.
    fn offer(&mut self, delivery: Delivery) -> Result<(), Delivery>;
    fn is_closed(&self) -> bool;
    /// What this stream holds, which its reader gives back as it reads.
    fn bytes(&self) -> &StreamBytes;
}

struct Subscriber {
    viewer: Viewer,
    sink: Box<dyn Sink>,
    /// What waits for the journal to be durable.
    outbox: Vec<Delivery>,
    /// Send the outbox, then drop the sink (the outbox ends with the reason).
    ending: bool,
}

impl Subscriber {
    /// Queues an update; false if the subscriber is too far behind, in updates or in bytes,
    /// or the server's budget has no room (it is then dropped, and resumes from its
    /// sequence number).
    fn queue(&mut self, update: &Shared) -> bool {
        if self.ending {
            return true;
        }
        if self.outbox.len() >= SUBSCRIBER_BUFFER || !self.sink.bytes().reserve(update.bytes()) {
            return false;
        }
        self.outbox.push(Delivery::Update(update.clone()));
        true
    }

    /// Hands the outbox to the sink; false if the reader is gone or too far behind (what was
    /// not taken is given back when the subscriber is dropped).
    fn deliver(&mut self) -> bool {
        let mut waiting = std::mem::take(&mut self.outbox).into_iter();
        while let Some(delivery) = waiting.next() {
            if let Err(refused) = self.sink.offer(delivery) {
                self.outbox.push(refused);
                self.outbox.extend(waiting);
                return false;
            }
        }
        true
    }

    fn end(&mut self, why: StreamEnd) {
        if !self.ending {
            // Said as an update too, so clients read a type, not the status's prose.
            if let StreamEnd::Reseated(why) = why {
                let reseated = pb::Reseated { why: why as i32 };
                self.outbox
                    .push(Delivery::Update(update(pb::play_update::Update::Reseated(Box::new(reseated)))));
            }
            self.outbox.push(Delivery::End(why));
            self.ending = true;
        }
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        for delivery in &self.outbox {
            self.sink.bytes().release(delivery);
        }
    }
}

/// Why a stream was not added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// What it would be sent first is more than a stream may hold.
    TooMuch,
    /// The server's budget (or its address's share) has no room for it.
    Budget,
}

/// One event of the current game, kept as the update that carried it.
struct Kept {
    audience: Audience,
    update: Shared,
    /// When it happened (Unix ms), for replays at the original pace.
    at: i64,
}

/// The current game's events and the streams reading them.
pub struct EventLog {
    /// The sequence number of `events[0]`.
    first_seq: u64,
    events: Vec<Kept>,
    /// The encoded bytes of the kept events, taken from `budget`.
    bytes: usize,
    budget: Arc<Budget>,
    subscribers: Vec<Subscriber>,
}

impl Drop for EventLog {
    fn drop(&mut self) {
        self.budget.give(self.bytes);
    }
}

pub fn update(update: pb::play_update::Update) -> Shared {
    Shared::new(pb::PlayUpdate { update: Some(update) })
}

impl EventLog {
    pub fn new(budget: Arc<Budget>) -> EventLog {
        EventLog { first_seq: 0, events: Vec::new(), bytes: 0, budget, subscribers: Vec::new() }
    }

    /// The encoded bytes of the current game's events.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether the server (or the table's address) holds more than its budget allows.
    pub fn budget_exceeded(&self) -> bool {
        self.budget.over()
    }

    /// Whether nothing more fits in the table's budget.
    pub fn budget_full(&self) -> bool {
        self.budget.full()
    }

    /// The sequence number the next event gets (the count of events the table ever made).
    pub fn next_seq(&self) -> u64 {
        self.first_seq + self.events.len() as u64
    }

    /// The last event's sequence number, if there was one.
    pub fn last_seq(&self) -> Option<u64> {
        self.next_seq().checked_sub(1)
    }

    /// The kept events (the current game's) as they went on the wire, with their times.
    pub fn kept(&self) -> impl Iterator<Item = (&pb::Event, i64)> {
        self.events.iter().filter_map(|kept| match &kept.update.update {
            Some(pb::play_update::Update::Event(event)) => Some((event, kept.at)),
            _ => None,
        })
    }

    /// Appends an event and queues it for every stream that may see it.
    pub fn append(&mut self, event: TableEvent, text: String, at: i64, game_over: bool) {
        let seq = self.next_seq();
        let audience = event.audience();
        let wire = pb::Event { text, ..convert::event_to_wire(seq, &event) };
        let wire = update(pb::play_update::Update::Event(wire));
        self.subscribers.retain_mut(|s| !audience.admits(s.viewer, game_over) || s.queue(&wire));
        self.bytes += wire.bytes();
        self.budget.take(wire.bytes());
        self.events.push(Kept { audience, update: wire, at });
    }

    /// A new game begins (or the table was reset): the earlier events leave memory. Their
    /// sequence numbers are never reused.
    pub fn forget(&mut self) {
        self.first_seq = self.next_seq();
        self.events.clear();
        self.budget.give(std::mem::take(&mut self.bytes));
    }

    /// Keeps only the last `n` events (a finished game's end); what was before them leaves
    /// memory, and a resume from there gets a snapshot.
    pub fn keep_last(&mut self, n: usize) {
        let dropped = self.events.len().saturating_sub(n);
        if dropped == 0 {
            return;
        }
        let freed: usize = self.events.drain(..dropped).map(|kept| kept.update.bytes()).sum();
        self.first_seq += dropped as u64;
        self.bytes -= freed;
        self.budget.give(freed);
        self.events.shrink_to_fit();
    }

    /// The story so far for a new stream of `viewer`'s: the kept events it may see, oldest
    /// first, the latest that fit in [`HISTORY_BYTES`].
    pub fn history(&self, viewer: Viewer, game_over: bool) -> Vec<pb::Event> {
        let mut bytes = 0;
        let mut told: Vec<pb::Event> = Vec::new();
        for kept in self.events.iter().rev().filter(|kept| kept.audience.admits(viewer, game_over)) {
            bytes += kept.update.bytes();
            if bytes > HISTORY_BYTES {
                break;
            }
            if let Some(pb::play_update::Update::Event(event)) = &kept.update.update {
                told.push(event.clone());
            }
        }
        told.reverse();
        told
    }

    /// Every kept event after `since` that `viewer` may see, as updates; `None` if `since` is
    /// before the kept events (the caller sends a snapshot instead).
    pub fn since(&self, viewer: Viewer, since: u64, game_over: bool) -> Option<Vec<Shared>> {
        let from = since.saturating_add(1);
        if from < self.first_seq {
            return None;
        }
        let skip = usize::try_from(from - self.first_seq).unwrap_or(usize::MAX);
        Some(
            self.events
                .iter()
                .skip(skip)
                .filter(|kept| kept.audience.admits(viewer, game_over))
                .map(|kept| kept.update.clone())
                .collect(),
        )
    }

    /// Adds a stream with what it is sent first; refused (and no stream) if that does not fit
    /// in a stream's bounds or in the budget: a resume must never skip what it asked for.
    pub fn subscribe(
        &mut self,
        viewer: Viewer,
        sink: Box<dyn Sink>,
        first: Vec<Shared>,
    ) -> Result<(), Refused> {
        let within_bounds = first.len() < SUBSCRIBER_BUFFER
            && first.iter().map(Shared::bytes).sum::<usize>() <= SUBSCRIBER_BYTES;
        let mut subscriber = Subscriber { viewer, sink, outbox: Vec::new(), ending: false };
        for update in &first {
            if !subscriber.queue(update) {
                return Err(if within_bounds { Refused::Budget } else { Refused::TooMuch });
            }
        }
        self.subscribers.push(subscriber);
        Ok(())
    }

    /// Queues, for each stream, what `for_viewer` gives its viewer (if anything).
    pub fn queue_each(&mut self, mut for_viewer: impl FnMut(Viewer) -> Option<Shared>) {
        self.subscribers.retain_mut(|s| match for_viewer(s.viewer) {
            Some(u) => s.queue(&u),
            None => true,
        });
    }

    /// The viewers of the open streams, each once.
    pub fn viewers(&self) -> Vec<Viewer> {
        let mut viewers: Vec<Viewer> = Vec::new();
        for s in &self.subscribers {
            if !viewers.contains(&s.viewer) {
                viewers.push(s.viewer);
            }
        }
        viewers
    }

    /// Ends every seat's stream (spectators keep watching), with a reason.
    pub fn end_seats(&mut self, why: StreamEnd) {
        for s in &mut self.subscribers {
            if matches!(s.viewer, Viewer::Seat(_)) {
                s.end(why);
            }
        }
    }

    /// Ends the streams of the seats numbered above `seat`, with a reason: a seat freed
    /// before the start moves those after it down, and only their numbers changed.
    pub fn end_seats_after(&mut self, seat: Seat, why: StreamEnd) {
        for s in &mut self.subscribers {
            if matches!(s.viewer, Viewer::Seat(n) if n > seat) {
                s.end(why);
            }
        }
    }

    /// Ends `seat`'s streams, with a reason.
    pub fn end_seat(&mut self, seat: Seat, why: StreamEnd) {
        for s in self.subscribers.iter_mut().filter(|s| s.viewer == Viewer::Seat(seat)) {
            s.end(why);
        }
    }

    /// How many streams `viewer` has open.
    pub fn open_for(&self, viewer: Viewer) -> usize {
        self.subscribers.iter().filter(|s| s.viewer == viewer && !s.sink.is_closed()).count()
    }

    /// Ends every stream, with a reason.
    pub fn end_all(&mut self, why: StreamEnd) {
        for s in &mut self.subscribers {
            s.end(why);
        }
    }

    /// Sends each stream what waited for the journal; drops streams that ended or cannot
    /// keep up.
    pub fn deliver(&mut self) {
        self.subscribers.retain_mut(|s| s.deliver() && !s.ending);
    }

    /// Ends every stream at once, without waiting for the journal (the table could not save:
    /// nothing unsaved is sent).
    pub fn abandon(&mut self, why: StreamEnd) {
        for mut s in self.subscribers.drain(..) {
            let _ = s.sink.offer(Delivery::End(why));
        }
    }

    /// Drops streams whose readers are gone; true if none is left.
    pub fn prune(&mut self) -> bool {
        self.subscribers.retain(|s| !s.sink.is_closed());
        self.subscribers.is_empty()
    }
}
