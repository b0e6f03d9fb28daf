//! A Rust client for a dudo server, shared by the `dudo` command and the bot SDK.
//!
//! [`Client`] speaks the lobby (create, join, list, the host's commands); [`Client::play`]
//! opens a seat's [`Session`] and [`Client::watch`] a spectator's. A session is a task that
//! owns the gRPC stream: it turns wire messages into the engine's types ([`Update`]), sends
//! actions up, and when the connection drops it reconnects and resumes from the last event
//! it delivered, so the program using it sees every event once and in order.
#![forbid(unsafe_code)]

mod session;

use std::time::Duration;

use dudo_proto::convert::{self, ConvertError};
use dudo_proto::v1 as pb;
use dudo_proto::v1::accounts_client::AccountsClient;
use dudo_proto::v1::history_client::HistoryClient;
use dudo_proto::v1::ladder_client::LadderClient;
use dudo_proto::v1::lobby_client::LobbyClient;
use dudo_proto::v1::play_client::PlayClient;
use dudo_proto::v1::tournaments_client::TournamentsClient;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

pub use dudo_proto;
pub use dudo_proto::TableEvent;
pub use dudo_rules as rules;
pub use session::{Prompt, Reseat, Session, Told, Update, in_order};
/// gRPC status codes, to tell refusals apart ([`ClientError::code`]).
pub use tonic::{Code, Streaming};

/// What went wrong talking to a server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{addr} is not a server address (write host:port, http://host:port or https://host:port): {why}")]
    Address { addr: String, why: String },
    #[error("the CA certificate {path} (DUDO_CA_CERT): {why}")]
    CaCert { path: String, why: String },
    /// The connection failed: `cause` says why (its own causes are in the message, so it is
    /// not given again as this error's source), `hint` what to do about it.
    #[error("cannot reach the dudo server at {addr}: {}{hint}", causes(cause))]
    Connect { addr: String, cause: tonic::transport::Error, hint: &'static str },
    /// The server refused: its message names the rule or field at fault.
    #[error("{}{}", status.message(), broken(status))]
    Refused { status: tonic::Status },
    #[error("the server sent something this client cannot read: {0}")]
    Wire(#[from] ConvertError),
    #[error("the seat token is not valid metadata")]
    Token,
    #[error("the session has ended")]
    Closed,
}

/// An error and what caused it, as one line: tonic's transport error alone says only
/// "transport error", its causes say why (refused, a certificate not trusted, ...).
fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut said = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        // rustls says some things as a struct's debug form: its name is enough.
        let full = c.to_string();
        let text = full.split(" { ").next().unwrap_or_default().to_string();
        if !said.contains(&text) {
            said = format!("{said}: {text}");
        }
        cause = c.source();
    }
    said
}

/// A hint for a call that failed because the connection under it broke (no refusal of the
/// server's, which always names itself with `dudo-code`): most often a scheme that does not
/// match the server's, or a server closing new connections from an address that has all it
/// may have.
fn broken(status: &tonic::Status) -> &'static str {
    let message = status.message();
    let transport = message.contains("h2 protocol error")
        || message.contains("operation was canceled")
        || message.contains("transport error");
    if transport && status.metadata().get("dudo-code").is_none() {
        " (the connection broke: a server with TLS is dialled https://HOST:PORT, one without it HOST:PORT; or the server has as many connections from your address as it allows, as when many people share one router: try again in a moment)"
    } else {
        ""
    }
}

/// What to do about a connection to `addr` that failed (checked against the CA certificate
/// `DUDO_CA_CERT` names when `own_ca`), where its causes tell.
fn hint(addr: &str, own_ca: bool, e: &tonic::transport::Error) -> &'static str {
    let said = causes(e);
    let https = addr.to_ascii_lowercase().starts_with("https://");
    if said.contains("CaUsedAsEndEntity") {
        " (the server's certificate is a CA's: a self-signed one must say basicConstraints \
         CA:FALSE, as docs/deploy.md shows)"
    } else if said.contains("NotValidForName") || said.contains("not valid for name") {
        " (the server's certificate does not name the address dialled: dial a name it lists, \
         or make it with a subjectAltName for this address)"
    } else if said.contains("certificate") && own_ca {
        " (the CA certificate DUDO_CA_CERT names did not sign the server's)"
    } else if said.contains("certificate") {
        " (its certificate is not one this client trusts: set DUDO_CA_CERT to its CA's certificate)"
    } else if https && said.contains("tls handshake eof") {
        " (the server does not speak TLS: dial it as HOST:PORT, without https://)"
    } else if !https && said == "transport error" {
        " (a server with TLS is reached at https://HOST:PORT)"
    } else {
        ""
    }
}

impl From<tonic::Status> for ClientError {
    fn from(status: tonic::Status) -> Self {
        ClientError::Refused { status }
    }
}

impl ClientError {
    /// The gRPC code behind a refusal, if it was one.
    pub fn code(&self) -> Option<tonic::Code> {
        match self {
            ClientError::Refused { status } => Some(status.code()),
            _ => None,
        }
    }

    /// The server's own code for a refusal (`not_host`, `table_full`, `bid_not_higher`, …,
    /// sent as `dudo-code` metadata), if it gave one: branch on this, never on the message.
    pub fn refusal_code(&self) -> Option<&str> {
        match self {
            ClientError::Refused { status } => status.metadata().get("dudo-code")?.to_str().ok(),
            _ => None,
        }
    }
}

/// A seat of one's own at a table: what proves it, and where it is.
#[derive(Clone, Debug)]
pub struct SeatKey {
    /// The table's id.
    pub table: String,
    pub seat: u32,
    /// The secret sent as `authorization: Bearer <token>`.
    pub token: String,
    /// The table as it was when the seat was taken.
    pub info: pb::TableInfo,
}

impl SeatKey {
    fn from_joined(joined: pb::Joined) -> Result<SeatKey, ClientError> {
        let info = joined.table.ok_or(ClientError::Wire(ConvertError {
            field: "joined.table".into(),
            problem: "missing".into(),
        }))?;
        Ok(SeatKey { table: info.id.clone(), seat: joined.seat, token: joined.token, info })
    }

    /// Rebuilds a key saved earlier (for example by `dudo` between commands).
    pub fn saved(table: String, seat: u32, token: String) -> SeatKey {
        SeatKey { table, seat, token, info: pb::TableInfo::default() }
    }
}

/// A connection to one dudo server. Cheap to clone: clones share the connection.
#[derive(Clone, Debug)]
pub struct Client {
    lobby: LobbyClient<Channel>,
    play: PlayClient<Channel>,
    history: HistoryClient<Channel>,
    accounts: AccountsClient<Channel>,
    ladder: LadderClient<Channel>,
    tournaments: TournamentsClient<Channel>,
    addr: String,
    /// The account's API token: seats taken by this client are the account's.
    account: Option<String>,
}

/// How an `https://` server's certificate is checked.
#[derive(Clone, Debug, Default)]
pub struct Tls {
    /// A CA certificate (PEM file) to check it against instead of the system's roots: a
    /// server whose certificate a private CA signed, or a self-signed one.
    pub ca_cert: Option<std::path::PathBuf>,
}

impl Tls {
    /// The environment's choice: the CA certificate `DUDO_CA_CERT` names, if it is set.
    pub fn from_env() -> Tls {
        Tls { ca_cert: std::env::var_os("DUDO_CA_CERT").filter(|v| !v.is_empty()).map(Into::into) }
    }

    /// tonic's TLS settings for a server named `host`.
    fn config(&self, host: &str) -> Result<ClientTlsConfig, ClientError> {
        let config = ClientTlsConfig::new().domain_name(host);
        let Some(path) = &self.ca_cert else { return Ok(config.with_native_roots()) };
        let bad = |why: String| ClientError::CaCert { path: path.display().to_string(), why };
        let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
        if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
            return Err(
                bad("no certificate in it (a PEM file of -----BEGIN CERTIFICATE----- blocks)".into()),
            );
        }
        Ok(config.ca_certificate(Certificate::from_pem(pem)))
    }
}

/// `host:port` or a URL, as an endpoint tonic can dial: `https://` with TLS, checked as
/// `tls` says.
fn endpoint(addr: &str, tls: &Tls) -> Result<Endpoint, ClientError> {
    let url = if addr.contains("://") { addr.to_string() } else { format!("http://{addr}") };
    let bad = |why: String| ClientError::Address { addr: addr.to_string(), why };
    let mut endpoint = Endpoint::from_shared(url).map_err(|e| bad(e.to_string()))?;
    match endpoint.uri().scheme_str() {
        Some("http") => {}
        Some("https") => {
            let host = endpoint.uri().host().unwrap_or_default().trim_matches(['[', ']']).to_string();
            endpoint = endpoint.tls_config(tls.config(&host)?).map_err(|e| bad(e.to_string()))?;
        }
        _ => return Err(bad("the scheme is http:// or https://".into())),
    }
    Ok(endpoint
        .connect_timeout(Duration::from_secs(5))
        // Noticing a dead connection quickly is what lets a session reconnect by itself.
        .http2_keep_alive_interval(Duration::from_secs(20))
        .keep_alive_timeout(Duration::from_secs(10))
        .keep_alive_while_idle(true)
        .tcp_nodelay(true))
}

impl Client {
    /// Connects to a server at `addr` (`host:port`, `http://host:port`, or
    /// `https://host:port` checked against the system's roots or the CA certificate
    /// `DUDO_CA_CERT` names).
    pub async fn connect(addr: &str) -> Result<Client, ClientError> {
        Client::connect_with(addr, &Tls::from_env()).await
    }

    /// [`Client::connect`], an `https://` server's certificate checked as `tls` says.
    pub async fn connect_with(addr: &str, tls: &Tls) -> Result<Client, ClientError> {
        let channel = endpoint(addr, tls)?.connect().await.map_err(|cause| ClientError::Connect {
            addr: addr.to_string(),
            hint: hint(addr, tls.ca_cert.is_some(), &cause),
            cause,
        })?;
        Ok(Client {
            lobby: LobbyClient::new(channel.clone()),
            play: PlayClient::new(channel.clone()),
            history: HistoryClient::new(channel.clone()),
            accounts: AccountsClient::new(channel.clone()),
            ladder: LadderClient::new(channel.clone()),
            tournaments: TournamentsClient::new(channel),
            addr: addr.into(),
            account: None,
        })
    }

    /// This client, taking seats as the account whose API token is `token` (`None`: as a
    /// guest). The account calls are made with it too.
    pub fn with_account(mut self, token: Option<String>) -> Client {
        self.account = token;
        self
    }

    /// Whether seats are taken as an account.
    pub fn has_account(&self) -> bool {
        self.account.is_some()
    }

    /// `message`, carrying the account's token when there is one.
    fn as_account<T>(&self, message: T) -> Result<tonic::Request<T>, ClientError> {
        let mut request = tonic::Request::new(message);
        if let Some(token) = &self.account {
            let value = format!("Bearer {token}").parse().map_err(|_| ClientError::Token)?;
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    }

    /// Registers an account (with the admin token as this client's account token, on a
    /// server where only the admin registers); its first API token comes back, shown once.
    pub async fn register(&self, name: &str, bot: bool, label: &str) -> Result<pb::Registered, ClientError> {
        let kind = if bot { pb::AccountKind::Bot } else { pb::AccountKind::Person };
        let request = self.as_account(pb::RegisterRequest {
            name: name.into(),
            kind: kind as i32,
            token_label: label.into(),
        })?;
        Ok(self.accounts.clone().register(request).await?.into_inner())
    }

    /// The account this client's token belongs to.
    pub async fn who_am_i(&self) -> Result<pb::Account, ClientError> {
        Ok(self.accounts.clone().who_am_i(self.as_account(pb::WhoAmIRequest {})?).await?.into_inner())
    }

    /// A new API token for this client's account.
    pub async fn new_token(&self, label: &str) -> Result<pb::NewApiToken, ClientError> {
        let request = self.as_account(pb::NewTokenRequest { label: label.into() })?;
        Ok(self.accounts.clone().new_token(request).await?.into_inner())
    }

    /// The account's tokens (the admin: `account`'s).
    pub async fn tokens(&self, account: &str) -> Result<Vec<pb::ApiTokenInfo>, ClientError> {
        let request = self.as_account(pb::ListTokensRequest { account: account.into() })?;
        Ok(self.accounts.clone().list_tokens(request).await?.into_inner().tokens)
    }

    /// Revokes one of the account's tokens (the admin: one of `account`'s).
    pub async fn revoke_token(&self, id: &str, account: &str) -> Result<pb::ApiTokenInfo, ClientError> {
        let request = self.as_account(pb::RevokeTokenRequest { id: id.into(), account: account.into() })?;
        Ok(self.accounts.clone().revoke_token(request).await?.into_inner())
    }

    /// The ladder's pools on this server.
    pub async fn pools(&self) -> Result<Vec<pb::LadderPool>, ClientError> {
        Ok(self.ladder.clone().list_pools(pb::ListPoolsRequest {}).await?.into_inner().pools)
    }

    /// Enters a ladder pool as this client's account, for `at_once` games at once and `games`
    /// in all (0: no end): the stream says where the queue stands, each seat to play (with its
    /// token), benches and each end, and ends once the `games` have all ended.
    pub async fn enter(
        &self,
        pool: &str,
        at_once: u32,
        games: u32,
    ) -> Result<tonic::Streaming<pb::LadderUpdate>, ClientError> {
        let request = self.as_account(pb::EnterRequest { pool: pool.into(), at_once, games })?;
        Ok(self.ladder.clone().enter(request).await?.into_inner())
    }

    /// Runs a bot check as this client's account on `pool` (empty: the server's first): the
    /// stream says each step, each seat to play (with its token), and the report.
    pub async fn check_bot(&self, pool: &str) -> Result<tonic::Streaming<pb::CheckUpdate>, ClientError> {
        let request = self.as_account(pb::CheckRequest { pool: pool.into() })?;
        Ok(self.ladder.clone().check(request).await?.into_inner())
    }

    /// A pool's board, best first.
    pub async fn leaderboard(
        &self,
        pool: &str,
        limit: u32,
    ) -> Result<Vec<pb::LeaderboardEntry>, ClientError> {
        let request = pb::LeaderboardRequest { pool: pool.into(), limit };
        Ok(self.ladder.clone().leaderboard(request).await?.into_inner().entries)
    }

    /// A player's rating after each of its games in a pool, newest first.
    pub async fn rating_history(&self, pool: &str, name: &str) -> Result<Vec<pb::RatingPoint>, ClientError> {
        let request = pb::RatingHistoryRequest { pool: pool.into(), name: name.into(), limit: 0 };
        Ok(self.ladder.clone().rating_history(request).await?.into_inner().points)
    }

    /// Makes a tournament as this client's account (or with the admin token as its account
    /// token).
    pub async fn create_tournament(
        &self,
        request: pb::CreateTournamentRequest,
    ) -> Result<pb::Tournament, ClientError> {
        let request = self.as_account(request)?;
        Ok(self.tournaments.clone().create(request).await?.into_inner())
    }

    /// The server's tournaments, newest first (without their entrants' names).
    pub async fn tournaments(&self, limit: u32) -> Result<Vec<pb::Tournament>, ClientError> {
        let request = pb::ListTournamentsRequest { limit, ..Default::default() };
        Ok(self.tournaments.clone().list(request).await?.into_inner().tournaments)
    }

    /// A page of the server's tournaments as `request` filters them, and where the next
    /// page starts (its `next`).
    pub async fn tournaments_page(
        &self,
        request: pb::ListTournamentsRequest,
    ) -> Result<pb::ListTournamentsResponse, ClientError> {
        Ok(self.tournaments.clone().list(request).await?.into_inner())
    }

    /// One tournament, with its entrants.
    pub async fn tournament(&self, id: &str) -> Result<pb::Tournament, ClientError> {
        let request = pb::TournamentRef { tournament: id.into() };
        Ok(self.tournaments.clone().show(request).await?.into_inner())
    }

    /// Enters a tournament as this client's account (or comes back to one entered before):
    /// the stream tells each seat to play (with its token), each game's end, and the end.
    pub async fn enter_tournament(
        &self,
        id: &str,
    ) -> Result<tonic::Streaming<pb::TournamentUpdate>, ClientError> {
        let request = self.as_account(pb::TournamentRef { tournament: id.into() })?;
        Ok(self.tournaments.clone().enter(request).await?.into_inner())
    }

    /// A tournament's standings so far.
    pub async fn tournament_standings(&self, id: &str) -> Result<pb::TournamentStandings, ClientError> {
        let request = pb::TournamentRef { tournament: id.into() };
        Ok(self.tournaments.clone().standings(request).await?.into_inner())
    }

    /// A page of a tournament's games, numbered after `after` (from the first with none).
    pub async fn tournament_games(
        &self,
        id: &str,
        after: Option<u32>,
        limit: u32,
    ) -> Result<Vec<pb::TournamentGame>, ClientError> {
        let request = pb::TournamentGamesRequest { tournament: id.into(), after, limit };
        Ok(self.tournaments.clone().games(request).await?.into_inner().games)
    }

    /// Calls a tournament off (its organiser, or the admin).
    pub async fn cancel_tournament(&self, id: &str) -> Result<pb::Tournament, ClientError> {
        let request = self.as_account(pb::TournamentRef { tournament: id.into() })?;
        Ok(self.tournaments.clone().cancel(request).await?.into_inner())
    }

    /// The admin: suspends an account, or lifts its suspension.
    pub async fn suspend(&self, name: &str, suspended: bool) -> Result<pb::Account, ClientError> {
        let request = self.as_account(pb::SuspendAccountRequest { name: name.into(), suspended })?;
        Ok(self.accounts.clone().suspend_account(request).await?.into_inner())
    }

    /// The address this client dialled.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The generated lobby client, for calls this wrapper does not cover.
    pub fn lobby(&self) -> LobbyClient<Channel> {
        self.lobby.clone()
    }

    /// Creates a table; the creator holds seat 0 and is its host.
    pub async fn create(&self, request: pb::CreateTableRequest) -> Result<SeatKey, ClientError> {
        let request = self.as_account(request)?;
        SeatKey::from_joined(self.lobby.clone().create_table(request).await?.into_inner())
    }

    /// Takes the next free seat at a table named by id, join code or link.
    pub async fn join(&self, table: &str, name: &str) -> Result<SeatKey, ClientError> {
        let request = self.as_account(pb::JoinTableRequest {
            table: table.into(),
            name: name.into(),
            ..Default::default()
        })?;
        SeatKey::from_joined(self.lobby.clone().join_table(request).await?.into_inner())
    }

    /// Takes a seat back on this device with its rejoin link (the link, or its secret).
    pub async fn rejoin(&self, table: &str, link: &str) -> Result<SeatKey, ClientError> {
        let rejoin = dudo_proto::link::rejoin(link).unwrap_or(link).to_string();
        let request = pb::JoinTableRequest { table: table.into(), rejoin, ..Default::default() };
        SeatKey::from_joined(self.lobby.clone().join_table(request).await?.into_inner())
    }

    /// The seat's own rejoin link, to open it on another device (a new one each call; the
    /// old stops working).
    pub async fn seat_link(&self, key: &SeatKey) -> Result<pb::SeatLinkResponse, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().seat_link(request).await?.into_inner())
    }

    /// Host: a seat's rejoin link, and the devices that took the seat with it, stop working.
    pub async fn revoke_seat_link(&self, key: &SeatKey, seat: u32) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::RemovePlayerRequest { table: key.table.clone(), seat })?;
        Ok(self.lobby.clone().revoke_seat_link(request).await?.into_inner())
    }

    /// Host: pause the game (no clock runs, moves wait).
    pub async fn pause(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().pause_game(request).await?.into_inner())
    }

    /// Resume the paused game (the host; any seat once the pause has lasted a while).
    pub async fn resume(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().resume_game(request).await?.into_inner())
    }

    /// Host: mute a seat's chat, or let it speak again.
    pub async fn mute(&self, key: &SeatKey, seat: u32, muted: bool) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::MuteSeatRequest { table: key.table.clone(), seat, muted })?;
        Ok(self.lobby.clone().mute_seat(request).await?.into_inner())
    }

    /// Says a line at a table: as the seat of `key`, or without one as a spectator named
    /// `name` (where the host lets spectators chat).
    pub async fn say(
        &self,
        key: Option<&SeatKey>,
        table: &str,
        name: &str,
        text: &str,
        reaction: pb::Reaction,
    ) -> Result<(), ClientError> {
        let said = pb::SayRequest {
            table: table.into(),
            text: text.into(),
            reaction: reaction as i32,
            name: name.into(),
        };
        let request = match key {
            Some(key) => authed(key, said)?,
            None => tonic::Request::new(said),
        };
        self.play.clone().say(request).await?;
        Ok(())
    }

    /// Finished games, newest first.
    pub async fn games(&self, request: pb::ListGamesRequest) -> Result<Vec<pb::GameSummary>, ClientError> {
        Ok(self.history.clone().list_games(request).await?.into_inner().games)
    }

    /// A finished game's whole record.
    pub async fn replay(&self, game: &str) -> Result<pb::Replay, ClientError> {
        Ok(self.history.clone().get_replay(pb::GameRef { game: game.into() }).await?.into_inner())
    }

    /// A finished game's events as a stream, at `speed` times their original pace.
    pub async fn watch_replay(
        &self,
        game: &str,
        speed: f64,
    ) -> Result<tonic::Streaming<pb::PlayUpdate>, ClientError> {
        let request = pb::WatchReplayRequest { game: game.into(), speed };
        Ok(self.history.clone().watch_replay(request).await?.into_inner())
    }

    /// Stored ratings of a pool ("" for all), best first.
    pub async fn ratings(&self, pool: &str) -> Result<Vec<pb::Rating>, ClientError> {
        let request = pb::ListRatingsRequest { pool: pool.into() };
        Ok(self.history.clone().list_ratings(request).await?.into_inner().ratings)
    }

    /// Tables waiting for players, every page (up to `most`).
    pub async fn list(&self, most: usize) -> Result<Vec<pb::TableSummary>, ClientError> {
        let mut tables = Vec::new();
        let mut page_token = String::new();
        while tables.len() < most {
            let request = pb::ListTablesRequest { page_size: 0, page_token };
            let page = self.lobby.clone().list_tables(request).await?.into_inner();
            tables.extend(page.tables);
            if page.next_page_token.is_empty() {
                break;
            }
            page_token = page.next_page_token;
        }
        tables.truncate(most);
        Ok(tables)
    }

    /// Where a table stands.
    pub async fn table(&self, table: &str) -> Result<pb::TableInfo, ClientError> {
        Ok(self.lobby.clone().get_table(pb::TableRef { table: table.into() }).await?.into_inner())
    }

    /// Host: a built-in bot takes the next free seat.
    pub async fn add_bot(&self, key: &SeatKey, bot: &str) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::AddBotRequest { table: key.table.clone(), bot: bot.into() })?;
        Ok(self.lobby.clone().add_bot(request).await?.into_inner())
    }

    /// Host: the game begins with the seats taken.
    pub async fn start(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().start_game(request).await?.into_inner())
    }

    /// Host, before the start: change rule settings (`dice.count` = `6`).
    pub async fn change_settings(
        &self,
        key: &SeatKey,
        settings: Vec<(String, String)>,
    ) -> Result<pb::TableInfo, ClientError> {
        let settings = settings.into_iter().map(|(path, value)| pb::Setting { path, value }).collect();
        let request = authed(key, pb::ChangeSettingsRequest { table: key.table.clone(), settings })?;
        Ok(self.lobby.clone().change_settings(request).await?.into_inner())
    }

    /// Host: take a seat out (before the start, or before the first call of a round).
    pub async fn remove(&self, key: &SeatKey, seat: u32) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::RemovePlayerRequest { table: key.table.clone(), seat })?;
        Ok(self.lobby.clone().remove_player(request).await?.into_inner())
    }

    /// Host: back to waiting with the same seats and rules.
    pub async fn reset(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().reset_table(request).await?.into_inner())
    }

    /// Leave the table (before the start, or before the first call of a round).
    pub async fn leave(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().leave(request).await?.into_inner())
    }

    /// Host: close the table for good (its streams end, its place under the limits is freed).
    pub async fn close(&self, key: &SeatKey) -> Result<pb::TableInfo, ClientError> {
        let request = authed(key, pb::TableRef { table: key.table.clone() })?;
        Ok(self.lobby.clone().close_table(request).await?.into_inner())
    }

    /// A seat held already (remembered, or handed over by its holder), with the table as it
    /// is now.
    pub async fn seat(&self, table: &str, seat: u32, token: String) -> Result<SeatKey, ClientError> {
        let info = self.table(table).await?;
        Ok(SeatKey { table: info.id.clone(), seat, token, info })
    }

    /// Opens the seat's session: its view, its events and its prompts, reconnecting by
    /// itself. `since` resumes after that sequence number (`None`: start with a snapshot).
    pub fn play(&self, key: &SeatKey, since: Option<u64>) -> Session {
        session::open(self.play.clone(), session::Target::Seat(Box::new(key.clone())), since)
    }

    /// Watches a table as a spectator.
    pub fn watch(&self, table: &str, since: Option<u64>) -> Session {
        session::open(self.play.clone(), session::Target::Spectator(table.to_string()), since)
    }
}

/// A request carrying the seat's bearer token.
fn authed<T>(key: &SeatKey, message: T) -> Result<tonic::Request<T>, ClientError> {
    let mut request = tonic::Request::new(message);
    let value = format!("Bearer {}", key.token).parse().map_err(|_| ClientError::Token)?;
    request.metadata_mut().insert("authorization", value);
    Ok(request)
}

/// Whether the server dropped a call rather than refused it: a lost connection, a server
/// restarting, a table or the ladder moving to another node of a cluster. Such a call is
/// made again (a stream resumed), after a pause; any other code is the server's answer.
pub fn dropped(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::Unknown | Code::Internal | Code::Cancelled | Code::DeadlineExceeded
    )
}

/// The table's rule set, read from a table description.
pub fn rules_of(info: &pb::TableInfo) -> Result<dudo_rules::RuleSet, ConvertError> {
    let rules =
        info.rules.as_ref().ok_or(ConvertError { field: "table.rules".into(), problem: "missing".into() })?;
    convert::rules_from_wire(rules)
}
