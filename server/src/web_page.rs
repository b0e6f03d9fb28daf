//! The browser table: the page built from `web/` (`web/dist`, committed, so building the
//! server needs no Node), embedded in the binary and served on the gRPC port to the GETs
//! that are not gRPC. `/`, `/t/CODE` (a table's link), `/games`, `/g/GAME` (a replay),
//! `/ladder` and `/ladder/POOL/NAME` get the page; `/assets/app.js` and
//! `/assets/app.css` its script and style, gzipped for browsers that take it. The page's
//! gRPC-Web calls come back to the same origin, so it needs no CORS; pages served from
//! elsewhere are let in by `--allowed-origin` (see `lib.rs`).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};

/// One file of the page, as built, and gzipped.
struct Asset {
    plain: &'static [u8],
    gzipped: &'static [u8],
    content_type: &'static str,
    status: StatusCode,
}

const PAGE: Asset = Asset {
    plain: include_bytes!("../../web/dist/index.html"),
    gzipped: include_bytes!("../../web/dist/index.html.gz"),
    content_type: "text/html; charset=utf-8",
    status: StatusCode::OK,
};
const SCRIPT: Asset = Asset {
    plain: include_bytes!("../../web/dist/app.js"),
    gzipped: include_bytes!("../../web/dist/app.js.gz"),
    content_type: "text/javascript; charset=utf-8",
    status: StatusCode::OK,
};
const STYLE: Asset = Asset {
    plain: include_bytes!("../../web/dist/app.css"),
    gzipped: include_bytes!("../../web/dist/app.css.gz"),
    content_type: "text/css; charset=utf-8",
    status: StatusCode::OK,
};

/// Any other GET: a line saying where the page is.
const NOT_FOUND: Asset = Asset {
    plain: b"Not found. dudo's table is at /\n",
    gzipped: b"",
    content_type: "text/plain; charset=utf-8",
    status: StatusCode::NOT_FOUND,
};

/// What the page may load and who may frame it.
const CONTENT_POLICY: &str =
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The file a GET for `path` is answered with; none: not the page's (gRPC's, or unknown).
fn asset(path: &str) -> Option<&'static Asset> {
    match path {
        "/" | "/index.html" | "/games" | "/ladder" => Some(&PAGE),
        "/assets/app.js" => Some(&SCRIPT),
        "/assets/app.css" => Some(&STYLE),
        // A table's link, a game's replay, a player's ladder page: the page, which reads
        // what to show from the address.
        p if [("/t/", 1), ("/g/", 1), ("/ladder/", 2)]
            .iter()
            .any(|&(prefix, parts)| names(p, prefix, parts)) =>
        {
            Some(&PAGE)
        }
        _ => None,
    }
}

/// Whether `path` is `prefix` and then `parts` non-empty names of at most 128 bytes each.
fn names(path: &str, prefix: &str, parts: usize) -> bool {
    path.strip_prefix(prefix).is_some_and(|rest| {
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let mut count = 0;
        rest.split('/').all(|part| {
            count += 1;
            !part.is_empty() && part.len() <= 128
        }) && count == parts
    })
}

/// Page requests a second from one address (with a burst of twice that), when calls have a
/// rate at all: a page load is a few requests, and each answer is up to a few hundred KB, so
/// an address asking for the page without end would turn its small requests into the
/// server's bandwidth. Past it: `429 Too Many Requests`, with `Retry-After`.
pub const PAGE_REQUESTS_PER_SECOND: u32 = 50;

/// The layer serving the page in front of the gRPC services.
#[derive(Clone)]
pub struct WebPage {
    rate: Arc<crate::connections::opening_rate::OpeningRate>,
}

impl WebPage {
    /// The page, served at the rate `limits` allow (none when calls have no rate).
    pub fn new(limits: &crate::limits::Limits) -> WebPage {
        let per_address = match limits.calls_per_second_per_ip {
            0 => 0,
            calls => calls.min(PAGE_REQUESTS_PER_SECOND),
        };
        WebPage { rate: Arc::new(crate::connections::opening_rate::OpeningRate::new(per_address, 0)) }
    }
}

impl<S> tower_layer::Layer<S> for WebPage {
    type Service = Served<S>;

    fn layer(&self, inner: S) -> Served<S> {
        Served { inner, rate: Arc::clone(&self.rate) }
    }
}

#[derive(Clone)]
pub struct Served<S> {
    inner: S,
    rate: Arc<crate::connections::opening_rate::OpeningRate>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<Request<B>> for Served<S>
where
    S: tower_service::Service<Request<B>, Response = Response<tonic::body::Body>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // gRPC is only ever a POST: every GET is the page's, or not found.
        let get = request.method() == Method::GET || request.method() == Method::HEAD;
        if !get {
            return Box::pin(self.inner.call(request));
        }
        let ip = request
            .extensions()
            .get::<tonic::transport::server::TcpConnectInfo>()
            .and_then(tonic::transport::server::TcpConnectInfo::remote_addr)
            .map(|a| crate::address::of(a.ip()));
        if let Some(ip) = ip
            && let Err(wait) = self.rate.allow(ip, tokio::time::Instant::now())
        {
            let mut response = Response::new(tonic::body::Body::new(Whole(Some(Bytes::from_static(
                b"slow down: too many page requests from one address\n",
            )))));
            *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
            let secs = wait.as_secs().max(1);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
            return Box::pin(async move { Ok(response) });
        }
        let response = match asset(request.uri().path()) {
            Some(asset) => answer(asset, &request),
            None => answer(&NOT_FOUND, &request),
        };
        Box::pin(async move { Ok(response) })
    }
}

fn answer<B>(asset: &Asset, request: &Request<B>) -> Response<tonic::body::Body> {
    let gzip = request
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(accepts_gzip));
    let gzip = gzip && !asset.gzipped.is_empty();
    let bytes = if gzip { asset.gzipped } else { asset.plain };
    let body = if request.method() == Method::HEAD { Bytes::new() } else { Bytes::from_static(bytes) };
    let mut response = Response::new(tonic::body::Body::new(Whole(Some(body))));
    *response.status_mut() = asset.status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    // The page changes with the server: a browser asks again rather than keep an old one.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    // No other site may frame the page (a seat's token is in its storage), and the page
    // runs nothing but its own script, calling nothing but its own server.
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_POLICY));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if gzip {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    response
}

/// Whether one `Accept-Encoding` item takes gzip (`gzip`, `gzip;q=0.5`; not `gzip;q=0`).
fn accepts_gzip(item: &str) -> bool {
    let mut parts = item.split(';').map(str::trim);
    parts.next().is_some_and(|e| e.eq_ignore_ascii_case("gzip"))
        && !parts.any(|p| p.strip_prefix("q=").is_some_and(|q| q.parse::<f32>().is_ok_and(|q| q <= 0.0)))
}

/// A body of one chunk.
struct Whole(Option<Bytes>);

impl http_body::Body for Whole {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, tonic::Status>>> {
        Poll::Ready(self.0.take().filter(|b| !b.is_empty()).map(|b| Ok(http_body::Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.as_ref().is_none_or(Bytes::is_empty)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_refused_by_the_client_is_not_sent() {
        assert!(accepts_gzip("gzip") && accepts_gzip(" gzip;q=0.5") && accepts_gzip("GZIP"));
        assert!(!accepts_gzip("gzip;q=0") && !accepts_gzip("br") && !accepts_gzip("gzip; q=0.0"));
    }

    #[test]
    fn the_page_is_served_for_its_paths_and_nothing_else() {
        for page in
            ["/", "/t/ABCDEF", "/assets/app.js", "/games", "/g/0123abcd", "/ladder", "/ladder/ranked/Ana"]
        {
            assert!(asset(page).is_some(), "{page}");
        }
        for other in
            ["/t/", "/t/A/B", "/dudo.v1.Lobby/ListTables", "/x", "/ladder/ranked", "/ladder/a//b", "/g/"]
        {
            assert!(asset(other).is_none(), "{other}");
        }
    }
}
