//! Connections: admitted on their opening, counted per client address from the moment they
//! are accepted, each holding what its transport may buffer from the memory budget.
//!
//! One address cannot open connections without bound (each may carry up to
//! `--max-streams-per-connection` calls, and each call a request buffered up to the message
//! size limit), nor hold descriptors with connections that say nothing: a connection takes
//! its address's slot when it is accepted (at the cap, the address's oldest connection
//! carrying no seat's stream makes room: slots.rs), and it is closed unless within [`OPENING_TIME`]
//! it sends HTTP/2's preface and first frame, or an HTTP/1.1 (gRPC-Web) request's whole
//! head. Until then it holds nothing of the budget; after, what its transport may buffer.
//! With TLS (tls.rs) the handshake comes first, within the same time, and the opening is
//! read from what it decrypts.
//! At the descriptor limit the accept loop backs off rather than spin.
//!
//! An admitted connection that has had nothing owed to it and no answer taken from it for
//! `Limits::idle_connection` (30 s) is closed, so connections that made one call and then say
//! nothing (answering HTTP/2's pings, or an HTTP/1.1 keep-alive) cannot hold their share of
//! the budget for ever. A call is owed while the server works on it, and while its stream
//! waits for the server's next update; an answer the client does not take (it grants no
//! flow-control window) is owed nothing, so calls stalled that way do not keep a
//! connection; nor does a client that reads nothing at all while answers pile up (a write
//! stuck for the idle time ends the connection). A client's next call opens a new
//! connection (tonic's channels and browsers do so by themselves).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::time::{Instant, Sleep};
use tonic::transport::server::{Connected, TcpConnectInfo};

use crate::tls::Wire;

pub mod call_gate;
mod opening;
pub mod opening_rate;
mod slots;

pub(crate) use opening::{Replay, Transport, read_opening};
pub use slots::{AtTheCap, Carriers, Connections, Places, SeatCarried, Slot, StreamOf};

/// How long a new connection has to send its opening (see the module's doc).
pub const OPENING_TIME: Duration = Duration::from_secs(5);

/// What a connection's transport may buffer of requests not yet read: its HTTP/2 receive
/// window (every stream's unread data together), one header block being received, and its
/// own state.
pub const CONNECTION_WINDOW: u32 = 64 * 1024;
pub const CONNECTION_BYTES: usize =
    CONNECTION_WINDOW as usize + call_gate::MAX_HEADER_BYTES as usize + 16 * 1024;
/// An HTTP/1.1 connection's: hyper reads a request's head into a buffer of up to ~400 KiB.
pub const HTTP1_CONNECTION_BYTES: usize = 416 * 1024;
/// What TLS adds to a connection: rustls' buffers of a record each way, and its state.
pub const TLS_BYTES: usize = 48 * 1024;
/// What a TLS handshake may hold before the connection is admitted: a ClientHello spread
/// over records (up to 64 KiB), and rustls' state.
pub const TLS_HANDSHAKE_BYTES: usize = 80 * 1024;
/// Connections an address may open past its share of the budget, and all addresses together.
const PAST_BUDGET: usize = 2;
const PAST_BUDGET_ALL: usize = 64;

/// Accepted connections, each admitted by a task of its own once it has sent its opening
/// (see the module's doc); `most` connections per address, counted from their acceptance.
/// Nagle's algorithm is off: a game sends many small messages.
pub fn incoming(
    listener: TcpListener,
    most: usize,
    limits: &crate::limits::Limits,
    budgets: crate::budget::Budgets,
    calls: Calls,
    tls: Option<crate::tls::ServerTls>,
    refused: crate::address::Refused,
) -> impl tokio_stream::Stream<Item = std::io::Result<Counted>> {
    let idle = limits.idle_connection;
    let rate = opening_rate::OpeningRate::of(limits);
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(async move {
        let counted = Connections::default();
        let past_budget = call_gate::Counts::default();
        let mut backoff = Backoff::default();
        loop {
            let accepted = tokio::select! {
                // The server stopped: let go of the listener.
                () = tx.closed() => return,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => {
                    backoff.reset();
                    accepted
                }
                Err(e) => {
                    backoff.pause(&e).await;
                    continue;
                }
            };
            // Counted as its address is (an IPv6 /64 is one); known by its own.
            let ip = crate::address::of(peer.ip());
            if !rate.admit(ip, Instant::now()) {
                refused.note(ip);
                continue;
            }
            let Some(slot) = counted.take_slot(ip, most, AtTheCap::MakeRoom) else {
                refused.note(ip);
                continue;
            };
            let (tx, budgets, past_budget, calls) =
                (tx.clone(), budgets.clone(), past_budget.clone(), calls.clone());
            let acceptor = tls.as_ref().and_then(crate::tls::ServerTls::acceptor);
            if tls.is_some() && acceptor.is_none() {
                continue;
            }
            tokio::spawn(async move {
                let _ = stream.set_nodelay(true);
                // The address's share of the budget: a handshake holds from it, then the
                // connection.
                let budget = budgets.for_address(Some(ip));
                let handshake_budget = Arc::clone(&budget);
                // The handshake is part of the opening, and has its time.
                let opened = tokio::time::timeout(OPENING_TIME, async move {
                    let mut wire = match acceptor {
                        Some(acceptor) => {
                            // A handshake in progress buffers up to a TLS record or two: held
                            // from the address's share, so pending handshakes are bounded by
                            // memory too, not by descriptors alone.
                            let Some(_handshaking) = handshake_budget.hold(TLS_HANDSHAKE_BYTES) else {
                                return Ok(None);
                            };
                            let mut stream = stream;
                            if crate::tls::plaintext_answered(&mut stream).await? {
                                return Ok(None);
                            }
                            Wire::Tls(Box::new(acceptor.accept(stream).await?))
                        }
                        None => Wire::Plain(stream),
                    };
                    Ok::<_, std::io::Error>(read_opening(&mut wire).await?.map(|opened| (wire, opened)))
                });
                // A newer connection of its address may take its place meanwhile.
                let place = Arc::clone(slot.place());
                let closing = std::future::poll_fn(|cx| place.poll_closing(cx));
                let opened = tokio::select! {
                    opened = opened => opened,
                    () = closing => return,
                };
                let Ok(Some((stream, (transport, opening)))) = opened.unwrap_or(Ok(None)) else {
                    tracing::debug!(%peer, "connection closed: no opening within {OPENING_TIME:?}");
                    return;
                };
                let bytes = match transport {
                    Transport::Http2 => CONNECTION_BYTES,
                    Transport::Http1 => HTTP1_CONNECTION_BYTES,
                } + if stream.is_tls() { TLS_BYTES } else { 0 };
                // Past the budget, an address may still open a few connections for the calls
                // that free memory and health checks (the only ones served then).
                let memory = match budget.hold(bytes) {
                    Some(held) => Memory::Held { _held: held },
                    None => match past_budget.take(Some(ip), PAST_BUDGET, PAST_BUDGET_ALL) {
                        Some(ticket) => Memory::PastBudget { _place: ticket },
                        None => {
                            tracing::debug!(%peer, "connection refused: the memory budget is full");
                            return;
                        }
                    },
                };
                let busy = calls.register(peer, idle, Arc::clone(slot.place()));
                let connection = Counted {
                    stream,
                    opening: Replay::new(opening),
                    busy,
                    stalled: None,
                    stall_timer: Box::pin(tokio::time::sleep(idle)),
                    slot,
                    _memory: memory,
                };
                let _ = tx.send(Ok(connection)).await;
            });
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

/// The accept loop's pause after a failed accept. Out of descriptors (`EMFILE`), accepting
/// again at once fails again at once: the loop would spin and log without end. It waits,
/// longer each time up to a second, and warns at most every ten seconds.
#[derive(Default)]
pub(crate) struct Backoff {
    pause: Duration,
    warned: Option<tokio::time::Instant>,
    unwarned: u64,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(5);
    const MOST: Duration = Duration::from_secs(1);
    const WARN_EVERY: Duration = Duration::from_secs(10);

    pub(crate) fn reset(&mut self) {
        self.pause = Duration::ZERO;
    }

    pub(crate) async fn pause(&mut self, e: &std::io::Error) {
        self.pause = (self.pause * 2).clamp(Self::FIRST, Self::MOST);
        self.unwarned += 1;
        let now = tokio::time::Instant::now();
        if self.warned.is_none_or(|at| now.duration_since(at) >= Self::WARN_EVERY) {
            tracing::warn!(
                error = %e,
                failures = self.unwarned,
                "cannot accept connections (at the open file limit? see docs/protocol.md, File descriptors); pausing {:?}",
                self.pause
            );
            self.warned = Some(now);
            self.unwarned = 0;
        }
        metrics::counter!("dudo_accept_failures_total").increment(1);
        tokio::time::sleep(self.pause).await;
    }
}

/// An admitted connection: its opening (read to judge it) is replayed first.
pub struct Counted {
    stream: Wire,
    opening: Replay,
    /// Its calls in flight, and the time-out that closes it when it has none.
    busy: Registered,
    /// Since when its writes have been stuck (the client reads nothing), and the timer that
    /// ends it when they have been for the idle time.
    stalled: Option<Instant>,
    stall_timer: Pin<Box<Sleep>>,
    /// Its place among its address's connections: closed when a newer one takes it.
    slot: Slot,
    _memory: Memory,
}

/// What the connection's transport may buffer, held from the budget while it is open; or,
/// past the budget, one of the few places for connections that free memory.
enum Memory {
    Held { _held: crate::budget::Held },
    PastBudget { _place: call_gate::Ticket },
}

impl Connected for Counted {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.opening.replay(buf) {
            return Poll::Ready(Ok(()));
        }
        // A newer connection of its address took its place: it ends as if the client had
        // closed it.
        if self.slot.place().poll_closing(cx).is_ready() {
            tracing::debug!(peer = %self.busy.peer, "connection closed: a newer one of its address took its place");
            return Poll::Ready(Ok(()));
        }
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        // The transport always waits on a read: an idle connection ends there, as if the
        // client had closed it.
        if read.is_pending() && self.busy.idle_out(cx) {
            tracing::debug!(peer = %self.busy.peer, "connection closed: nothing owed to it for {:?}", self.busy.idle);
            return Poll::Ready(Ok(()));
        }
        read
    }
}

impl Counted {
    /// A write's outcome, watched: a client that takes nothing for the idle time (its
    /// answers pile up in the socket's buffers while it reads none) is cut off, as a reader
    /// that never reads would otherwise hold its connection, and its kernel buffers, for ever.
    fn watched<T>(
        &mut self,
        cx: &mut Context<'_>,
        wrote: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        let idle = self.busy.idle;
        if !wrote.is_pending() || idle.is_zero() {
            self.stalled = None;
            return wrote;
        }
        let now = Instant::now();
        let since = *self.stalled.get_or_insert(now);
        if now.duration_since(since) >= idle {
            tracing::debug!(peer = %self.busy.peer, "connection closed: it read nothing for {idle:?}");
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client reads nothing",
            )));
        }
        if self.stall_timer.deadline() != since + idle {
            self.stall_timer.as_mut().reset(since + idle);
        }
        // Wakes the writer when its time is up.
        let _ = self.stall_timer.as_mut().poll(cx);
        Poll::Pending
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let wrote = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.watched(cx, wrote)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let flushed = Pin::new(&mut self.stream).poll_flush(cx);
        self.watched(cx, flushed)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let wrote = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.watched(cx, wrote)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Every admitted connection's calls in flight, known by its peer address (what a call's
/// request carries of its connection), so the call gate can count them.
#[derive(Clone, Default)]
pub struct Calls {
    open: Arc<Mutex<HashMap<SocketAddr, Arc<Activity>>>>,
    /// Which connection carries each seat's newest stream.
    carriers: Carriers,
}

/// One connection's calls: how many the server owes something (working on the call, or a
/// stream waiting for its next update), and when an answer last moved.
struct Activity {
    owed: AtomicUsize,
    moved: Mutex<Instant>,
    /// Its place among its address's connections.
    place: Arc<slots::Place>,
}

impl Activity {
    fn moved(&self) {
        if let Ok(mut moved) = self.moved.lock() {
            *moved = Instant::now();
        }
    }
}

impl Calls {
    /// A connection from `peer`, closed after `idle` with nothing owed to it (zero: never).
    fn register(&self, peer: SocketAddr, idle: Duration, place: Arc<slots::Place>) -> Registered {
        let activity =
            Arc::new(Activity { owed: AtomicUsize::new(0), moved: Mutex::new(Instant::now()), place });
        if let Ok(mut open) = self.open.lock() {
            open.insert(peer, Arc::clone(&activity));
        }
        let timer = Box::pin(tokio::time::sleep(idle));
        Registered { peer, idle, activity, timer, calls: self.clone() }
    }

    /// A call on the connection from `peer` begins: the server owes it an answer. None for a
    /// peer not admitted here (tests' servers).
    pub fn begin(&self, peer: SocketAddr) -> Option<InFlight> {
        let activity = Arc::clone(self.open.lock().ok()?.get(&peer)?);
        activity.owed.fetch_add(1, Ordering::AcqRel);
        Some(InFlight { activity, owed: true })
    }
}

impl InFlight {
    /// The connection the call came on.
    pub fn connection(&self, calls: &Calls) -> ThisConnection {
        ThisConnection { place: Arc::clone(&self.activity.place), carriers: calls.carriers.clone() }
    }
}

/// The connection a call came on, in the call's extensions: a seat's stream marks it (see
/// [`Carriers`]).
#[derive(Clone)]
pub struct ThisConnection {
    place: Arc<slots::Place>,
    carriers: Carriers,
}

impl ThisConnection {
    /// The seat of `token` streams on this connection until the mark is dropped.
    pub fn carries_seat(&self, token: &str) -> SeatCarried {
        self.carriers.carries(&self.place, token)
    }
}

/// A call in flight on its connection, kept with its answer until that is dropped.
pub struct InFlight {
    activity: Arc<Activity>,
    /// Whether the server owes the call something now.
    owed: bool,
}

impl InFlight {
    /// The server owes the call its next update (its answer's body is waiting on it).
    pub fn owed(&mut self) {
        if !self.owed {
            self.owed = true;
            self.activity.owed.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// An answer (or part of one) is ready or was taken: until the client takes more, the
    /// server owes it nothing.
    pub fn answered(&mut self) {
        if self.owed {
            self.owed = false;
            self.activity.owed.fetch_sub(1, Ordering::AcqRel);
        }
        self.activity.moved();
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.answered();
    }
}

/// A connection's entry among the [`Calls`], removed when it closes.
struct Registered {
    peer: SocketAddr,
    idle: Duration,
    activity: Arc<Activity>,
    timer: Pin<Box<Sleep>>,
    calls: Calls,
}

impl Registered {
    /// Whether the connection has been idle for its time: else the timer is set to wake the
    /// reader when it might have been.
    fn idle_out(&mut self, cx: &mut Context<'_>) -> bool {
        if self.idle.is_zero() {
            return false;
        }
        let now = Instant::now();
        if self.activity.owed.load(Ordering::Acquire) > 0 {
            // Busy: look again an idle time from now.
            if self.timer.is_elapsed() {
                self.timer.as_mut().reset(now + self.idle);
            }
        } else {
            let last = self.activity.moved.lock().map_or(now, |l| *l);
            let due = last + self.idle;
            if due <= now {
                return true;
            }
            if self.timer.deadline() != due {
                self.timer.as_mut().reset(due);
            }
        }
        // Wakes the reader when it is due.
        let _ = self.timer.as_mut().poll(cx);
        false
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut open) = self.calls.open.lock()
            && open.get(&self.peer).is_some_and(|a| Arc::ptr_eq(a, &self.activity))
        {
            open.remove(&self.peer);
        }
    }
}
