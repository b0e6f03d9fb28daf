//! The gRPC services: the lobby and play. Each call finds its table in the registry and
//! sends the table's task a command; nothing here touches a game directly.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use dudo_proto::v1 as pb;
use dudo_proto::v1::lobby_server::Lobby;
use dudo_proto::v1::play_server::Play;
use dudo_rules::presets;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::accounts::AccountSettings;
use crate::budget::Budget;
use crate::convert;
use crate::table::{self, Command, Delivery, StreamEnd, Table, TableError};
use dudo_store::Store;

/// The metadata key carrying a refusal's stable code (`TableError::code`), beside the text.
pub const CODE_KEY: &str = "dudo-code";
/// The metadata key saying how long to wait before calling again, in milliseconds.
pub const RETRY_AFTER_KEY: &str = "dudo-retry-after-ms";

/// A table's refusal as a gRPC status: the one place table errors meet status codes.
pub fn status(e: TableError) -> Status {
    use table::error::Kind;
    let message = e.to_string();
    let mut status = match e.kind() {
        Kind::InvalidArgument => Status::invalid_argument(message),
        Kind::FailedPrecondition => Status::failed_precondition(message),
        Kind::Unauthenticated => Status::unauthenticated(message),
        Kind::PermissionDenied => Status::permission_denied(message),
        Kind::ResourceExhausted => Status::resource_exhausted(message),
        Kind::Internal => Status::internal(message),
    };
    if let Ok(code) = e.code().parse() {
        status.metadata_mut().insert(CODE_KEY, code);
    }
    if let TableError::RateLimited { retry_after_millis, .. } = e
        && let Ok(wait) = retry_after_millis.to_string().parse()
    {
        status.metadata_mut().insert(RETRY_AFTER_KEY, wait);
    }
    status
}

/// A request the service refuses before any table sees it, with the field at fault named in
/// the text and `bad_request` as its code.
fn bad_request(message: impl Into<String>) -> Status {
    let mut status = Status::invalid_argument(message);
    status.metadata_mut().insert(CODE_KEY, tonic::metadata::MetadataValue::from_static("bad_request"));
    status
}

/// The code a status carries (see [`CODE_KEY`]), or one made from its gRPC code.
fn code_of(status: &Status) -> String {
    match status.metadata().get(CODE_KEY).and_then(|v| v.to_str().ok()) {
        Some(code) => code.to_string(),
        None if status.code() == tonic::Code::InvalidArgument => "bad_request".to_string(),
        None => format!("{:?}", status.code()).to_lowercase(),
    }
}

/// Why a play stream's upward half could not be read, as the status that ends the stream:
/// a message that does not decode is the client's error (INVALID_ARGUMENT), not the
/// server's (tonic says INTERNAL).
fn upward_error(status: &Status) -> Status {
    let message: String = status.message().chars().take(200).collect();
    match status.code() {
        tonic::Code::Internal | tonic::Code::Unknown => {
            bad_request(format!("request: a message could not be read: {message}"))
        }
        tonic::Code::OutOfRange | tonic::Code::ResourceExhausted => {
            Status::resource_exhausted(format!("request: a message is over the size limit: {message}"))
        }
        _ => Status::new(status.code(), message),
    }
}

/// What a stream's reader is sent for one delivery: the update, or how the stream ends.
fn delivered(delivery: Delivery) -> Result<pb::PlayUpdate, Status> {
    match delivery {
        Delivery::Update(update) => Ok(update.into_update()),
        Delivery::End(StreamEnd::Closed) => Err(Status::not_found("the host closed the table")),
        Delivery::End(StreamEnd::ShuttingDown) => Err(Status::unavailable("the server is shutting down")),
        Delivery::End(StreamEnd::Unsaved) => Err(Status::unavailable(
            "the server could not save the table; it is back when the server restarts",
        )),
        // A `reseated` update came just before: clients read that, not this text.
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Removed)) => {
            Err(Status::unauthenticated("the host removed you from the table"))
        }
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Left)) => {
            Err(Status::unauthenticated("you left the table"))
        }
        Delivery::End(StreamEnd::Reseated(pb::reseated::Why::Renumbered)) => {
            Err(Status::aborted("the seats were renumbered: reconnect with your token"))
        }
        Delivery::End(StreamEnd::Reseated(_)) => {
            Err(Status::aborted("the table was reset: reconnect with your token"))
        }
    }
}

/// The largest action a refusal echoes back, in encoded bytes (any real action is far smaller).
const MAX_ECHOED_ACTION: usize = 1024;

/// Tables a list page holds unless asked for fewer, and at most.
const LIST_PAGE: usize = 50;
const LIST_PAGE_MAX: usize = 200;

/// The longest preset, rule-set or rating-pool name, and setting path, in characters.
const MAX_NAME_FIELD: usize = 64;
/// The longest setting value, in characters.
const MAX_SETTING_VALUE: usize = 256;
/// Settings one call may change.
const MAX_SETTINGS: usize = 64;

/// Refuses a string a client set that is longer than the server keeps, naming the field (and
/// never echoing the whole of it).
fn bounded(field: &str, value: &str, max: usize) -> Result<(), Status> {
    let chars = value.chars().count();
    if chars > max {
        return Err(bad_request(format!("{field}: {chars} characters; at most {max}")));
    }
    Ok(())
}

fn check_settings<'a>(settings: impl ExactSizeIterator<Item = (&'a str, &'a str)>) -> Result<(), Status> {
    if settings.len() > MAX_SETTINGS {
        return Err(bad_request(format!("settings: {}; at most {MAX_SETTINGS}", settings.len())));
    }
    for (path, value) in settings {
        bounded("settings.path", path, MAX_NAME_FIELD)?;
        bounded("settings.value", value, MAX_SETTING_VALUE)?;
    }
    Ok(())
}

/// How many commands a table's queue holds before senders wait.
const TABLE_QUEUE: usize = 256;

#[derive(Clone)]
struct TableHandle {
    tx: mpsc::Sender<Command>,
    /// The table's summary, kept current by its task: lists read it without a trip.
    listed: tokio::sync::watch::Receiver<pb::TableSummary>,
}

/// Every table, by id and by join code.
#[derive(Default)]
struct Registry {
    /// Ordered by id, so lists page in a stable order.
    tables: std::collections::BTreeMap<String, TableHandle>,
    codes: HashMap<String, String>,
}

/// What one server allows, each with a clear error when hit.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Tables the server holds at once.
    pub max_tables: usize,
    /// Tables one IP address may create.
    pub max_tables_per_ip: usize,
    /// Open streams (play, subscribe, watch) per IP address.
    pub max_streams_per_ip: usize,
    /// Open streams per connection (one client's TCP connection, known by its peer address).
    pub max_streams_per_connection: usize,
    /// Connections open at once from one address (more are closed as they come).
    pub max_connections_per_ip: usize,
    /// Seats a table may have.
    pub max_seats: usize,
    /// Calls a seat may make each second that the table was not waiting for (a burst of
    /// twice that is allowed); moves answering a prompt do not count.
    pub actions_per_second: u32,
    /// Moves a whole table may make each second in answer to prompts: a bound that protects
    /// the server from tables of programs playing flat out (people never come near it).
    pub table_moves_per_second: u32,
    /// The largest message a client may send, in bytes.
    pub max_message_bytes: usize,
    /// The most moves a game may have; a game that reaches it is stopped (0: no limit).
    pub max_game_moves: u64,
    /// The longest a game may last; one that outlasts it is stopped at its next move.
    pub max_game_time: Option<std::time::Duration>,
    /// The most memory a game's events may take (estimated, as the budget counts it); a game
    /// that reaches it is stopped (0: no limit). Bounds what one game's streams, resumes and
    /// record hold.
    pub max_game_bytes: u64,
    /// The memory clients may make the server hold in all (events of games in play, updates
    /// waiting for readers, replays being read), estimated from the messages' sizes: past
    /// it, new streams, games and replays are refused and games still growing are stopped.
    pub memory_budget: usize,
    /// Each address's share of the memory budget (0: no share of its own), so one address
    /// that fills it is refused while everyone else plays on.
    pub memory_per_address: usize,
    /// How long a table lives with no call reaching it and no stream open on it.
    pub idle_table: std::time::Duration,
    /// How often to ping a quiet connection to learn whether it is still there (none: never).
    pub keepalive: Option<std::time::Duration>,
    /// The CPU built-in bots may take, per table and in all (see `bot_cpu`).
    pub bot_cpu: crate::bot_cpu::BotCpuLimits,
    /// A call's request must be whole within this (a handler answers at once, or opens its
    /// stream at once): a half-sent request is dropped, and what it held given back.
    pub request_time: std::time::Duration,
    /// A connection with no call in flight for this long is closed (zero: never).
    pub idle_connection: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tables: 10_000,
            max_tables_per_ip: 100,
            max_streams_per_ip: 1_000,
            max_streams_per_connection: 200,
            max_connections_per_ip: 64,
            max_seats: 64,
            actions_per_second: 50,
            table_moves_per_second: 2_000,
            max_game_moves: 10_000,
            max_game_time: Some(DEFAULT_GAME_TIME),
            max_game_bytes: 16 * 1024 * 1024,
            memory_budget: 512 * 1024 * 1024,
            memory_per_address: 64 * 1024 * 1024,
            max_message_bytes: 16 * 1024,
            idle_table: std::time::Duration::from_secs(30 * 60),
            keepalive: Some(std::time::Duration::from_secs(30)),
            bot_cpu: crate::bot_cpu::BotCpuLimits { per_table: Some(0.05), all_tables: Some(0.25) },
            request_time: std::time::Duration::from_secs(60),
            idle_connection: std::time::Duration::from_secs(30),
        }
    }
}

/// The longest a game lasts by default: a long evening; bots that play for hours only hold
/// the server.
pub const DEFAULT_GAME_TIME: std::time::Duration = std::time::Duration::from_secs(3 * 60 * 60);

/// A bot that thinks longer than this only stalls its table.
const MAX_BOT_THINK_MILLIS: u32 = 10_000;
/// Bots that pause (rather than move at once) pause at least this long: a table of bots a
/// millisecond apart would only burn the server.
const MIN_BOT_THINK_MILLIS: u32 = 10;
/// A call window for people: long enough to see the claim and decide.
const DEFAULT_CALL_WINDOW_MILLIS: u32 = 3_000;
const MIN_CALL_WINDOW_MILLIS: u32 = 100;
const MAX_CALL_WINDOW_MILLIS: u32 = 60_000;
/// The shortest move clock: shorter than a network round trip is no clock for people.
const MIN_MOVE_MILLIS: u32 = 100;
/// The longest move clock or time bank: a day.
const MAX_CLOCK_MILLIS: u32 = 86_400_000;

/// Per-IP and per-connection counts, for the limits above.
#[derive(Default)]
struct PerIp {
    tables: HashMap<std::net::IpAddr, usize>,
    streams: HashMap<std::net::IpAddr, usize>,
    /// Open streams by peer address: an entry is removed at zero, as ports are not reused
    /// for long.
    connections: HashMap<std::net::SocketAddr, usize>,
}

/// The lobby, play and history services over one registry of tables.
#[derive(Clone, Default)]
pub struct Dudo {
    registry: Arc<Mutex<Registry>>,
    limits: Arc<Limits>,
    per_ip: Arc<Mutex<PerIp>>,
    /// Where tables' journals, finished games and ratings are kept (none: memory only).
    store: Option<Store>,
    /// The operator keeps ratings for ranked tables (`--ranked`).
    ranked: bool,
    /// What clients make the server hold, against `limits.memory_budget`.
    budget: Arc<Budget>,
    /// Each address's share of `budget` (tables it made, streams it reads, replays).
    address_budgets: Arc<Mutex<HashMap<std::net::IpAddr, Arc<Budget>>>>,
    /// Who may register, and the admin's token (hashed).
    accounts: AccountSettings,
    /// The ladder's matchmaker, when the server runs one.
    ladder: Option<crate::ladder::LadderHandle>,
    /// The CPU every table's built-in bots may take together.
    bot_cpu: Arc<crate::bot_cpu::BotCpu>,
    /// Set when the server stops: the streams no table owns end, and the ladder seats no one.
    stopping: crate::stopping::Stopping,
    /// Where the server's pages are (`http://HOST:PORT`): tables' links are `BASE/t/CODE`.
    link_base: Arc<str>,
}

/// One of the tables an address may create, held by the table until it ends (or by a
/// creation until it is refused).
struct TablePlace {
    per_ip: Arc<Mutex<PerIp>>,
    ip: std::net::IpAddr,
}

impl Drop for TablePlace {
    fn drop(&mut self) {
        if let Ok(mut counts) = self.per_ip.lock()
            && let Some(n) = counts.tables.get_mut(&self.ip)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.tables.remove(&self.ip);
            }
        }
    }
}

/// Holds one of a connection's (and its IP address's) open streams; dropping it (the stream
/// ends) gives it back.
pub(crate) struct StreamSlot {
    per_ip: Arc<Mutex<PerIp>>,
    peer: Option<std::net::SocketAddr>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        metrics::gauge!("dudo_streams").decrement(1.0);
        let (Some(peer), Ok(mut counts)) = (self.peer, self.per_ip.lock()) else { return };
        if let Some(n) = counts.streams.get_mut(&peer.ip()) {
            *n = n.saturating_sub(1);
        }
        if let Some(n) = counts.connections.get_mut(&peer) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                counts.connections.remove(&peer);
            }
        }
    }
}

fn token_of<T>(request: &Request<T>) -> Result<String, Status> {
    let value = request
        .metadata()
        .get("authorization")
        .ok_or_else(|| Status::unauthenticated("send your seat token as `authorization: Bearer <token>`"))?;
    let text = value.to_str().map_err(|_| Status::unauthenticated("the authorization header is not text"))?;
    let token = text.strip_prefix("Bearer ").unwrap_or(text).trim();
    if token.is_empty() {
        return Err(Status::unauthenticated("the seat token is empty"));
    }
    Ok(token.to_string())
}

/// A join code: six letters people can read aloud.
fn join_code() -> String {
    const LETTERS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ";
    // From random bytes, not from a hex secret's characters (which would reach only a few letters).
    let bytes: [u8; 6] = rand::Rng::random(&mut rand::rng());
    bytes.iter().map(|&b| char::from(LETTERS[usize::from(b) % LETTERS.len()])).collect()
}

impl Dudo {
    pub fn new(limits: Limits) -> Dudo {
        let budget = Budget::new(limits.memory_budget);
        let bot_cpu = crate::bot_cpu::BotCpu::new(limits.bot_cpu);
        Dudo { limits: Arc::new(limits), budget, bot_cpu, ..Dudo::default() }
    }

    /// Tables' links start with `base` (`http://HOST:PORT`, as people reach the server).
    pub fn with_link_base(mut self, base: &str) -> Dudo {
        self.link_base = Arc::from(base.trim_end_matches('/'));
        self
    }

    /// With these account settings (registration, the admin token).
    pub fn with_accounts(mut self, accounts: AccountSettings) -> Dudo {
        self.accounts = accounts;
        self
    }

    pub(crate) fn account_settings(&self) -> &AccountSettings {
        &self.accounts
    }

    /// Runs a ladder of `pools` (its matchmaker starts now).
    pub fn with_ladder(mut self, pools: Vec<crate::ladder::Pool>) -> Dudo {
        self.ladder = Some(crate::ladder::start(self.clone(), pools));
        self
    }

    pub(crate) fn stopping(&self) -> &crate::stopping::Stopping {
        &self.stopping
    }

    pub(crate) fn ladder(&self) -> Option<&crate::ladder::LadderHandle> {
        self.ladder.as_ref()
    }

    /// A ladder table: the pool's rules and clock, its seats taken in order (accounts and
    /// built-in bots), started. Its games count for `ladder:POOL`.
    pub(crate) async fn make_ladder_table(
        &self,
        pool: &crate::ladder::Pool,
        seats: Vec<crate::ladder::LadderSeat>,
    ) -> Result<crate::ladder::Made, Status> {
        use crate::ladder::LadderSeat;
        if self.stopping.is_stopping() {
            return Err(Status::unavailable("the server is shutting down"));
        }
        self.budget_room(&self.budget)?;
        let rules = pool.rules().map_err(Status::internal)?;
        let id = table::secret();
        let code = join_code();
        // The server hosts its ladder tables without a seat: every seat is a player's or a bot's.
        let host_token = table::secret();
        let clock = (pool.move_millis > 0).then(|| {
            table::Clock::new(
                std::time::Duration::from_millis(pool.move_millis.into()),
                std::time::Duration::from_millis(pool.time_bank_millis.into()),
            )
        });
        let table = Table::new(
            rules,
            table::Setup {
                table: table::core::Setup {
                    id: id.clone(),
                    code: code.clone(),
                    capacity: pool.seats as usize,
                    seed: pool.seed,
                    // Bots compete here: the pool's window, short beside the move clock, and
                    // each seat's patience (see `table::window::Patience`).
                    pacing: table::Pacing {
                        clock,
                        bot_pause: std::time::Duration::ZERO,
                        call_window_millis: pool.call_window_millis,
                    },
                    rate: self.limits.actions_per_second,
                    rating_pool: format!("{}{}", dudo_store::ladder::POOL_PREFIX, pool.name),
                    journalled: false,
                    length: self.game_length(),
                    budget: Arc::clone(&self.budget),
                    host_token: Some(table::seats::token_hash(&host_token)),
                },
                table_rate: self.limits.table_moves_per_second,
                store: self.store.clone(),
                bot_cpu: self.bot_cpu.table_share(),
                link_base: Arc::clone(&self.link_base),
            },
        );
        let handle = self.spawn_table(table, id.clone(), code, None)?;
        let mut tokens = Vec::new();
        for seat in seats {
            match seat {
                LadderSeat::Account { account, name } => {
                    let (_, token, _) = self
                        .command(&handle, |reply| Command::Join { name, account: Some(account), reply })
                        .await?;
                    tokens.push(Some(token));
                }
                LadderSeat::Bot(bot) => {
                    let token = host_token.clone();
                    self.command(&handle, |reply| Command::AddBot { token, bot, reply }).await?;
                    tokens.push(None);
                }
            }
        }
        let token = host_token.clone();
        self.command(&handle, |reply| Command::Start { token, reply }).await?;
        Ok(crate::ladder::Made { table: id, tokens, host_token })
    }

    /// The server's own spectator stream of a table (the ladder watches its tables so).
    pub(crate) async fn watch_internal(&self, table: &str) -> Result<UpdateStream, Status> {
        self.stream(table, None, None, None).await
    }

    /// Closes a table the server made (a ladder table, once its game is recorded).
    pub(crate) async fn close_internal(&self, table: &str, host_token: &str) {
        if let Ok(handle) = self.find(table) {
            let token = host_token.to_string();
            let _ = self.command(&handle, |reply| Command::Close { token, reply }).await;
        }
    }

    /// Keeps tables, finished games and ratings in `store`; `ranked`: tables may ask for
    /// ranked ratings.
    pub fn with_store(mut self, store: Option<Store>, ranked: bool) -> Dudo {
        self.store = store;
        self.ranked = ranked;
        self
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Brings back every table the store holds that was still open, as it was; returns how
    /// many. A table that had been idle for longer than the idle limit when the server
    /// stopped is closed instead (the server would have closed it had it kept running; the
    /// time the server was down does not count); one whose journal cannot be replayed is
    /// left in the database as it is, with an error logged.
    pub async fn recover(&self) -> Result<usize, dudo_store::StoreError> {
        let Some(store) = &self.store else { return Ok(0) };
        let now = table::unix_millis();
        let idle = i64::try_from(self.limits.idle_table.as_millis()).unwrap_or(i64::MAX);
        let open = store.open_tables().await?;
        // The last moment the stopped server is known to have been running.
        let alive = open.iter().filter_map(|t| t.entries.last()).map(|e| e.at).max().unwrap_or(now);
        let mut recovered = 0;
        for open in open {
            let id = open.id.clone();
            let last = open.entries.last().map_or(0, |e| e.at);
            if alive.saturating_sub(last) > idle {
                tracing::info!(table = %id, "not recovered: idle since before the restart");
                store.close_table(&id, now).await?;
                continue;
            }
            match Table::recover(
                open,
                store.clone(),
                self.limits.table_moves_per_second,
                self.game_length(),
                Arc::clone(&self.budget),
                self.bot_cpu.table_share(),
                Arc::clone(&self.link_base),
            ) {
                Ok(table) => {
                    let code = table.info().join_code;
                    match self.spawn_table(table, id.clone(), code, None) {
                        Ok(_) => recovered += 1,
                        Err(e) => tracing::error!(table = %id, error = %e, "could not register the table"),
                    }
                }
                Err(e) => {
                    // Left open in the database, not closed: a later version may read it.
                    tracing::error!(table = %id, error = %e, "could not recover the table; left as it is");
                }
            }
        }
        Ok(recovered)
    }

    /// Starts a table's task and registers it; it leaves the registry (and its creator's
    /// count) when it ends.
    fn spawn_table(
        &self,
        table: Table,
        id: String,
        code: String,
        place: Option<TablePlace>,
    ) -> Result<TableHandle, Status> {
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        let (listed_tx, listed) = tokio::sync::watch::channel(table.summary());
        let handle = TableHandle { tx, listed };
        // Registered before its task starts, so a task that ends at once is also unregistered.
        {
            let mut registry = self.registry.lock().map_err(|_| Status::internal("registry poisoned"))?;
            // Checked again here, under the lock: every way a table is made (the ladder's
            // too) counts against the server's limit.
            if registry.tables.len() >= self.limits.max_tables {
                return Err(Status::resource_exhausted(format!(
                    "the server holds {} tables, its limit",
                    self.limits.max_tables
                )));
            }
            registry.tables.insert(id.clone(), handle.clone());
            registry.codes.insert(code.clone(), id.clone());
        }
        let (registry, idle) = (Arc::clone(&self.registry), self.limits.idle_table);
        let span = tracing::info_span!("table", table = %id);
        tokio::spawn(tracing::Instrument::instrument(
            async move {
                let ended = table.run(rx, listed_tx, idle).await;
                // Closed (idle, or by its host): the table leaves the registry and the limits.
                // One that could not save stays listed, answering UNAVAILABLE, so its players
                // keep their seats for when the server restarts and brings it back.
                if ended != table::Ended::Unsaved
                    && let Ok(mut r) = registry.lock()
                {
                    r.tables.remove(&id);
                    if r.codes.get(&code) == Some(&id) {
                        r.codes.remove(&code);
                    }
                }
                // Its creator's place is given back.
                drop(place);
            },
            span,
        ));
        Ok(handle)
    }

    /// A place among the tables `ip` may create, or why there is none.
    fn table_place(&self, ip: Option<std::net::IpAddr>) -> Result<Option<TablePlace>, Status> {
        let Some(ip) = ip else { return Ok(None) };
        let mut counts = self.per_ip.lock().map_err(|_| Status::internal("limits poisoned"))?;
        let n = counts.tables.entry(ip).or_default();
        if *n >= self.limits.max_tables_per_ip {
            return Err(Status::resource_exhausted(format!(
                "at most {} tables per address",
                self.limits.max_tables_per_ip
            )));
        }
        *n += 1;
        Ok(Some(TablePlace { per_ip: Arc::clone(&self.per_ip), ip }))
    }

    fn game_length(&self) -> table::GameLength {
        table::GameLength {
            max_moves: self.limits.max_game_moves,
            max_millis: self
                .limits
                .max_game_time
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            max_bytes: self.limits.max_game_bytes,
        }
    }

    /// The server's memory budget, for what else holds client-made bytes (replays).
    pub fn budget(&self) -> &Arc<Budget> {
        &self.budget
    }

    /// The budget what `ip` makes the server hold counts against: its share of the
    /// server's (the server's own for an unknown address, or with no shares).
    pub(crate) fn budget_for(&self, ip: Option<std::net::IpAddr>) -> Arc<Budget> {
        let share = self.limits.memory_per_address;
        // Without shares (or an address) no lock is taken: this runs for every call.
        let Some(ip) = ip.filter(|_| share > 0) else { return Arc::clone(&self.budget) };
        let Ok(mut shares) = self.address_budgets.lock() else { return Arc::clone(&self.budget) };
        if shares.len() > 1024 {
            // Shares nothing holds any more (no table, stream or replay) are let go.
            shares.retain(|_, b| Arc::strong_count(b) > 1 || b.used() > 0);
        }
        Arc::clone(shares.entry(ip).or_insert_with(|| Budget::share(&self.budget, share)))
    }

    /// Refuses new work while `budget` (or the server's) holds as much as it allows.
    /// `message` as an answer that holds its encoded size from `reader`'s share of the
    /// budget until it is sent (the call gate keeps the hold with the answer's body): a
    /// client that asks for large answers and never reads them runs out of its share, not
    /// the server out of memory. Refused `server_busy` when the share cannot hold it.
    pub(crate) fn answer_held<M: prost::Message>(
        &self,
        message: M,
        reader: Option<std::net::IpAddr>,
    ) -> Result<tonic::Response<M>, Status> {
        // The message as built and its encoding on the way out: about twice its size.
        let bytes = message.encoded_len().saturating_mul(2);
        let held = self.budget_for(reader).hold(bytes).ok_or_else(|| status(TableError::ServerBusy))?;
        let mut response = tonic::Response::new(message);
        response.extensions_mut().insert(crate::call_gate::AnswerHeld(Arc::new(held)));
        Ok(response)
    }

    pub(crate) fn budget_room(&self, budget: &Budget) -> Result<(), Status> {
        if budget.full() {
            return Err(status(TableError::ServerBusy));
        }
        Ok(())
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Takes one of the caller's stream slots, or says the limit is reached.
    pub(crate) fn stream_slot<T>(&self, request: &Request<T>) -> Result<StreamSlot, Status> {
        let peer = request.remote_addr();
        if let Some(peer) = peer {
            let mut counts = self.per_ip.lock().map_err(|_| Status::internal("limits poisoned"))?;
            if counts.connections.get(&peer).copied().unwrap_or(0) >= self.limits.max_streams_per_connection {
                return Err(Status::resource_exhausted(format!(
                    "at most {} open streams per connection",
                    self.limits.max_streams_per_connection
                )));
            }
            let n = counts.streams.entry(peer.ip()).or_default();
            if *n >= self.limits.max_streams_per_ip {
                return Err(Status::resource_exhausted(format!(
                    "at most {} open streams per address",
                    self.limits.max_streams_per_ip
                )));
            }
            *n += 1;
            *counts.connections.entry(peer).or_default() += 1;
        }
        metrics::gauge!("dudo_streams").increment(1.0);
        Ok(StreamSlot { per_ip: Arc::clone(&self.per_ip), peer })
    }

    /// Tells every table the server is stopping, so their streams end and the transport
    /// can finish.
    pub async fn close_all(&self) {
        self.stopping.stop();
        let handles: Vec<TableHandle> = match self.registry.lock() {
            Ok(r) => r.tables.values().cloned().collect(),
            Err(_) => return,
        };
        for h in handles {
            let _ = self.ask(&h, |reply| Command::Shutdown { reply }).await;
        }
    }

    fn find(&self, table: &str) -> Result<TableHandle, Status> {
        let key = table_key(table);
        let registry = self.registry.lock().map_err(|_| Status::internal("registry poisoned"))?;
        let id = registry.codes.get(&key.to_ascii_uppercase()).cloned().unwrap_or_else(|| key.to_string());
        registry.tables.get(&id).cloned().ok_or_else(|| {
            // Echoed cut short: an error's text travels in a header of bounded size.
            let shown: String = table.chars().take(MAX_NAME_FIELD).collect();
            Status::not_found(format!("no table {shown:?}"))
        })
    }

    async fn ask<T>(
        &self,
        handle: &TableHandle,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Result<T, Status> {
        let (reply, answer) = oneshot::channel();
        handle.tx.send(command(reply)).await.map_err(|_| Status::unavailable("the table has closed"))?;
        answer.await.map_err(|_| Status::unavailable("the table has closed"))
    }

    /// Asks a table something it may refuse; a refusal becomes its status here.
    async fn command<T>(
        &self,
        handle: &TableHandle,
        command: impl FnOnce(table::Answer<T>) -> Command,
    ) -> Result<T, Status> {
        self.ask(handle, command).await?.map_err(status)
    }

    /// Plays `wire` for the seat holding `token` (none: it lets the claim pass): the one path
    /// of `Act` and `Play` actions.
    async fn act_on(
        &self,
        handle: &TableHandle,
        token: &str,
        wire: Option<&pb::Action>,
        answers: Option<u64>,
    ) -> Result<(), Status> {
        let action = wire
            .map(|wire| {
                convert::action_from_wire(wire).map_err(|e| {
                    let mut status = bad_request(e.to_string());
                    if let Ok(code) = "bad_action".parse() {
                        status.metadata_mut().insert(CODE_KEY, code);
                    }
                    status
                })
            })
            .transpose()?;
        let token = token.to_string();
        let answers = answers.map(Some);
        self.command(handle, |reply| Command::Act { token, action, answers, reply }).await
    }

    async fn info(&self, handle: &TableHandle) -> Result<pb::TableInfo, Status> {
        self.ask(handle, |reply| Command::Info { reply }).await
    }

    async fn stream(
        &self,
        table: &str,
        token: Option<String>,
        since: Option<u64>,
        reader: Option<std::net::IpAddr>,
    ) -> Result<UpdateStream, Status> {
        let handle = self.find(table)?;
        let budget = self.budget_for(reader);
        self.budget_room(&budget)?;
        let (tx, rx) = table::stream_channel(Arc::clone(&budget));
        self.command(&handle, |reply| Command::Subscribe { token, since, tx, reply }).await?;
        // A stream the table let go of without saying why (every other end is said) fell
        // too far behind, or found no room in a full memory budget: its reader is told
        // which (judged when the stream ends), and resumes from a snapshot.
        let why = tokio_stream::iter([()]).map(move |()| {
            Err(status(if budget.full() { TableError::ServerBusy } else { TableError::TooFarBehind }))
        });
        let updates = rx.map(delivered).chain(why);
        Ok(Box::pin(updates))
    }
}

type UpdateStream = Pin<Box<dyn Stream<Item = Result<pb::PlayUpdate, Status>> + Send>>;

#[tonic::async_trait]
impl Lobby for Dudo {
    async fn create_table(
        &self,
        request: Request<pb::CreateTableRequest>,
    ) -> Result<Response<pb::Joined>, Status> {
        let ip = request.remote_addr().map(|a| a.ip());
        table::seats::seat_name(&request.get_ref().name).map_err(status)?;
        let (name, account) = self.seat_account(&request, &request.get_ref().name).await?;
        let req = request.into_inner();
        bounded("preset", &req.preset, MAX_NAME_FIELD)?;
        bounded("rating_pool", &req.rating_pool, MAX_NAME_FIELD)?;
        if let Some(rules) = &req.rules {
            bounded("rules.name", &rules.name, MAX_NAME_FIELD)?;
        }
        check_settings(req.settings.iter().map(|s| (s.path.as_str(), s.value.as_str())))?;
        let budget = self.budget_for(ip);
        self.budget_room(&budget)?;
        {
            let registry = self.registry.lock().map_err(|_| Status::internal("registry poisoned"))?;
            if registry.tables.len() >= self.limits.max_tables {
                return Err(Status::resource_exhausted(format!(
                    "the server holds {} tables, its limit",
                    self.limits.max_tables
                )));
            }
        }
        // Taken now, checked and counted in one step: creations at once cannot all pass the
        // check; a refusal below gives it back.
        let place = self.table_place(ip)?;
        let mut rules = match &req.rules {
            Some(_) if !req.preset.is_empty() => {
                return Err(bad_request("rules: give a preset or a whole rule set, not both"));
            }
            Some(wire) => {
                let rules = convert::rules_from_wire(wire).map_err(|e| bad_request(format!("rules: {e}")))?;
                rules.validate().map_err(|e| bad_request(format!("rules: {e}")))?;
                rules
            }
            None => {
                let preset = if req.preset.is_empty() { "fibbing" } else { req.preset.as_str() };
                presets::by_name(preset).ok_or_else(|| {
                    bad_request(format!(
                        "no preset {preset:?}; the presets are {}",
                        presets::NAMES.join(", ")
                    ))
                })?
            }
        };
        for setting in &req.settings {
            rules = presets::with_setting(rules, &setting.path, &setting.value)
                .map_err(|e| bad_request(e.to_string()))?;
        }
        let seats = if req.seats == 0 { u32::from(rules.players.min) } else { req.seats };
        if seats as usize > self.limits.max_seats {
            return Err(bad_request(format!("seats: at most {} at this server", self.limits.max_seats)));
        }
        if seats < u32::from(rules.players.min) || seats > u32::from(rules.players.max) {
            return Err(bad_request(format!(
                "seats: this rule set seats {} to {} players, not {seats}",
                rules.players.min, rules.players.max
            )));
        }
        if self.store.as_ref().is_some_and(|s| s.access() == dudo_store::Access::Reader) {
            return Err(Status::failed_precondition("this server only reads records; it holds no tables"));
        }
        let rating_pool = match req.rating_pool.trim() {
            "" => String::new(),
            "ranked" if !self.ranked => {
                return Err(Status::failed_precondition(
                    "rating_pool: this server keeps no ranked ratings (its operator can start it with --ranked)",
                ));
            }
            _ if self.store.is_none() => {
                return Err(Status::failed_precondition(
                    "rating_pool: this server keeps no records, so no ratings (it runs with --db none)",
                ));
            }
            // Refused before a table is made for it (the table would refuse the seat).
            "ranked" if account.is_none() && !req.host_only => {
                return Err(status(TableError::AccountRequired));
            }
            // A seeded table deals what its creator can deal again at a table of its own:
            // at a ranked table that would be reading the other players' dice.
            "ranked" if req.seed.is_some() => {
                return Err(bad_request(
                    "seed: a ranked table deals from the server's randomness (a seed would let its creator know the dice)",
                ));
            }
            pool @ ("ranked" | "arena") => pool.to_string(),
            other => {
                return Err(bad_request(format!(
                    "rating_pool: \"ranked\", \"arena\" or empty, not {other:?}"
                )));
            }
        };
        if !table::journals_faithfully(&rules) {
            return Err(Status::internal(
                "rules: this rule set cannot be saved faithfully (a server bug; please report it)",
            ));
        }
        let id = table::secret();
        // A code in use is drawn again: two tables must never answer to one code.
        let mut code = join_code();
        for _ in 0..16 {
            let taken = self
                .registry
                .lock()
                .map_err(|_| Status::internal("registry poisoned"))?
                .codes
                .contains_key(&code);
            if !taken {
                break;
            }
            code = join_code();
        }
        let clock = (req.move_millis > 0).then(|| {
            table::Clock::new(
                std::time::Duration::from_millis(req.move_millis.into()),
                std::time::Duration::from_millis(req.time_bank_millis.into()),
            )
        });
        if req.bot_think_millis > MAX_BOT_THINK_MILLIS
            || (req.bot_think_millis > 0 && req.bot_think_millis < MIN_BOT_THINK_MILLIS)
        {
            return Err(bad_request(format!(
                "bot_think_millis: 0 (at once) or from {MIN_BOT_THINK_MILLIS} to {MAX_BOT_THINK_MILLIS}, not {}",
                req.bot_think_millis
            )));
        }
        if req.move_millis > 0 && !(MIN_MOVE_MILLIS..=MAX_CLOCK_MILLIS).contains(&req.move_millis) {
            return Err(bad_request(format!(
                "move_millis: 0 (no clock) or from {MIN_MOVE_MILLIS} to {MAX_CLOCK_MILLIS}, not {}",
                req.move_millis
            )));
        }
        if req.time_bank_millis > MAX_CLOCK_MILLIS {
            return Err(bad_request(format!(
                "time_bank_millis: at most {MAX_CLOCK_MILLIS}, not {}",
                req.time_bank_millis
            )));
        }
        let call_window_millis = req.call_window_millis.unwrap_or(DEFAULT_CALL_WINDOW_MILLIS);
        if call_window_millis > 0
            && !(MIN_CALL_WINDOW_MILLIS..=MAX_CALL_WINDOW_MILLIS).contains(&call_window_millis)
        {
            return Err(bad_request(format!(
                "call_window_millis: 0 (until all have answered) or from {MIN_CALL_WINDOW_MILLIS} to {MAX_CALL_WINDOW_MILLIS}, not {call_window_millis}"
            )));
        }
        let pacing = table::Pacing {
            clock,
            bot_pause: std::time::Duration::from_millis(req.bot_think_millis.into()),
            call_window_millis,
        };
        // A host-only creator gets a host's token and no seat.
        let host_token = req.host_only.then(table::secret);
        let table = Table::new(
            rules,
            table::Setup {
                table: table::core::Setup {
                    id: id.clone(),
                    code: code.clone(),
                    capacity: seats as usize,
                    seed: req.seed,
                    pacing,
                    rate: self.limits.actions_per_second,
                    rating_pool,
                    journalled: false,
                    length: self.game_length(),
                    budget,
                    host_token: host_token.as_deref().map(table::seats::token_hash),
                },
                table_rate: self.limits.table_moves_per_second,
                store: self.store.clone(),
                bot_cpu: self.bot_cpu.table_share(),
                link_base: Arc::clone(&self.link_base),
            },
        );
        let handle = self.spawn_table(table, id, code, place)?;
        let (seat, token, info, seated) = match host_token {
            Some(token) => (0, token, self.info(&handle).await?, false),
            None => {
                let (seat, token, info) =
                    self.command(&handle, |reply| Command::Join { name, account, reply }).await?;
                (seat, token, info, true)
            }
        };
        Ok(Response::new(pb::Joined { table: Some(info), seat: seat as u32, token, seated }))
    }

    async fn join_table(
        &self,
        request: Request<pb::JoinTableRequest>,
    ) -> Result<Response<pb::Joined>, Status> {
        let (name, account) = self.seat_account(&request, &request.get_ref().name).await?;
        let handle = self.find(&request.get_ref().table)?;
        let (seat, token, info) =
            self.command(&handle, |reply| Command::Join { name, account, reply }).await?;
        Ok(Response::new(pb::Joined { table: Some(info), seat: seat as u32, token, seated: true }))
    }

    async fn list_tables(
        &self,
        request: Request<pb::ListTablesRequest>,
    ) -> Result<Response<pb::ListTablesResponse>, Status> {
        let req = request.into_inner();
        bounded("page_token", &req.page_token, MAX_NAME_FIELD)?;
        let size = match req.page_size {
            0 => LIST_PAGE,
            n => (n as usize).min(LIST_PAGE_MAX),
        };
        let registry = self.registry.lock().map_err(|_| Status::internal("registry poisoned"))?;
        let after = (std::ops::Bound::Excluded(req.page_token.clone()), std::ops::Bound::Unbounded);
        let from = if req.page_token.is_empty() {
            (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded)
        } else {
            after
        };
        let mut tables = Vec::with_capacity(size);
        let mut next_page_token = String::new();
        for (id, handle) in registry.tables.range::<String, _>(from) {
            let summary = handle.listed.borrow();
            if summary.state != pb::TableState::Waiting as i32 {
                continue;
            }
            if tables.len() == size {
                next_page_token = tables.last().map(|t: &pb::TableSummary| t.id.clone()).unwrap_or_default();
                break;
            }
            debug_assert_eq!(&summary.id, id);
            tables.push(summary.clone());
        }
        Ok(Response::new(pb::ListTablesResponse { tables, next_page_token }))
    }

    async fn add_bot(&self, request: Request<pb::AddBotRequest>) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let req = request.into_inner();
        bounded("bot", &req.bot, MAX_NAME_FIELD)?;
        let handle = self.find(&req.table)?;
        let info = self.command(&handle, |reply| Command::AddBot { token, bot: req.bot, reply }).await?;
        Ok(Response::new(info))
    }

    async fn start_game(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let handle = self.find(&request.get_ref().table)?;
        let info = self.command(&handle, |reply| Command::Start { token, reply }).await?;
        Ok(Response::new(info))
    }

    async fn get_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let handle = self.find(&request.get_ref().table)?;
        Ok(Response::new(self.info(&handle).await?))
    }

    async fn change_settings(
        &self,
        request: Request<pb::ChangeSettingsRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let req = request.into_inner();
        let handle = self.find(&req.table)?;
        check_settings(req.settings.iter().map(|s| (s.path.as_str(), s.value.as_str())))?;
        let settings = req.settings.into_iter().map(|s| (s.path, s.value)).collect();
        let info = self.command(&handle, |reply| Command::ChangeSettings { token, settings, reply }).await?;
        Ok(Response::new(info))
    }

    async fn remove_player(
        &self,
        request: Request<pb::RemovePlayerRequest>,
    ) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let req = request.into_inner();
        let handle = self.find(&req.table)?;
        let seat = usize::try_from(req.seat).map_err(|_| bad_request("seat: out of range"))?;
        let info = self.command(&handle, |reply| Command::Remove { token, seat, reply }).await?;
        Ok(Response::new(info))
    }

    async fn reset_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let handle = self.find(&request.get_ref().table)?;
        let info = self.command(&handle, |reply| Command::Reset { token, reply }).await?;
        Ok(Response::new(info))
    }

    async fn leave(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let handle = self.find(&request.get_ref().table)?;
        let info = self.command(&handle, |reply| Command::Leave { token, reply }).await?;
        Ok(Response::new(info))
    }

    async fn close_table(&self, request: Request<pb::TableRef>) -> Result<Response<pb::TableInfo>, Status> {
        let token = token_of(&request)?;
        let handle = self.find(&request.get_ref().table)?;
        let info = self.command(&handle, |reply| Command::Close { token, reply }).await?;
        Ok(Response::new(info))
    }

    async fn list_presets(
        &self,
        _: Request<pb::ListPresetsRequest>,
    ) -> Result<Response<pb::ListPresetsResponse>, Status> {
        // The same for every call, for the life of the server: made once.
        static PRESETS: std::sync::OnceLock<pb::ListPresetsResponse> = std::sync::OnceLock::new();
        let presets = PRESETS.get_or_init(|| {
            let presets = dudo_rules::presets::NAMES
                .iter()
                .filter_map(|&name| {
                    let rules = dudo_rules::presets::by_name(name)?;
                    Some(pb::Preset {
                        name: name.to_string(),
                        summary: dudo_rules::presets::summary(name).to_string(),
                        rules: Some(convert::rules_to_wire(&rules)),
                    })
                })
                .collect();
            pb::ListPresetsResponse { presets }
        });
        Ok(Response::new(presets.clone()))
    }
}

#[tonic::async_trait]
impl Play for Dudo {
    type PlayStream = UpdateStream;
    type SubscribeStream = UpdateStream;
    type WatchStream = UpdateStream;

    async fn play(
        &self,
        request: Request<Streaming<pb::PlayRequest>>,
    ) -> Result<Response<Self::PlayStream>, Status> {
        let token = token_of(&request)?;
        let slot = self.stream_slot(&request)?;
        let reader = request.remote_addr().map(|a| a.ip());
        let mut incoming = request.into_inner();
        let hello = match incoming.next().await {
            Some(Ok(pb::PlayRequest { request: Some(pb::play_request::Request::Hello(h)), .. })) => h,
            // A first message that cannot be read says why, as a later one would.
            Some(Err(status)) => return Err(upward_error(&status)),
            _ => {
                return Err(bad_request("the first message of a play stream is a hello naming the table"));
            }
        };
        let handle = self.find(&hello.table)?;
        let updates = self.stream(&hello.table, Some(token.clone()), hello.since, reader).await?;
        // Actions coming up are sent to the table; refusals come back down the stream.
        let (refusals_tx, refusals_rx) = mpsc::channel::<Result<pb::PlayUpdate, Status>>(16);
        let service = self.clone();
        // Refusals the service makes before the table sees a message (it does not decode as
        // an action, it is empty) cost no table anything, so they have a budget of their
        // own: past it, the stream is read no faster than the seat's call rate.
        let rate = f64::from(self.limits.actions_per_second.max(1));
        tokio::spawn(async move {
            let epoch = tokio::time::Instant::now();
            let mut unread = table::rate::Bucket::full(rate, std::time::Duration::ZERO);
            while let Some(message) = incoming.next().await {
                let message = match message {
                    Ok(message) => message,
                    // A message that cannot be read (undecodable, too large) ends the stream
                    // with a status saying so: never a stream that silently stops listening.
                    Err(status) => {
                        let _ = refusals_tx.send(Err(upward_error(&status))).await;
                        break;
                    }
                };
                let answers = message.answers;
                let (wire, outcome) = match message.request {
                    Some(pb::play_request::Request::Action(wire)) => {
                        let outcome = service.act_on(&handle, &token, Some(&wire), answers).await;
                        (Some(wire), outcome)
                    }
                    Some(pb::play_request::Request::PassCall(_)) => {
                        (None, service.act_on(&handle, &token, None, answers).await)
                    }
                    // Said, not silently dropped: a client that sends these has a bug to find.
                    Some(pb::play_request::Request::Hello(_)) => {
                        (None, Err(bad_request("request: a play stream has one hello, first")))
                    }
                    None => (None, Err(bad_request("request: empty; send an action"))),
                };
                if let Err(status) = outcome {
                    if matches!(code_of(&status).as_str(), "bad_request" | "bad_action")
                        && let Err(wait) = unread.take(rate, epoch.elapsed())
                    {
                        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
                        let _ = unread.take(rate, epoch.elapsed());
                    }
                    let rejected = pb::PlayUpdate {
                        update: Some(pb::play_update::Update::Rejected(Box::new(pb::Rejected {
                            // Echoed only when small: a refusal must not hold a flood's bytes.
                            action: wire.filter(|w| prost::Message::encoded_len(w) <= MAX_ECHOED_ACTION),
                            reason: status.message().to_string(),
                            code: code_of(&status),
                            retry_after_millis: status
                                .metadata()
                                .get(RETRY_AFTER_KEY)
                                .and_then(|v| v.to_str().ok())
                                .and_then(|v| v.parse().ok()),
                        }))),
                    };
                    if refusals_tx.send(Ok(rejected)).await.is_err() {
                        break;
                    }
                }
            }
        });
        // The stream ends when the table ends this seat's updates (dropped, reset, shutdown),
        // whatever the refusals side is doing.
        let updates = updates.map(Some).chain(tokio_stream::once(None));
        let merged = updates
            .merge(ReceiverStream::new(refusals_rx).map(Some))
            .take_while(Option::is_some)
            .map(move |u| {
                let _held = &slot;
                u.unwrap_or_else(|| Err(Status::aborted("stream ended")))
            });
        Ok(Response::new(Box::pin(merged)))
    }

    async fn subscribe(
        &self,
        request: Request<pb::SubscribeRequest>,
    ) -> Result<Response<Self::SubscribeStream>, Status> {
        let token = token_of(&request)?;
        let slot = self.stream_slot(&request)?;
        let reader = request.remote_addr().map(|a| a.ip());
        let req = request.into_inner();
        let stream = self.stream(&req.table, Some(token), req.since, reader).await?;
        Ok(Response::new(Box::pin(stream.map(move |u| {
            let _held = &slot;
            u
        }))))
    }

    async fn act(&self, request: Request<pb::ActRequest>) -> Result<Response<pb::ActResponse>, Status> {
        let token = token_of(&request)?;
        let req = request.into_inner();
        let wire = match (req.action, req.pass_call) {
            (Some(_), true) => return Err(bad_request("pass_call: give an action or pass_call, not both")),
            (None, false) => return Err(bad_request("action: no action given (or pass_call)")),
            (wire, _) => wire,
        };
        let handle = self.find(&req.table)?;
        self.act_on(&handle, &token, wire.as_ref(), req.answers).await?;
        Ok(Response::new(pb::ActResponse {}))
    }

    async fn watch(&self, request: Request<pb::WatchRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let slot = self.stream_slot(&request)?;
        let reader = request.remote_addr().map(|a| a.ip());
        let req = request.into_inner();
        let stream = self.stream(&req.table, None, req.since, reader).await?;
        Ok(Response::new(Box::pin(stream.map(move |u| {
            let _held = &slot;
            u
        }))))
    }
}

/// What names a table in a request: its id, its join code, or a link to it (the browser
/// table's `http(s)://HOST:PORT/t/CODE`, or an older `dudo://join/CODE`).
pub fn table_key(table: &str) -> &str {
    match dudo_proto::link::parse(table) {
        Some(link) => link.code,
        None => table.trim().trim_start_matches("dudo://join/"),
    }
}

#[cfg(test)]
mod tests {
    /// A large answer holds its size from its reader's share until it is dropped (sent), and
    /// an answer the share cannot hold is refused `server_busy`.
    #[tokio::test]
    async fn a_large_answer_holds_its_size_until_sent() {
        use dudo_proto::v1 as pb;
        let limits = super::Limits { memory_per_address: 1024 * 1024, ..super::Limits::default() };
        let dudo = super::Dudo::new(limits);
        let reader = Some(std::net::IpAddr::from([127, 0, 0, 9]));
        let game = |i: usize| pb::GameSummary { id: format!("{i:0>200}"), ..Default::default() };
        let answer = |n: usize| pb::ListGamesResponse { games: (0..n).map(game).collect() };
        let used = || dudo.budget_for(reader).used();
        let held = dudo.answer_held(answer(1000), reader).unwrap();
        assert!(used() >= 200 * 1000, "{}", used());
        // Another like it does not fit the 1 MiB share while the first is unsent.
        let refused = dudo.answer_held(answer(2000), reader).unwrap_err();
        assert_eq!(
            refused.metadata().get(super::CODE_KEY).and_then(|c| c.to_str().ok()),
            Some("server_busy")
        );
        drop(held);
        assert_eq!(used(), 0);
    }

    #[test]
    fn a_table_is_named_by_its_code_or_a_link() {
        use super::table_key;
        assert_eq!(table_key("http://h:1/t/AAAAAA?next=/t/BBBBBB"), "AAAAAA");
        assert_eq!(table_key(" dudo://join/CCCCCC "), "CCCCCC");
        assert_eq!(table_key("DDDDDD"), "DDDDDD");
    }
}
