//! Every call in flight holds memory from the budget, and `GetReplay` answers are few.
//!
//! A call's request is buffered until it is whole (up to the message size limit), and a
//! client may send all but its last byte and wait: each call in flight therefore takes
//! [`call_bytes`] from its address's share of the memory budget, from the moment it arrives
//! until its answer's body is dropped (sent, or the stream reset). A call the budget cannot
//! hold is refused with `server_busy`, so half-sent requests from any number of addresses
//! never take the server past its budget.
//!
//! A replay is one message that waits in the transport until the client reads it; the
//! handler holds it in the budget only while it runs, so one address has at most
//! [`IN_FLIGHT`] unsent at once.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tonic::transport::server::TcpConnectInfo;

/// `GetReplay` answers one address may have unsent at once.
pub const IN_FLIGHT: usize = 4;
const PATH: &str = "/dudo.v1.History/GetReplay";

/// What one call in flight is counted as: its request, buffered up to the message limit,
/// its headers (up to [`MAX_HEADER_BYTES`]) and the transport's state for the stream.
pub fn call_bytes(max_message: usize) -> usize {
    max_message.saturating_add(MAX_HEADER_BYTES as usize).saturating_add(4 * 1024)
}

/// The most header bytes a call may send (gRPC metadata is a few hundred).
pub const MAX_HEADER_BYTES: u32 = 8 * 1024;

/// The layer: the budget every call holds, and one count of replay answers in flight per
/// address, shared by every connection.
#[derive(Clone)]
pub struct CallGate {
    dudo: crate::service::Dudo,
    call_bytes: usize,
    in_flight: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl CallGate {
    pub fn new(dudo: crate::service::Dudo) -> CallGate {
        let call_bytes = call_bytes(dudo.limits().max_message_bytes);
        CallGate { dudo, call_bytes, in_flight: Arc::default() }
    }

    fn take(&self, ip: Option<IpAddr>) -> Option<Ticket> {
        let Some(ip) = ip else { return Some(Ticket { ip: None, gate: self.clone() }) };
        let mut in_flight = self.in_flight.lock().ok()?;
        let n = in_flight.entry(ip).or_default();
        if *n >= IN_FLIGHT {
            return None;
        }
        *n += 1;
        Some(Ticket { ip: Some(ip), gate: self.clone() })
    }
}

/// One replay answer in flight; dropped with its body.
struct Ticket {
    ip: Option<IpAddr>,
    gate: CallGate,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let (Some(ip), Ok(mut in_flight)) = (self.ip, self.gate.in_flight.lock()) else { return };
        if let Some(n) = in_flight.get_mut(&ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                in_flight.remove(&ip);
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

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let ip = request
            .extensions()
            .get::<TcpConnectInfo>()
            .and_then(TcpConnectInfo::remote_addr)
            .map(|a| a.ip());
        let Some(memory) = self.gate.dudo.budget_for(ip).hold(self.gate.call_bytes) else {
            let status = crate::service::status(crate::table::TableError::ServerBusy);
            return Box::pin(async move { Ok(status.into_http()) });
        };
        let mut ticket = None;
        if request.uri().path() == PATH {
            let Some(t) = self.gate.take(ip) else {
                let mut status = tonic::Status::resource_exhausted(format!(
                    "at most {IN_FLIGHT} replays unsent at once per address: read the ones asked for first"
                ));
                if let Ok(code) = "rate_limited".parse() {
                    status.metadata_mut().insert(crate::service::CODE_KEY, code);
                }
                return Box::pin(async move { Ok(status.into_http()) });
            };
            ticket = Some(t);
        }
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| tonic::body::Body::new(Held { body, _memory: memory, _ticket: ticket })))
        })
    }
}

/// An answer's body, holding the call's memory (and a replay's ticket) until it is dropped.
struct Held {
    body: tonic::body::Body,
    _memory: crate::budget::Held,
    _ticket: Option<Ticket>,
}

impl http_body::Body for Held {
    type Data = bytes::Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<bytes::Bytes>, tonic::Status>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
