//! The node port: where the other nodes of a cluster send calls for the tables this node
//! holds (and calls for the ladder and the tournaments, at the node that runs them). It
//! serves the same services as the public port, but only to callers with the
//! cluster's key, and takes the client's address from the call (the node that forwarded it
//! checked the client's limits already; here they count against the client, not that node).
//! A node's calls share one connection, so past its opening it is not held to a client's
//! connection limits; its opening is (`incoming`).

mod incoming;

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tonic::transport::server::TcpConnectInfo;
use tonic::{Request, Status};

use crate::node::Dudo;
use crate::node::cluster::{CLIENT_ADDR, Forwarded, NODE_KEY};

/// Calls at once on one node's connection.
const NODE_STREAMS: u32 = 100_000;

/// Whether `given` is `key`, in time that does not depend on where they differ.
fn same_key(given: &[u8], key: &[u8]) -> bool {
    given.len() == key.len() && given.iter().zip(key).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0
}

/// Counts a call refused for its key, and says so in the log at most every ten seconds (a
/// node with another key, or someone knocking: either way the operator should know).
fn refused_key(from: Option<SocketAddr>) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST_SAID: AtomicU64 = AtomicU64::new(0);
    metrics::counter!("dudo_node_port_refused_total").increment(1);
    let now = u64::try_from(crate::table::unix_millis()).unwrap_or(0) / 1000;
    let last = LAST_SAID.load(Ordering::Relaxed);
    if now >= last + 10 && LAST_SAID.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    {
        let from = from.map_or_else(|| "an unknown address".to_string(), |a| a.to_string());
        tracing::warn!(%from, "a call to the node port without the cluster's key was refused (a node with another key?)");
    }
}

/// Serves the other nodes on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    dudo: Dudo,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let key = dudo.cluster().map(|c| c.key().as_bytes().to_vec()).unwrap_or_default();
    let max_message = dudo.limits().max_message_bytes;
    let gate = move |mut request: Request<()>| -> Result<Request<()>, Status> {
        let given = request.metadata().get(NODE_KEY).map(|v| v.as_bytes()).unwrap_or_default();
        if key.is_empty() || !same_key(given, &key) {
            refused_key(request.remote_addr());
            return Err(Status::unauthenticated(
                "this is a cluster's node port: the cluster's key is missing or wrong",
            ));
        }
        let client = request
            .metadata()
            .get(CLIENT_ADDR)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<SocketAddr>().ok());
        let extensions = request.extensions_mut();
        extensions.insert(TcpConnectInfo { local_addr: None, remote_addr: client });
        extensions.insert(Forwarded);
        Ok(request)
    };
    let incoming = incoming::incoming(listener);
    tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(std::time::Duration::from_secs(10)))
        .http2_keepalive_timeout(Some(std::time::Duration::from_secs(5)))
        .max_concurrent_streams(Some(NODE_STREAMS))
        .layer(tonic::service::InterceptorLayer::new(gate))
        .add_routes(crate::services::routes(dudo, max_message))
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_is_the_same_only_byte_for_byte() {
        assert!(super::same_key(b"secret", b"secret"));
        assert!(!super::same_key(b"secreT", b"secret"));
        assert!(!super::same_key(b"secret!", b"secret"));
        assert!(!super::same_key(b"", b"secret"));
    }
}
