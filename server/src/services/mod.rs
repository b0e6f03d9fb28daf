//! The gRPC services, thin adapters over the node: each checks a call's request, asks the
//! node (and through it a table, the store, the accounts or the ladder), and maps what comes
//! back to an answer or a status (`crate::status`). Nothing below them imports them.

mod accounts;
mod forward;
mod history;
mod ladder;
mod lobby;
mod play;
mod tournaments;

pub use accounts::AccountsService;
pub use history::HistoryService;
pub use ladder::LadderService;
pub use lobby::LobbyService;
pub use play::PlayService;
pub use tournaments::TournamentsService;

/// The `dudo.v1` services' names, as health reports them.
pub const NAMES: [&str; 6] = [
    "dudo.v1.Lobby",
    "dudo.v1.Play",
    "dudo.v1.History",
    "dudo.v1.Accounts",
    "dudo.v1.Ladder",
    "dudo.v1.Tournaments",
];

/// Where a call comes from, as the per-address limits count it (an IPv6 /64 is one
/// address): the connection's, or the client's a forwarding node names.
pub(crate) fn client_ip<T>(request: &tonic::Request<T>) -> Option<std::net::IpAddr> {
    request.remote_addr().map(|a| crate::address::of(a.ip()))
}

/// Every `dudo.v1` service over `node`, each taking messages of up to `max_message` bytes:
/// what the public port and a cluster's node port both serve.
pub fn routes(node: crate::node::Dudo, max_message: usize) -> tonic::service::Routes {
    use dudo_proto::v1::{
        accounts_server::AccountsServer, history_server::HistoryServer, ladder_server::LadderServer,
        lobby_server::LobbyServer, play_server::PlayServer, tournaments_server::TournamentsServer,
    };
    tonic::service::Routes::new(
        LobbyServer::new(LobbyService::new(node.clone())).max_decoding_message_size(max_message),
    )
    .add_service(PlayServer::new(PlayService::new(node.clone())).max_decoding_message_size(max_message))
    .add_service(HistoryServer::new(HistoryService::new(node.clone())).max_decoding_message_size(max_message))
    .add_service(
        AccountsServer::new(AccountsService::new(node.clone())).max_decoding_message_size(max_message),
    )
    .add_service(LadderServer::new(LadderService::new(node.clone())).max_decoding_message_size(max_message))
    // Tournament calls go to the node running the director, as ladder entries do.
    .add_service(TournamentsServer::new(TournamentsService::new(node)).max_decoding_message_size(max_message))
}

impl crate::node::Dudo {
    /// `message` as an answer that holds its encoded size from `reader`'s share of the
    /// budget until it is sent (the call gate keeps the hold with the answer's body): a
    /// client that asks for large answers and never reads them runs out of its share, not
    /// the server out of memory. Refused `server_busy` when the share cannot hold it.
    pub(crate) fn answer_held<M: prost::Message>(
        &self,
        message: M,
        reader: Option<std::net::IpAddr>,
    ) -> Result<tonic::Response<M>, tonic::Status> {
        // The message as built and its encoding on the way out: about twice its size.
        let bytes = message.encoded_len().saturating_mul(2);
        let held = self
            .budget_for(reader)
            .hold(bytes)
            .ok_or_else(|| crate::status::status(crate::table::TableError::ServerBusy))?;
        let mut response = tonic::Response::new(message);
        response
            .extensions_mut()
            .insert(crate::connections::call_gate::AnswerHeld(std::sync::Arc::new(held)));
        Ok(response)
    }
}

/// An account's refusal as a status, so a service's `?` takes it as it takes a `Refusal`.
impl From<crate::accounts::AccountError> for tonic::Status {
    fn from(e: crate::accounts::AccountError) -> tonic::Status {
        tonic::Status::from(crate::refusal::Refusal::from(e))
    }
}

/// The bearer token a request carries, if any.
pub(crate) fn bearer<T>(request: &tonic::Request<T>) -> Option<&str> {
    let text = request.metadata().get("authorization")?.to_str().ok()?;
    Some(without_scheme(text)).filter(|t| !t.is_empty())
}

/// An `authorization` header's credentials: past the `Bearer` scheme, named in any case as
/// HTTP allows, when it is there.
fn without_scheme(header: &str) -> &str {
    let header = header.trim();
    match header.get(..6) {
        Some(scheme) if scheme.eq_ignore_ascii_case("bearer") => match header[6..].chars().next() {
            None => "",
            Some(c) if c.is_ascii_whitespace() => header[6..].trim(),
            Some(_) => header,
        },
        _ => header,
    }
}

/// The seat token a play or lobby call carries, or why it is missing.
pub(crate) fn token_of<T>(request: &tonic::Request<T>) -> Result<String, tonic::Status> {
    let value = request.metadata().get("authorization").ok_or_else(|| {
        crate::status::refused(
            "no_token",
            tonic::Status::unauthenticated("send your seat token as `authorization: Bearer <token>`"),
        )
    })?;
    let text = value.to_str().map_err(|_| {
        crate::status::refused(
            "bad_token",
            tonic::Status::unauthenticated("the authorization header is not text"),
        )
    })?;
    let token = without_scheme(text);
    if token.is_empty() {
        return Err(crate::status::refused(
            "bad_token",
            tonic::Status::unauthenticated("the seat token is empty"),
        ));
    }
    Ok(token.to_string())
}

/// A stream holding its place among its address's open streams (`Dudo::stream_slot`): when a
/// seat's stream of the address takes that place (a watcher's, or the same seat's older
/// stream), it ends, saying so (`displaced`).
pub(crate) fn held<T, S>(slot: crate::node::StreamSlot, stream: S) -> Held<S>
where
    S: tokio_stream::Stream<Item = Result<T, tonic::Status>>,
{
    Held { slot, stream: Box::pin(stream), ended: false }
}

/// See [`held`].
pub(crate) struct Held<S> {
    slot: crate::node::StreamSlot,
    stream: std::pin::Pin<Box<S>>,
    ended: bool,
}

impl<T, S> tokio_stream::Stream for Held<S>
where
    S: tokio_stream::Stream<Item = Result<T, tonic::Status>>,
{
    type Item = Result<T, tonic::Status>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = self.get_mut();
        if this.ended {
            return Poll::Ready(None);
        }
        if this.slot.poll_displaced(cx).is_ready() {
            this.ended = true;
            return Poll::Ready(Some(Err(crate::status::refused(
                "displaced",
                tonic::Status::resource_exhausted(
                    "this address has as many streams open as it may, and a seat's newer stream there took this one's place (a watcher's, or the same seat's older stream): open it again when the address has fewer",
                ),
            ))));
        }
        this.stream.as_mut().poll_next(cx)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bearer_scheme_is_named_in_any_case() {
        use super::without_scheme;
        assert_eq!(without_scheme("Bearer dudo_x"), "dudo_x");
        assert_eq!(without_scheme("bearer  dudo_x "), "dudo_x");
        assert_eq!(without_scheme("BEARER\tdudo_x"), "dudo_x");
        assert_eq!(without_scheme("Bearer"), "");
        assert_eq!(without_scheme("Bearer "), "");
        assert_eq!(without_scheme("dudo_x"), "dudo_x");
        // A token that merely starts with the word is the token.
        assert_eq!(without_scheme("bearerdudo"), "bearerdudo");
        assert_eq!(without_scheme("é"), "é");
    }
}
