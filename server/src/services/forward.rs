//! Calls for a table another node of the cluster holds: sent there as they came (the
//! client's metadata, with the cluster's key and the client's address added), and the
//! answer passed back as it is, so clients know nothing of nodes.

use std::net::SocketAddr;

use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::Channel;
use tonic::{Extensions, Request, Status};

use crate::node::Dudo;
use crate::node::cluster::{CLIENT_ADDR, Forwarded, NODE_KEY, Route};

/// Whether another node sent this call (it is served here, never sent on again).
pub(crate) fn forwarded<T>(request: &Request<T>) -> bool {
    request.extensions().get::<Forwarded>().is_some()
}

impl Dudo {
    /// The node to send a call for `table` to, if not this one.
    pub(crate) async fn elsewhere<T>(
        &self,
        table: &str,
        request: &Request<T>,
    ) -> Result<Option<Channel>, Status> {
        match self.route(table, forwarded(request)).await? {
            Route::Here => Ok(None),
            Route::There(peer) => Ok(Some(peer)),
        }
    }

    /// [`Dudo::elsewhere`] for a play stream, whose table is named in its first message.
    pub(crate) async fn route_play(&self, table: &str, forwarded: bool) -> Result<Option<Channel>, Status> {
        match self.route(table, forwarded).await? {
            Route::Here => Ok(None),
            Route::There(peer) => Ok(Some(peer)),
        }
    }

    /// A stream another node answers, passed on to the client while it holds `slot`; it ends
    /// when this node stops (no table of this node's ends it), and the client reconnects.
    pub(crate) fn relayed(
        &self,
        updates: tonic::Streaming<dudo_proto::v1::PlayUpdate>,
        slot: crate::node::StreamSlot,
    ) -> crate::node::UpdateStream {
        use tokio_stream::StreamExt;
        self.stopping().ending(updates.map(move |u| {
            let _held = &slot;
            u
        }))
    }

    /// `request` as it is sent on to another node.
    pub(crate) fn onward<T>(&self, request: Request<T>) -> Request<T> {
        let client = request.remote_addr();
        let (metadata, _, message) = request.into_parts();
        self.onward_parts(metadata, client, message)
    }

    /// A request to another node: the client's `metadata` and `message`, with the cluster's
    /// key and where the client is (for the limits each address has there).
    pub(crate) fn onward_parts<T>(
        &self,
        mut metadata: MetadataMap,
        client: Option<SocketAddr>,
        message: T,
    ) -> Request<T> {
        if let Some(key) = self.cluster().and_then(|c| MetadataValue::try_from(c.key()).ok()) {
            metadata.insert(NODE_KEY, key);
        }
        match client.and_then(|a| MetadataValue::try_from(a.to_string()).ok()) {
            Some(addr) => {
                metadata.insert(CLIENT_ADDR, addr);
            }
            None => {
                metadata.remove(CLIENT_ADDR);
            }
        }
        Request::from_parts(metadata, Extensions::default(), message)
    }
}

/// A copy of a request, to send on while keeping the original (in case the other node
/// cannot be reached and the call is served here after all).
pub(crate) fn copy<T: Clone>(request: &Request<T>) -> Request<T> {
    let mut copy =
        Request::from_parts(request.metadata().clone(), Extensions::default(), request.get_ref().clone());
    if let Some(info) = request.extensions().get::<tonic::transport::server::TcpConnectInfo>() {
        copy.extensions_mut().insert(info.clone());
    }
    copy
}
