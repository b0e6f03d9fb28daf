//! At most a few `GetReplay` answers in flight per client address, until each is sent.
//!
//! A replay is one message: the handler returns it, and it waits in the transport until the
//! client reads it. A client that asks and never reads would have the server hold every
//! answer for as long as its connection lives, outside the memory budget (which the handler
//! can only hold while it runs). This layer counts an answer from the call until its body is
//! dropped (sent, or the stream reset), so one address holds at most [`IN_FLIGHT`] of them.

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

/// The layer: one count of answers in flight per address, shared by every connection.
#[derive(Clone, Default)]
pub struct ReplayGate {
    in_flight: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl ReplayGate {
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

/// One answer in flight; dropped with its body.
struct Ticket {
    ip: Option<IpAddr>,
    gate: ReplayGate,
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

impl<S> tower_layer::Layer<S> for ReplayGate {
    type Service = Gated<S>;

    fn layer(&self, inner: S) -> Gated<S> {
        Gated { inner, gate: self.clone() }
    }
}

#[derive(Clone)]
pub struct Gated<S> {
    inner: S,
    gate: ReplayGate,
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
        if request.uri().path() != PATH {
            return Box::pin(self.inner.call(request));
        }
        let ip = request
            .extensions()
            .get::<TcpConnectInfo>()
            .and_then(TcpConnectInfo::remote_addr)
            .map(|a| a.ip());
        let Some(ticket) = self.gate.take(ip) else {
            let mut status = tonic::Status::resource_exhausted(format!(
                "at most {IN_FLIGHT} replays unsent at once per address: read the ones asked for first"
            ));
            if let Ok(code) = "rate_limited".parse() {
                status.metadata_mut().insert(crate::service::CODE_KEY, code);
            }
            return Box::pin(async move { Ok(status.into_http()) });
        };
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| tonic::body::Body::new(Held { body, _ticket: ticket })))
        })
    }
}

/// An answer's body, holding its ticket until it is dropped.
struct Held {
    body: tonic::body::Body,
    _ticket: Ticket,
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
