//! Calls for a table another node of the cluster holds: sent there as they came (the
//! client's metadata, with the cluster's key and the client's address added), and the
//! answer passed back as it is, so clients know nothing of nodes.

use std::future::Future;
use std::net::SocketAddr;

use dudo_proto::codec::DudoCodec;

use dudo_proto::v1 as pb;

use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::transport::Channel;
use tonic::{Extensions, Request, Response, Status};

use crate::connections::call_gate::Method;
use crate::node::Dudo;
use crate::node::cluster::{CLIENT_ADDR, Forwarded, NODE_KEY, Route, SERVER_WATCH};

/// Updates a relayed stream holds for its client, and their bytes (as the table's own
/// streams are bounded).
const RELAY_UPDATES: usize = 1024;
const RELAY_BYTES: usize = 1024 * 1024;

/// What another node's failure means to the client: the node that held the table died, or
/// the connection to it broke, so the table is changing hands (clients resume, as they do
/// for `table_moved`). A refusal with a code of its own passes as it is.
pub(crate) fn from_peer(status: Status) -> Status {
    if status.metadata().get(crate::status::CODE_KEY).is_some() {
        return status;
    }
    match status.code() {
        tonic::Code::Unknown | tonic::Code::Unavailable | tonic::Code::Cancelled => {
            crate::node::cluster::changing_hands().into()
        }
        _ => status,
    }
}

/// Whether another node sent this call (it is served here, never sent on again).
pub(crate) fn forwarded<T>(request: &Request<T>) -> bool {
    request.extensions().get::<Forwarded>().is_some()
}

/// A request for one table: its message names the table, and the node holding the table
/// answers it.
pub(crate) trait ForTable {
    fn table(&self) -> &str;
}

macro_rules! for_table {
    ($($message:ty),+ $(,)?) => {
        $(impl ForTable for $message {
            fn table(&self) -> &str {
                &self.table
            }
        })+
    };
}

for_table!(
    pb::TableRef,
    pb::JoinTableRequest,
    pb::AddBotRequest,
    pb::ChangeSettingsRequest,
    pb::RemovePlayerRequest,
    pb::SubscribeRequest,
    pb::ActRequest,
    pb::WatchRequest,
    pb::MuteSeatRequest,
    pb::SayRequest,
);

impl Dudo {
    /// A call for the table `request` names: `here` when this node holds the table, otherwise
    /// sent on as it came to the node that does (see [`Dudo::served`]).
    pub(crate) async fn at_table<Req, Res, Here>(
        &self,
        request: Request<Req>,
        here: impl FnOnce(Request<Req>) -> Here,
    ) -> Result<Response<Res>, Status>
    where
        Req: ForTable + prost::Message + Send + Sync + 'static,
        Res: prost::Message + Default + Send + 'static,
        Here: Future<Output = Result<Response<Res>, Status>>,
    {
        let there = self.elsewhere(request.get_ref().table(), &request).await?;
        self.served(there, request, here).await
    }

    /// A call answered `here`, or when `there` is another node, sent on to it as it came
    /// (the client's metadata, the cluster's key, the client's address), its answer passed
    /// back as it is: the one place a call leaves for another node, so clients know nothing
    /// of nodes.
    pub(crate) async fn served<Req, Res, Here>(
        &self,
        there: Option<Channel>,
        request: Request<Req>,
        here: impl FnOnce(Request<Req>) -> Here,
    ) -> Result<Response<Res>, Status>
    where
        Req: prost::Message + Send + Sync + 'static,
        Res: prost::Message + Default + Send + 'static,
        Here: Future<Output = Result<Response<Res>, Status>>,
    {
        let Some(peer) = there else { return here(request).await };
        let (mut grpc, path) = sending_on(peer, &request).await?;
        grpc.unary(self.onward(request), path, DudoCodec::default()).await.map_err(from_peer)
    }

    /// [`Dudo::at_table`] for a stream of the table's updates (`Subscribe`, `Watch`): another
    /// node's is relayed for as long as the client holds `slot` (see [`Dudo::relayed`]).
    pub(crate) async fn stream_at_table<Req, Here>(
        &self,
        request: Request<Req>,
        slot: crate::node::StreamSlot,
        here: impl FnOnce(Request<Req>, crate::node::StreamSlot) -> Here,
    ) -> Result<Response<crate::node::UpdateStream>, Status>
    where
        Req: ForTable + prost::Message + Send + Sync + 'static,
        Here: Future<Output = Result<Response<crate::node::UpdateStream>, Status>>,
    {
        let Some(peer) = self.elsewhere(request.get_ref().table(), &request).await? else {
            return here(request, slot).await;
        };
        let (mut grpc, path) = sending_on(peer, &request).await?;
        let updates = grpc
            .server_streaming(self.onward(request), path, DudoCodec::<Req, pb::PlayUpdate>::default())
            .await
            .map_err(from_peer)?
            .into_inner();
        Ok(Response::new(self.relayed(updates, slot)))
    }

    /// The node to send a call for `table` to, if not this one.
    pub(crate) async fn elsewhere<T>(
        &self,
        table: &str,
        request: &Request<T>,
    ) -> Result<Option<Channel>, Status> {
        self.route_play(table, forwarded(request)).await
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
    ///
    /// The other node's updates are read as they come, whatever the client does: every
    /// relayed stream to that node shares one connection, and one left unread would stop
    /// them all. A client that falls [`RELAY_UPDATES`] or [`RELAY_BYTES`] behind is dropped
    /// as the table drops a slow reader (`too_far_behind`), and resumes.
    pub(crate) fn relayed(
        &self,
        mut updates: tonic::Streaming<dudo_proto::v1::PlayUpdate>,
        slot: crate::node::StreamSlot,
    ) -> crate::node::UpdateStream {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use tokio_stream::StreamExt;
        let (tx, rx) = tokio::sync::mpsc::channel(RELAY_UPDATES);
        let held = Arc::new(AtomicUsize::new(0));
        let behind = Arc::new(AtomicBool::new(false));
        let (held_by_reader, behind_at_end) = (Arc::clone(&held), Arc::clone(&behind));
        tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    next = updates.message() => next,
                    () = tx.closed() => return,
                };
                let item = match next {
                    Ok(Some(update)) => {
                        let size = prost::Message::encoded_len(&update);
                        if held.load(Ordering::Relaxed) + size > RELAY_BYTES {
                            behind.store(true, Ordering::Relaxed);
                            return;
                        }
                        held.fetch_add(size, Ordering::Relaxed);
                        Ok((update, size))
                    }
                    Ok(None) => return,
                    Err(status) => Err(from_peer(status)),
                };
                let last = item.is_err();
                if tx.try_send(item).is_err() {
                    behind.store(true, Ordering::Relaxed);
                    return;
                }
                if last {
                    return;
                }
            }
        });
        let relayed = tokio_stream::wrappers::ReceiverStream::new(rx).map(move |item| {
            item.map(|(update, size)| {
                held_by_reader.fetch_sub(size, Ordering::Relaxed);
                update
            })
        });
        let why = tokio_stream::iter([()]).filter_map(move |()| {
            behind_at_end
                .load(Ordering::Relaxed)
                .then(|| Err(crate::status::status(crate::table::TableError::TooFarBehind)))
        });
        self.stopping().ending(super::held(slot, relayed.chain(why)))
    }

    /// The server's own spectator stream of a table another node of the cluster holds (a
    /// tournament's, after its director moved); none when no node holds it open. Read by
    /// one task of the server's, at once: no slot or relay is needed.
    pub(crate) async fn watch_elsewhere(
        &self,
        table: &str,
    ) -> Result<Option<crate::node::UpdateStream>, Status> {
        use dudo_proto::v1::play_client::PlayClient;
        let Route::There(peer) = self.route(table, false).await? else {
            return Ok(None);
        };
        let watch = dudo_proto::v1::WatchRequest { table: table.to_string(), since: None };
        let mut request = self.onward_parts(MetadataMap::new(), None, watch);
        request.metadata_mut().insert(SERVER_WATCH, MetadataValue::from_static("1"));
        let updates = PlayClient::new(peer).watch(request).await.map_err(from_peer)?.into_inner();
        Ok(Some(Box::pin(updates)))
    }

    /// Closes a table the server made, at this node or the one that holds it.
    pub(crate) async fn close_anywhere(&self, table: &str, host_token: &str) {
        use dudo_proto::v1::lobby_client::LobbyClient;
        if self.find(table).is_ok() {
            return self.close_internal(table, host_token).await;
        }
        let Ok(Route::There(peer)) = self.route(table, false).await else { return };
        let mut metadata = MetadataMap::new();
        if let Ok(bearer) = MetadataValue::try_from(format!("Bearer {host_token}")) {
            metadata.insert("authorization", bearer);
        }
        let request =
            self.onward_parts(metadata, None, dudo_proto::v1::TableRef { table: table.to_string() });
        if let Err(e) = LobbyClient::new(peer).close_table(request).await {
            tracing::warn!(table = %table, error = %e, "a table at another node could not be closed");
        }
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
        // Only this node says it is its own watch (see `watch_elsewhere`).
        metadata.remove(SERVER_WATCH);
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

/// A client for `peer`, ready, and the method `request` came in as.
async fn sending_on<Req>(
    peer: Channel,
    request: &Request<Req>,
) -> Result<(tonic::client::Grpc<Channel>, http::uri::PathAndQuery), Status> {
    // Every call from a client passes the call gate, which names its method; one without is
    // a call this node cannot say how to send on.
    let path = request
        .extensions()
        .get::<Method>()
        .map(|m| m.0.clone())
        .ok_or_else(|| Status::internal("a call for another node's table came without its method"))?;
    let mut grpc = tonic::client::Grpc::new(peer);
    grpc.ready().await.map_err(|e| from_peer(Status::unknown(e.to_string())))?;
    Ok((grpc, path))
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
