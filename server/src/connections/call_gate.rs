//! Every call in flight holds memory from the budget, and `GetReplay` answers are few.
//!
//! A call's request is buffered until it is whole (up to the message size limit), and a
//! client may send all but its last byte and wait: each call in flight therefore takes
//! [`call_bytes`] from its address's share of the memory budget, from the moment it arrives
//! until its answer's body is dropped (sent, or the stream reset). A call the budget cannot
//! hold is refused with `server_busy`, so half-sent requests from any number of addresses
//! never take the server past its budget.
//!
//! A large answer (a list of games, a board, a replay) also holds its own size until it is
//! sent: its handler puts an [`AnswerHeld`] in the response's extensions, and the hold goes
//! with the answer's body.
//!
//! A replay is one message that waits in the transport until the client reads it, and a
//! replay stream holds its whole record for as long as it is open (at speed 0.01, for
//! hours): one address has at most [`IN_FLIGHT`] of them at once, answers unsent and streams
//! open together.
//!
//! A call's request must be whole within `Limits::request_time` (60 s): past it the call is
//! answered `DEADLINE_EXCEEDED` and what it held is given back. The time is kept here, inside
//! the gRPC-Web layer, so a browser's half-sent request is answered in gRPC-Web too.
//!
//! Calls that free memory (closing, resetting or leaving a table, removing a player) and
//! health checks get through a full budget: an address whose share is full must still be
//! able to free it, and an orchestrator must still see the server alive. Past the budget,
//! each address may have [`IN_FLIGHT`] of them in flight, and the server [`EXEMPT_IN_FLIGHT`].

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tonic::transport::server::TcpConnectInfo;

/// Memory an answer holds from its reader's share until its body is dropped (see
/// `Dudo::answer_held`).
#[derive(Clone, Debug)]
pub struct AnswerHeld(pub Arc<crate::budget::Held>);

/// The gRPC method a call came in as (`/dudo.v1.Lobby/AddBot`), put in its extensions: what
/// the services send a call on to another node as.
#[derive(Clone, Debug)]
pub struct Method(pub http::uri::PathAndQuery);

/// `GetReplay` answers one address may have unsent at once.
pub const IN_FLIGHT: usize = 4;
/// The calls that hold a whole record while they run: `GetReplay` until its answer is sent,
/// `WatchReplay` for as long as its stream is open.
const REPLAYS: &[&str] = &["/dudo.v1.History/GetReplay", "/dudo.v1.History/WatchReplay"];
/// Calls let through a full budget (see the module's doc).
const EXEMPT: &[&str] = &[
    "/dudo.v1.Lobby/CloseTable",
    "/dudo.v1.Lobby/ResetTable",
    "/dudo.v1.Lobby/Leave",
    "/dudo.v1.Lobby/RemovePlayer",
    "/grpc.health.v1.Health/Check",
];
/// Exempt calls in flight past a full budget, server-wide.
pub const EXEMPT_IN_FLIGHT: usize = 256;
/// The calls that open a stream, counted against an address's stream-opening rate as well.
const STREAMS: &[&str] = &[
    "/dudo.v1.Play/Play",
    "/dudo.v1.Play/Subscribe",
    "/dudo.v1.Play/Watch",
    "/dudo.v1.History/WatchReplay",
    "/dudo.v1.Ladder/Enter",
    "/dudo.v1.Ladder/Check",
    "/dudo.v1.Tournaments/Enter",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];
/// Calls no rate counts: an orchestrator's probes.
const UNRATED: &[&str] = &["/grpc.health.v1.Health/Check"];

/// What one call in flight is counted as: its request, buffered up to the message limit,
/// its headers (up to [`MAX_HEADER_BYTES`]) and the transport's state for the stream.
pub fn call_bytes(max_message: usize) -> usize {
    max_message.saturating_add(MAX_HEADER_BYTES as usize).saturating_add(4 * 1024)
}

/// The most header bytes a call may send (gRPC metadata is a few hundred).
pub const MAX_HEADER_BYTES: u32 = 8 * 1024;

/// The layer: the budget every call holds, and counts of replay answers and of exempt calls
/// in flight per address, shared by every connection.
#[derive(Clone)]
pub struct CallGate {
    budgets: crate::budget::Budgets,
    /// How long a call may take (`Limits::request_time`).
    request_time: std::time::Duration,
    /// Each connection's calls in flight (an idle connection is closed).
    calls: super::Calls,
    call_bytes: usize,
    replays: Counts,
    exempt: Counts,
    /// Calls a second per address, and stream opens a second (`Limits`): a flood of calls
    /// that each fail (an unknown token) still costs the server its parsing and answering.
    call_rate: Arc<super::opening_rate::OpeningRate>,
    stream_rate: Arc<super::opening_rate::OpeningRate>,
    /// Where a refused address is noted (a table does not take out a player refused).
    refused: crate::address::Refused,
}

impl CallGate {
    pub fn new(
        limits: &crate::limits::Limits,
        budgets: crate::budget::Budgets,
        calls: super::Calls,
        refused: crate::address::Refused,
    ) -> CallGate {
        CallGate {
            budgets,
            request_time: limits.request_time,
            calls,
            call_bytes: call_bytes(limits.max_message_bytes),
            replays: Counts::default(),
            exempt: Counts::default(),
            call_rate: Arc::new(super::opening_rate::OpeningRate::new(limits.calls_per_second_per_ip, 0)),
            stream_rate: Arc::new(super::opening_rate::OpeningRate::new(
                limits.stream_opens_per_second_per_ip,
                0,
            )),
            refused,
        }
    }

    /// Whether `ip` may make a call to `path` now; the refusal, with how long to wait, if not.
    fn rate(&self, ip: Option<IpAddr>, path: &str) -> Result<(), tonic::Status> {
        let Some(ip) = ip.filter(|_| !UNRATED.contains(&path)) else { return Ok(()) };
        let now = tokio::time::Instant::now();
        let over = |what: &str, per_second: u32, wait: std::time::Duration| {
            metrics::counter!("dudo_calls_refused_total", "why" => "rate").increment(1);
            self.refused.note(ip);
            let mut status = crate::status::refused(
                "rate_limited",
                tonic::Status::resource_exhausted(format!(
                    "slow down: one address may make {per_second} {what} a second (try again in {} ms)",
                    wait.as_millis().max(1)
                )),
            );
            let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
            if let Ok(value) = millis.to_string().parse() {
                status.metadata_mut().insert(crate::status::RETRY_AFTER_KEY, value);
            }
            status
        };
        if let Err(wait) = self.call_rate.allow(ip, now) {
            return Err(over("calls", self.call_rate.per_address(), wait));
        }
        if STREAMS.contains(&path)
            && let Err(wait) = self.stream_rate.allow(ip, now)
        {
            return Err(over("stream opens", self.stream_rate.per_address(), wait));
        }
        Ok(())
    }
}

/// Things in flight per address (and in all), each counted by a [`Ticket`].
#[derive(Clone, Default)]
pub(crate) struct Counts {
    by_address: Arc<Mutex<(HashMap<IpAddr, usize>, usize)>>,
}

impl Counts {
    /// A ticket if `ip` has fewer than `each` in flight and everyone fewer than `all`.
    pub(crate) fn take(&self, ip: Option<IpAddr>, each: usize, all: usize) -> Option<Ticket> {
        let mut counts = self.by_address.lock().ok()?;
        let (by_address, total) = &mut *counts;
        if *total >= all {
            return None;
        }
        if let Some(ip) = ip {
            let n = by_address.entry(ip).or_default();
            if *n >= each {
                return None;
            }
            *n += 1;
        }
        *total += 1;
        Some(Ticket { ip, counts: self.clone() })
    }
}

/// One thing in flight (a call: dropped with its answer's body).
pub(crate) struct Ticket {
    ip: Option<IpAddr>,
    counts: Counts,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let Ok(mut counts) = self.counts.by_address.lock() else { return };
        let (by_address, total) = &mut *counts;
        *total = total.saturating_sub(1);
        if let Some(ip) = self.ip
            && let Some(n) = by_address.get_mut(&ip)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                by_address.remove(&ip);
            }
        }
    }
}

impl<S> tower_layer::Layer<S> for CallGate {
    type Service = Gated<S>;

    fn layer(&self, inner: S) -> Gated<S> {
        Gated { inner, gate: self.clone() }
    }
}

#[derive(Clone)]
pub struct Gated<S> {
    inner: S,
    gate: CallGate,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<http::Request<B>> for Gated<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        // The method, for a call the services send on to the node that holds its table.
        if let Some(path) = request.uri().path_and_query().cloned() {
            request.extensions_mut().insert(Method(path));
        }
        let peer = request.extensions().get::<TcpConnectInfo>().and_then(TcpConnectInfo::remote_addr);
        let ip = peer.map(|a| crate::address::of(a.ip()));
        // Before anything is held for it: a refused call costs its parsing and this answer.
        if let Err(status) = self.gate.rate(ip, request.uri().path()) {
            return Box::pin(async move { Ok(status.into_http()) });
        }
        // In flight from here until its answer's body is dropped, even if refused below.
        let mut in_flight = peer.and_then(|p| self.gate.calls.begin(p));
        if let Some(call) = &in_flight {
            request.extensions_mut().insert(call.connection(&self.gate.calls));
        }
        let memory = self.gate.budgets.for_address(ip).hold(self.gate.call_bytes);
        let mut exempt = None;
        if memory.is_none() {
            // Past the budget, only calls that free memory and health checks, a few at once.
            if EXEMPT.contains(&request.uri().path()) {
                exempt = self.gate.exempt.take(ip, IN_FLIGHT, EXEMPT_IN_FLIGHT);
            }
            if exempt.is_none() {
                let status = crate::status::status(crate::table::TableError::ServerBusy);
                return Box::pin(async move { Ok(status.into_http()) });
            }
        }
        let mut ticket = None;
        if REPLAYS.contains(&request.uri().path()) {
            let Some(t) = self.gate.replays.take(ip, IN_FLIGHT, usize::MAX) else {
                let status = crate::status::refused(
                    "rate_limited",
                    tonic::Status::resource_exhausted(format!(
                        "at most {IN_FLIGHT} replays (GetReplay answers unsent, WatchReplay streams open) at once per address: finish the ones asked for first"
                    )),
                );
                return Box::pin(async move { Ok(status.into_http()) });
            };
            ticket = Some(t);
        }
        let answer = self.inner.call(request);
        let request_time = self.gate.request_time;
        Box::pin(async move {
            let Ok(response) = tokio::time::timeout(request_time, answer).await else {
                let status = tonic::Status::deadline_exceeded(format!(
                    "the request was not whole within {} s",
                    request_time.as_secs()
                ));
                let mut reply = status.into_http();
                crate::status::give_code(reply.headers_mut());
                return Ok(reply);
            };
            let mut response = response?;
            crate::status::give_code(response.headers_mut());
            if let Some(call) = in_flight.as_mut() {
                call.answered();
            }
            let answer = response.extensions_mut().remove::<AnswerHeld>();
            Ok(response.map(|body| {
                tonic::body::Body::new(Held {
                    body,
                    _memory: memory,
                    _answer: answer,
                    _ticket: ticket,
                    _exempt: exempt,
                    in_flight,
                })
            }))
        })
    }
}

/// An answer's body, holding the call's memory (or, past the budget, an exempt call's
/// ticket), and a replay's ticket, until it is dropped.
struct Held {
    body: tonic::body::Body,
    _memory: Option<crate::budget::Held>,
    /// A large answer's own size (see [`AnswerHeld`]).
    _answer: Option<AnswerHeld>,
    _ticket: Option<Ticket>,
    _exempt: Option<Ticket>,
    /// What the connection is owed of this call (see `connections`).
    in_flight: Option<super::InFlight>,
}

impl http_body::Body for Held {
    type Data = bytes::Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<bytes::Bytes>, tonic::Status>>> {
        let mut frame = Pin::new(&mut self.body).poll_frame(cx);
        // The status a stream ends with carries a code, as every failed call's does.
        if let Poll::Ready(Some(Ok(end))) = &mut frame
            && let Some(trailers) = end.trailers_mut()
        {
            crate::status::give_code(trailers);
        }
        // Waiting on the server (a stream's next update) keeps the connection; a frame
        // handed over is for the client to take.
        if let Some(call) = self.in_flight.as_mut() {
            if frame.is_pending() { call.owed() } else { call.answered() }
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
