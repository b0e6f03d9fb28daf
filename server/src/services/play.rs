//! The Play service: a seat's stream (`Play`, `Subscribe`), its actions (`Act`) and a
//! spectator's stream (`Watch`). Each stream is the table's deliveries to one audience.

use dudo_proto::v1 as pb;
use dudo_proto::v1::play_client::PlayClient;
use dudo_proto::v1::play_server::Play;
use futures_util::stream::{PollNext, select_with_strategy};
use tokio_stream::StreamExt;
use tonic::{Request, Response, Status, Streaming};

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::forward::from_peer;
use super::token_of;
use crate::node::{Dudo, UpdateStream};
use crate::status::{RETRY_AFTER_KEY, bad_request, code_of, upward_error};
use crate::table;

/// The largest action a refusal echoes back, in encoded bytes (any real action is far smaller).
const MAX_ECHOED_ACTION: usize = 1024;
/// How long a `Play` stream has to send its hello: until then it holds no place among its
/// address's streams, and is not kept waiting for one for ever.
const HELLO_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// The Play service: a thin adapter over the node, which does the work.
pub struct PlayService {
    node: Dudo,
}

impl PlayService {
    pub fn new(node: Dudo) -> PlayService {
        PlayService { node }
    }
}

#[tonic::async_trait]
impl Play for PlayService {
    type PlayStream = UpdateStream;
    type SubscribeStream = UpdateStream;
    type WatchStream = UpdateStream;

    async fn play(
        &self,
        request: Request<Streaming<pb::PlayRequest>>,
    ) -> Result<Response<Self::PlayStream>, Status> {
        let token = token_of(&request)?;
        let client = request.remote_addr();
        let reader = client.map(|a| crate::address::of(a.ip()));
        let is_forwarded = super::forward::forwarded(&request);
        let metadata = request.metadata().clone();
        let connection = request.extensions().get::<crate::connections::ThisConnection>().cloned();
        let mut incoming = request.into_inner();
        let hello = match tokio::time::timeout(HELLO_TIME, incoming.next()).await {
            Ok(Some(Ok(pb::PlayRequest { request: Some(pb::play_request::Request::Hello(h)), .. }))) => h,
            // A first message that cannot be read says why, as a later one would.
            Ok(Some(Err(status))) => return Err(upward_error(&status)),
            Err(_) => {
                return Err(bad_request(format!(
                    "the first message of a play stream is a hello naming the table, within {} s",
                    HELLO_TIME.as_secs()
                )));
            }
            _ => {
                return Err(bad_request("the first message of a play stream is a hello naming the table"));
            }
        };
        // Its place among the address's streams once the table it names is known: a seat's
        // there is kept at the address's cap.
        let slot = self.node.seat_stream_slot(client, &hello.table, &token).await?;
        if let Some(peer) = self.node.route_play(&hello.table, is_forwarded).await? {
            // The hello first, then whatever the client sends, up to its first unreadable message.
            let first =
                pb::PlayRequest { request: Some(pb::play_request::Request::Hello(hello)), answers: None };
            let upward = tokio_stream::once(first).chain(incoming.map_while(Result::ok));
            let updates = PlayClient::new(peer)
                .play(self.node.onward_parts(metadata, client, upward))
                .await
                .map_err(from_peer)?;
            let relayed = self.node.relayed(updates.into_inner(), slot);
            return Ok(Response::new(carrying_seat(relayed, connection, &token)));
        }
        let handle = self.node.find(&hello.table)?;
        let updates = self.node.stream(&hello.table, Some(token.clone()), hello.since, reader).await?;
        // Actions coming up are sent to the table; refusals come back down the stream. Boxed:
        // a channel allocates 32 slots at once, and a seat that is never refused should not
        // hold 32 updates' worth.
        let (refusals_tx, refusals_rx) = mpsc::channel::<Box<Result<pb::PlayUpdate, Status>>>(16);
        let service = self.node.clone();
        let seat_token = token.clone();
        // Refusals the service makes before the table sees a message (it does not decode as
        // an action, it is empty) cost no table anything, so they have a budget of their
        // own: past it, the stream is read no faster than the seat's call rate.
        let rate = table::rate::Pace::per_second(f64::from(self.node.limits.actions_per_second.max(1)));
        tokio::spawn(async move {
            let epoch = tokio::time::Instant::now();
            let mut unread = table::rate::Allowance::full(rate, std::time::Duration::ZERO);
            while let Some(message) = incoming.next().await {
                let message = match message {
                    Ok(message) => message,
                    // A message that cannot be read (undecodable, too large) ends the stream
                    // with a status saying so: never a stream that silently stops listening.
                    Err(status) => {
                        let _ = refusals_tx.send(Box::new(Err(upward_error(&status)))).await;
                        break;
                    }
                };
                let answers = message.answers;
                // A move's refusal may be followed by the prompt again; a line of talk's never
                // (the prompt the seat holds still stands).
                let moves = matches!(
                    message.request,
                    Some(
                        pb::play_request::Request::Action(_)
                            | pb::play_request::Request::PassCall(_)
                            | pb::play_request::Request::NextRound(_)
                    )
                );
                let (wire, outcome) = match message.request {
                    Some(pb::play_request::Request::Action(wire)) => {
                        let outcome = service.act_on(&handle, &token, Some(&wire), answers).await;
                        (Some(wire), outcome.map_err(Status::from))
                    }
                    Some(pb::play_request::Request::PassCall(_)) => {
                        (None, service.act_on(&handle, &token, None, answers).await.map_err(Status::from))
                    }
                    Some(pb::play_request::Request::NextRound(_)) => {
                        (None, service.next_round(&handle, &token).await.map_err(Status::from))
                    }
                    Some(pb::play_request::Request::Say(said)) => (
                        None,
                        service.say(&handle, Some(token.clone()), said, reader).await.map_err(Status::from),
                    ),
                    // Said, not silently dropped: a client that sends these has a bug to find.
                    Some(pb::play_request::Request::Hello(_)) => {
                        (None, Err(bad_request("request: a play stream has one hello, first")))
                    }
                    None => (None, Err(bad_request("request: empty; send an action"))),
                };
                if let Err(status) = outcome {
                    // Refusals the table does not pace (an unreadable message, a line of talk
                    // refused or past the talk's rate) are read no faster than the call rate.
                    if (!moves || matches!(code_of(&status).as_str(), "bad_request" | "bad_action"))
                        && let Err(wait) = unread.take(rate, epoch.elapsed())
                    {
                        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                        let _ = unread.take(rate, epoch.elapsed());
                    }
                    let code = code_of(&status);
                    let rejected = pb::PlayUpdate {
                        update: Some(pb::play_update::Update::Rejected(Box::new(pb::Rejected {
                            // Echoed only when small: a refusal must not hold a flood's bytes.
                            action: wire.filter(|w| prost::Message::encoded_len(w) <= MAX_ECHOED_ACTION),
                            reason: status.message().to_string(),
                            code: code.clone(),
                            retry_after_millis: status
                                .metadata()
                                .get(RETRY_AFTER_KEY)
                                .and_then(|v| v.to_str().ok())
                                .and_then(|v| v.parse().ok()),
                        }))),
                    };
                    if refusals_tx.send(Box::new(Ok(rejected))).await.is_err() {
                        break;
                    }
                    // The refusal first, then the prompt again, to this stream only.
                    if moves
                        && let Some(prompt) = service.prompt_after_refusal(&handle, &token, &code).await
                        && refusals_tx.send(Box::new(Ok(prompt))).await.is_err()
                    {
                        break;
                    }
                }
            }
        });
        // The stream ends when the table ends this seat's updates (dropped, reset, shutdown),
        // whatever the refusals side is doing.
        let updates = updates.map(Some).chain(tokio_stream::once(None));
        let refusals = ReceiverStream::new(refusals_rx).map(|refusal| Some(*refusal));
        // A refusal, and the prompt sent again after it, are read before whatever the table
        // sent meanwhile: the prompt is where the game stands, no older than those updates.
        let merged = select_with_strategy(refusals, updates, |_: &mut ()| PollNext::Left)
            .take_while(Option::is_some)
            .map(|u| u.unwrap_or_else(|| Err(Status::aborted("stream ended"))));
        let held = Box::pin(super::held(slot, merged));
        Ok(Response::new(carrying_seat(held, connection, &seat_token)))
    }

    async fn subscribe(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        let token = token_of(&request)?;
        let table = request.get_ref().table.clone();
        let slot = self.node.seat_stream_slot(request.remote_addr(), &table, &token).await?;
        // The seat's stream marks its connection (here or relayed from another node), so a
        // newer connection of its address does not take its place (connections/slots.rs).
        let connection = request.extensions().get::<crate::connections::ThisConnection>().cloned();
        let seat_token = token.clone();
        let stream = self
            .node
            .stream_at_table(request, slot, |request, slot| async move {
                let reader = super::client_ip(&request);
                let req = request.into_inner();
                let stream = self.node.stream(&req.table, Some(token), req.since, reader).await?;
                Ok(Response::new(Box::pin(super::held(slot, stream)) as UpdateStream))
            })
            .await?;
        Ok(stream.map(|updates| carrying_seat(updates, connection, &seat_token)))
    }

    async fn act(&self, request: Request<pb::ActRequest>) -> Result<Response<pb::ActResponse>, Status> {
        let token = token_of(&request)?;
        self.node
            .at_table(request, |request| async move {
                let req = request.into_inner();
                if req.next_round {
                    if req.action.is_some() || req.pass_call {
                        return Err(bad_request("next_round: sent alone, without an action or pass_call"));
                    }
                    let handle = self.node.find(&req.table)?;
                    self.node.next_round(&handle, &token).await?;
                    return Ok(Response::new(pb::ActResponse {}));
                }
                let wire = match (req.action, req.pass_call) {
                    (Some(_), true) => {
                        return Err(bad_request("pass_call: give an action or pass_call, not both"));
                    }
                    (None, false) => return Err(bad_request("action: no action given (or pass_call)")),
                    (wire, _) => wire,
                };
                let handle = self.node.find(&req.table)?;
                // Refused, the reply says so, and the prompt the caller holds still stands.
                self.node.act_on(&handle, &token, wire.as_ref(), req.answers).await?;
                Ok(Response::new(pb::ActResponse {}))
            })
            .await
    }

    async fn say(&self, request: Request<pb::SayRequest>) -> Result<Response<pb::SayResponse>, Status> {
        // A seat's token, if one is sent; without one the caller speaks as a spectator.
        let token = super::bearer(&request).map(str::to_string);
        self.node
            .at_table(request, |request| async move {
                let ip = super::client_ip(&request);
                let said = request.into_inner();
                let handle = self.node.find(&said.table)?;
                if handle.hidden && token.is_none() {
                    return Err(crate::status::status(table::TableError::SpectatorsMayNotChat));
                }
                self.node.say(&handle, token, said, ip).await?;
                Ok(Response::new(pb::SayResponse {}))
            })
            .await
    }

    async fn watch(&self, request: Request<pb::WatchRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let slot = self.node.stream_slot(request.remote_addr())?;
        self.node
            .stream_at_table(request, slot, |request, slot| async move {
                // A table the server seats itself (a tournament's, whose deal other games still
                // play; a ladder's) has no spectators but the server's own watch: it is not there
                // for anyone else, as it answers to no join code.
                let server_watch = super::forward::forwarded(&request)
                    && request.metadata().contains_key(crate::node::cluster::SERVER_WATCH);
                if !server_watch && self.node.find(&request.get_ref().table).is_ok_and(|h| h.hidden) {
                    let shown: String =
                        request.get_ref().table.chars().take(crate::status::MAX_NAME_FIELD).collect();
                    return Err(crate::status::refused(
                        "no_such_table",
                        Status::not_found(format!("no table {shown:?}")),
                    ));
                }
                let reader = super::client_ip(&request);
                let req = request.into_inner();
                let stream = self.node.stream(&req.table, None, req.since, reader).await?;
                Ok(Response::new(Box::pin(super::held(slot, stream)) as UpdateStream))
            })
            .await
    }
}

/// A seat's stream, marking the connection it came on while it is open, so that a newer
/// connection of its address does not take that one's place (connections/slots.rs).
fn carrying_seat(
    updates: UpdateStream,
    connection: Option<crate::connections::ThisConnection>,
    token: &str,
) -> UpdateStream {
    let Some(connection) = connection else { return updates };
    let carried = connection.carries_seat(token);
    Box::pin(updates.map(move |u| {
        let _carried = &carried;
        u
    }))
}
