//! Durable records for a dudo server: each table's journal (what it was created with and every
//! input it accepted), finished games with their whole record, and Elo ratings.
//!
//! One implementation serves SQLite (the default, embedded) and PostgreSQL through sqlx's
//! `Any` driver; the two differ only in their migrations' column types. The store keeps bytes
//! it does not read (journal entries and game records are encoded by the server), plus the
//! columns history is searched by.
//!
//! Writes go through one writer task that commits everything queued in one transaction, so
//! a thousand tables each waiting for its move to be durable share one disk sync
//! ([`Store::write`] returns once the batch is committed).
#![forbid(unsafe_code)]

pub mod accounts;
mod alive;
pub mod cluster;
pub mod elo;
pub mod ladder;
pub mod tournaments;

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row};
use tokio::sync::{mpsc, oneshot};

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the database {url}: {source}")]
    Open { url: String, source: sqlx::Error },
    #[error("cannot bring the database {url} up to date: {source}")]
    Migrate { url: String, source: sqlx::migrate::MigrateError },
    #[error("database: {0}")]
    Query(#[from] sqlx::Error),
    #[error("the store's writer has stopped")]
    WriterGone,
    /// The table's lease has moved to another node (this one was paused, cut off, or
    /// drained): it must stop and let its streams reconnect through the new owner.
    #[error("table {table}: another node owns it now")]
    Fenced { table: String },
    /// Another writer holds the table: trying again cannot help.
    #[error(
        "table {table}: journal entry {entry} is already in the database with other contents; another server is writing this table"
    )]
    Conflict { table: String, entry: i64 },
    #[error(
        "the database {path} is in use by another dudo process (a dudo-server, or dudo play or arena; it holds {path}.lock)"
    )]
    InUse { path: String },
    #[error(
        "the database {url} is in use by another dudo server (it holds the schema's advisory lock): stop it, or give this server a database of its own; if the other is a cluster's node, start this one with --cluster too"
    )]
    InUseElsewhere { url: String },
    #[error(
        "the database {url} is in use by a dudo server that is not a cluster's node: stop it, or run every server with --cluster"
    )]
    OwnedAlone { url: String },
    #[error("a cluster needs a PostgreSQL database (postgres://…), not {db}")]
    ClusterNeedsPostgres { db: String },
    #[error("this store only reads records")]
    ReadOnly,
    #[error(
        "{db}: not a database this server speaks; give a file path, :memory:, sqlite://PATH or postgres://…"
    )]
    Unsupported { db: String },
    #[error("cannot open the database {path}: its directory {dir} does not exist")]
    NoDirectory { path: String, dir: String },
    #[error("cannot open the database {path}: cannot create it: {source}")]
    Create { path: String, source: std::io::Error },
    #[error("cannot open the database {path}: its lock file {path}.lock: {source}")]
    Lock { path: String, source: std::io::Error },
    /// An account's name is taken (as the server compares names).
    #[error("the name {name:?} is taken")]
    NameTaken { name: String },
    /// An account holds as many tokens as it may.
    #[error("an account holds at most {max} tokens; revoke one first")]
    TooManyTokens { max: usize },
}

/// Where dudo keeps its files: `$DUDO_HOME`, or `$XDG_DATA_HOME/dudo`, or
/// `~/.local/share/dudo`.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("DUDO_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("dudo"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share/dudo"))
}

/// The database a server uses when told none: `dudo.db` in [`data_dir`].
pub fn default_db() -> Option<PathBuf> {
    data_dir().map(|d| d.join("dudo.db"))
}

/// Whether a store may rebuild and run tables (one process at a time per SQLite file) or
/// only read records beside the process that does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Runs tables: takes the file's lock, so two servers never resume the same tables.
    Owner,
    /// Reads history and ratings (and writes nothing a server would resume).
    Reader,
    /// One node of a cluster on a PostgreSQL database: runs the tables it holds leases on,
    /// beside other members (never beside an owner).
    Member,
}

/// Which database a store is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A handle to the store; clones share one pool and one writer.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    writer: mpsc::Sender<Queued>,
    /// Where it is, for messages (a password in a URL is not kept).
    place: String,
    /// Where history is read: for a SQLite file, connections of their own (WAL lets them
    /// read while the writer writes), so a long listing never delays a table's move.
    reads: AnyPool,
    access: Access,
    /// The owner's hold on the database, kept while any clone lives.
    _lock: Option<Arc<Lock>>,
    /// An in-memory database lives as long as one connection to it: this one, kept while
    /// any clone lives, so that a pool connection dropped mid-query (a cancelled call)
    /// does not take every table and record with it.
    _anchor: Option<Arc<tokio::sync::Mutex<sqlx::AnyConnection>>>,
    /// A cluster member's session that says it is alive (see [`alive`]).
    alive: Option<Arc<alive::Alive>>,
    /// Where a cluster member's own bookkeeping (leases, heartbeats, adoptions) is done:
    /// connections of its own, so that no flood of clients' reads (history) or writes can
    /// keep a node from renewing its leases (the writer's pool outside a cluster).
    members: AnyPool,
}

/// What keeps a second owner out: a lock file beside a SQLite file, or a PostgreSQL session
/// holding an advisory lock on the schema.
enum Lock {
    File(#[allow(dead_code)] std::fs::File),
    Session(#[allow(dead_code)] std::sync::Mutex<sqlx::AnyConnection>),
}

/// What one table needs written, all in one transaction.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub table: String,
    /// A table's first batch creates its row.
    pub new_table: Option<NewTable>,
    pub entries: Vec<Entry>,
    pub finished: Vec<FinishedGame>,
    /// The table will not be resumed (closed by its host, idle, or failed).
    pub closed_at: Option<i64>,
    /// In a cluster, the writer's lease: the batch is refused ([`StoreError::Fenced`]) unless
    /// the table is still the writer's, at this epoch. A new table starts under it.
    pub lease: Option<cluster::Lease>,
}

#[derive(Clone, Debug)]
pub struct NewTable {
    pub code: String,
    pub created_at: i64,
}

/// One journal entry: its number in the table's journal, when, and its encoded bytes.
#[derive(Clone, Debug)]
pub struct Entry {
    pub n: i64,
    pub at: i64,
    pub bytes: Vec<u8>,
}

/// A finished game: what history lists, and the record a replay is made from.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub summary: GameSummary,
    pub record: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    pub id: String,
    pub table: String,
    /// The rule set's name (the preset it started from).
    pub preset: String,
    pub started_at: i64,
    pub finished_at: i64,
    /// The ratings this game counts for ("" for none).
    pub rating_pool: String,
    /// In seat order.
    pub players: Vec<GamePlayer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GamePlayer {
    pub seat: u32,
    pub name: String,
    /// The built-in bot's kind, or "" for a person (or a bot of its own).
    pub bot: String,
    /// 1 for the winner.
    pub place: u32,
    /// The kind of account that played the seat ("person", "bot"; "" for a guest or a
    /// built-in bot).
    pub account_kind: String,
}

impl GamePlayer {
    /// The name a rating is kept under: a person's name, or "odds bot" for every built-in
    /// odds bot whatever its seat's name.
    pub fn rated_as(&self) -> String {
        if self.bot.is_empty() { self.name.clone() } else { format!("{} bot", self.bot) }
    }
}

/// A table to resume: its journal, in order.
#[derive(Clone, Debug)]
pub struct OpenTable {
    pub id: String,
    pub code: String,
    pub entries: Vec<Entry>,
    /// The lease's epoch it was taken at (0 on a single server).
    pub epoch: i64,
}

/// What to list of the finished games; empty fields do not filter.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// A player's name, any case, or a built-in bot's kind ("odds" finds the odds bots,
    /// whether the server seated them or they played a seat of their own named "odds bot";
    /// "Alba" finds "Alba (odds bot)").
    pub player: String,
    pub preset: String,
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// At most this many, newest first (0: 50).
    pub limit: u32,
    /// Games an account played (its name, any case); empty: any.
    pub account: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    pub pool: String,
    pub name: String,
    pub rating: f64,
    pub games: i64,
    pub wins: i64,
}

struct Queued {
    batch: Arc<Batch>,
    done: oneshot::Sender<Result<(), WriteFailure>>,
}

/// Why a commit failed: another writer (final), or the database (perhaps passing).
#[derive(Debug)]
enum WriteFailure {
    Conflict { table: String, entry: i64 },
    Fenced { table: String },
    Database(sqlx::Error),
}

impl From<sqlx::Error> for WriteFailure {
    fn from(e: sqlx::Error) -> Self {
        WriteFailure::Database(e)
    }
}

impl std::fmt::Display for WriteFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteFailure::Conflict { table, entry } => write!(f, "table {table}: entry {entry} conflicts"),
            WriteFailure::Fenced { table } => write!(f, "table {table}: its lease moved on"),
            WriteFailure::Database(e) => e.fmt(f),
        }
    }
}

/// How many batches one commit takes at most.
const MAX_GROUP: usize = 1024;
/// Rows per INSERT statement (four parameters each; SQLite allows 32,766).
const ROWS_PER_INSERT: usize = 500;

fn migrator(backend: Backend) -> Migrator {
    // One schema for both databases, written in SQLite's words; PostgreSQL calls a blob BYTEA.
    let migration = |version: i64, name: &'static str, sql: &'static str| {
        let sql = match backend {
            Backend::Sqlite => Cow::Borrowed(sql),
            Backend::Postgres => Cow::Owned(sql.replace("BLOB", "BYTEA")),
        };
        Migration::new(version, Cow::Borrowed(name), MigrationType::Simple, sql, false)
    };
    Migrator {
        migrations: Cow::Owned(vec![
            migration(1, "records", include_str!("../migrations/0001_records.sql")),
            migration(2, "accounts", include_str!("../migrations/0002_accounts.sql")),
            migration(3, "ladder", include_str!("../migrations/0003_ladder.sql")),
            migration(4, "cluster", include_str!("../migrations/0004_cluster.sql")),
            migration(5, "tournaments", include_str!("../migrations/0005_tournaments.sql")),
            migration(6, "bot_checks", include_str!("../migrations/0006_bot_checks.sql")),
            migration(7, "tournaments_hold", include_str!("../migrations/0007_tournaments_hold.sql")),
            migration(8, "cluster_alive", include_str!("../migrations/0008_cluster_alive.sql")),
        ]),
        ..Migrator::DEFAULT
    }
}

/// `:memory:`, a file path, `sqlite://…` or `postgres://…`, as a URL sqlx understands.
fn url_of(db: &str) -> (String, Backend) {
    if db.starts_with("postgres://") || db.starts_with("postgresql://") {
        return (db.to_string(), Backend::Postgres);
    }
    if db == ":memory:" || db == "sqlite::memory:" {
        return ("sqlite::memory:".to_string(), Backend::Sqlite);
    }
    let path = db.strip_prefix("sqlite://").or_else(|| db.strip_prefix("sqlite:")).unwrap_or(db);
    let path = path.split('?').next().unwrap_or(path);
    (format!("sqlite://{path}?mode=rwc"), Backend::Sqlite)
}

/// The file a SQLite database is in (none for `:memory:` and PostgreSQL).
pub fn sqlite_file(db: &str) -> Option<PathBuf> {
    match url_of(db) {
        (_, Backend::Postgres) => None,
        (url, _) if url == "sqlite::memory:" => None,
        _ => {
            let path = db.strip_prefix("sqlite://").or_else(|| db.strip_prefix("sqlite:")).unwrap_or(db);
            Some(PathBuf::from(path.split('?').next().unwrap_or(path)))
        }
    }
}

/// Checks a SQLite file's directory, and creates the file (if an owner is opening it) readable
/// by its owner only: it holds every game's seed, so whoever reads it knows every cup of every
/// game in play. SQLite gives its WAL and shared-memory files the database file's permissions.
fn prepare_file(path: &std::path::Path, access: Access) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if d.as_os_str().is_empty() => std::path::Path::new("."),
        Some(d) => d,
        None => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(StoreError::NoDirectory {
            path: path.display().to_string(),
            dir: dir.display().to_string(),
        });
    }
    if access == Access::Owner && !path.exists() {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options
            .open(path)
            .map_err(|source| StoreError::Create { path: path.display().to_string(), source })?;
    }
    // A file made by an older dudo (or by hand) is made the owner's only, with its WAL files.
    #[cfg(unix)]
    if access == Access::Owner {
        use std::os::unix::fs::PermissionsExt;
        for suffix in ["", "-wal", "-shm"] {
            let file = std::path::PathBuf::from(format!("{}{suffix}", path.display()));
            if let Ok(meta) = std::fs::metadata(&file)
                && meta.permissions().mode() & 0o077 != 0
            {
                let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600));
            }
        }
    }
    Ok(())
}

/// Takes `<db>.lock` for this process; the OS lets go of it when the process ends, however
/// it ends. The lock is beside the file the path leads to (through any symlink), so two
/// names for one database share one lock.
fn lock(db: &std::path::Path) -> Result<std::fs::File, StoreError> {
    let real = std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf());
    let path = format!("{}.lock", real.display());
    let shown = db.display().to_string();
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(|source| StoreError::Lock { path: shown.clone(), source })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse { path: shown }),
        Err(std::fs::TryLockError::Error(source)) => Err(StoreError::Lock { path: shown, source }),
    }
}

/// Holds an advisory lock on the schema for this process's life, on a session of its own;
/// PostgreSQL lets go of it when the session ends, however the process ends.
///
/// A cluster's members share the lock; a single owner holds it alone, so a lone server never
/// runs beside a cluster on one database (it would resume the cluster's tables).
async fn schema_lock(options: &AnyConnectOptions, place: &str, access: Access) -> Result<Lock, StoreError> {
    use sqlx::Connection;
    let open_error = |source| StoreError::Open { url: place.to_string(), source };
    let mut session = sqlx::AnyConnection::connect_with(options).await.map_err(open_error)?;
    let take = match access {
        Access::Member => "pg_try_advisory_lock_shared",
        _ => "pg_try_advisory_lock",
    };
    let got: i64 = sqlx::query(&format!(
        "SELECT CAST(CASE WHEN {take}(hashtext('dudo:' || current_schema())) THEN 1 ELSE 0 END AS BIGINT) AS got",
    ))
    .fetch_one(&mut session)
    .await
    .and_then(|row| row.try_get("got"))
    .map_err(open_error)?;
    if got != 1 {
        return Err(match access {
            Access::Member => StoreError::OwnedAlone { url: place.to_string() },
            _ => StoreError::InUseElsewhere { url: place.to_string() },
        });
    }
    Ok(Lock::Session(std::sync::Mutex::new(session)))
}

/// A URL without its password, for messages.
fn shown(db: &str) -> String {
    match (db.find("://"), db.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &db[scheme + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &db[..scheme + 3], &db[at..]),
                None => db.to_string(),
            }
        }
        _ => db.to_string(),
    }
}

impl Store {
    /// Opens (creating a SQLite file if need be) and migrates the database at `db`:
    /// `:memory:`, a file path, `sqlite://path` or `postgres://…`.
    pub async fn open(db: &str) -> Result<Store, StoreError> {
        Store::open_as(db, Access::Owner).await
    }

    /// [`Store::open`], as an owner or a reader.
    pub async fn open_as(db: &str, access: Access) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if db.contains("://") && !db.starts_with("sqlite:") && !db.starts_with("postgres") {
            return Err(StoreError::Unsupported { db: shown(db) });
        }
        let (mut url, backend) = url_of(db);
        if access == Access::Member && backend != Backend::Postgres {
            return Err(StoreError::ClusterNeedsPostgres { db: shown(db) });
        }
        if url == "sqlite::memory:" {
            // Named, so that every connection (the pool's, and the anchor below) opens the
            // same in-memory database: sqlx names `:memory:` anew at each connection.
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            url = format!("sqlite:file:dudo-memory-{}-{n}?mode=memory", std::process::id());
        }
        if access == Access::Reader {
            // A reader never creates a database (nor adds dudo's tables to someone else's).
            url = url.replace("mode=rwc", "mode=rw");
        }
        let place = shown(db);
        if let Some(path) = sqlite_file(db) {
            prepare_file(&path, access)?;
        }
        let file_lock = match (&backend, access, sqlite_file(db)) {
            (Backend::Sqlite, Access::Owner, Some(path)) => Some(Lock::File(lock(&path)?)),
            _ => None,
        };
        let options: AnyConnectOptions =
            url.parse().map_err(|source| StoreError::Open { url: place.clone(), source })?;
        let open_error = |source| StoreError::Open { url: place.clone(), source };
        // One connection first: a pool retries a failing connection until its timeout and
        // then reports only that it timed out, hiding why ("file is not a database").
        {
            use sqlx::Connection;
            let mut first = sqlx::AnyConnection::connect_with(&options).await.map_err(open_error)?;
            prepare(&mut first, backend, access).await.map_err(open_error)?;
            let _ = first.close().await;
        }
        let sqlite = backend == Backend::Sqlite;
        // `:memory:` is a shared-cache database of its own name: it lives while any
        // connection to it is open. The pool's may be dropped (a query cut short is never
        // trusted again), so one more is held for the store's life.
        let anchor = match (sqlite, sqlite_file(db)) {
            (true, None) => {
                use sqlx::Connection;
                let conn = sqlx::AnyConnection::connect_with(&options).await.map_err(open_error)?;
                Some(Arc::new(tokio::sync::Mutex::new(conn)))
            }
            _ => None,
        };
        let pool = AnyPoolOptions::new()
            // SQLite has one writer; its connection is not retired by age or idleness.
            .max_connections(if sqlite { 1 } else { 2 })
            .min_connections(u32::from(sqlite))
            .idle_timeout(if sqlite { None } else { Some(Duration::from_secs(600)) })
            .max_lifetime(if sqlite { None } else { Some(Duration::from_secs(1800)) })
            .acquire_timeout(Duration::from_secs(30))
            .after_connect(move |conn, _| Box::pin(prepare_writer(conn, backend, access)))
            .connect_with(options.clone())
            .await
            .map_err(open_error)?;
        if access != Access::Reader {
            migrator(backend)
                .run(&pool)
                .await
                .map_err(|source| StoreError::Migrate { url: place.clone(), source })?;
        }
        let lock = match (backend, access) {
            (Backend::Postgres, Access::Owner | Access::Member) => {
                Some(schema_lock(&options, &place, access).await?)
            }
            _ => file_lock,
        };
        let options_for_alive = options.clone();
        // Reads never take the writer's connections: on a SQLite file, WAL lets them read
        // beside the writer; on PostgreSQL, a burst of history calls cannot starve commits.
        let reads = match sqlite_file(db).is_some() || backend == Backend::Postgres {
            true => AnyPoolOptions::new()
                .max_connections(if sqlite { 2 } else { 4 })
                .acquire_timeout(Duration::from_secs(30))
                .after_connect(move |conn, _| Box::pin(prepare(conn, backend, access)))
                .connect_with(options)
                .await
                .map_err(open_error)?,
            false => pool.clone(),
        };
        let members = match access {
            Access::Member => AnyPoolOptions::new()
                // The renewals', the adoptions' (two journals read at once) and the rest.
                .max_connections(5)
                .acquire_timeout(Duration::from_secs(30))
                .after_connect(move |conn, _| Box::pin(prepare_writer(conn, backend, access)))
                .connect_with(options_for_alive.clone())
                .await
                .map_err(|source| StoreError::Open { url: place.clone(), source })?,
            _ => pool.clone(),
        };
        let alive = (access == Access::Member).then(|| Arc::new(alive::Alive::new(options_for_alive)));
        let (writer, queue) = mpsc::channel(4096);
        tokio::spawn(write_loop(pool.clone(), backend, queue));
        Ok(Store {
            pool,
            reads,
            access,
            backend,
            writer,
            place,
            _lock: lock.map(Arc::new),
            _anchor: anchor,
            alive,
            members,
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    pub fn access(&self) -> Access {
        self.access
    }

    /// Where the store is (a URL's password hidden).
    pub fn place(&self) -> &str {
        &self.place
    }

    /// Writes `batch` durably, with whatever else is waiting, in one transaction; returns once
    /// it is committed.
    pub async fn write(&self, batch: Batch) -> Result<(), StoreError> {
        self.write_shared(Arc::new(batch)).await
    }

    /// [`Store::write`] of a batch the caller keeps (to try again without copying it).
    pub async fn write_shared(&self, batch: Arc<Batch>) -> Result<(), StoreError> {
        if self.access == Access::Reader {
            return Err(StoreError::ReadOnly);
        }
        let (done, committed) = oneshot::channel();
        self.writer.send(Queued { batch, done }).await.map_err(|_| StoreError::WriterGone)?;
        match committed.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(WriteFailure::Conflict { table, entry })) => Err(StoreError::Conflict { table, entry }),
            Ok(Err(WriteFailure::Fenced { table })) => Err(StoreError::Fenced { table }),
            Ok(Err(WriteFailure::Database(e))) => Err(StoreError::Query(e)),
            Err(_) => Err(StoreError::WriterGone),
        }
    }

    /// Every table not closed, with its journal in order.
    pub async fn open_tables(&self) -> Result<Vec<OpenTable>, StoreError> {
        let rows = sqlx::query("SELECT id, code FROM tables WHERE closed_at IS NULL ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await?;
        let mut tables = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let code: String = row.try_get("code")?;
            let entries = self.journal_of(&id).await?;
            tables.push(OpenTable { id, code, entries, epoch: 0 });
        }
        Ok(tables)
    }

    /// A table's journal, in order.
    pub(crate) async fn journal_of(&self, table: &str) -> Result<Vec<Entry>, StoreError> {
        self.journal_on(&self.pool, table).await
    }

    /// [`Store::journal_of`], read through `pool`.
    pub(crate) async fn journal_on(&self, pool: &AnyPool, table: &str) -> Result<Vec<Entry>, StoreError> {
        Ok(sqlx::query("SELECT n, at, entry FROM journal WHERE table_id = $1 ORDER BY n")
            .bind(table)
            .fetch_all(pool)
            .await?
            .into_iter()
            .map(|r| Ok(Entry { n: r.try_get("n")?, at: r.try_get("at")?, bytes: r.try_get("entry")? }))
            .collect::<Result<Vec<_>, sqlx::Error>>()?)
    }

    /// Whether a table is open in the store (its journal kept, not closed): one a restart or
    /// another node of a cluster brings back.
    pub async fn table_is_open(&self, table: &str) -> Result<bool, StoreError> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT CAST(1 AS BIGINT) FROM tables WHERE id = $1 AND closed_at IS NULL")
                .bind(table)
                .fetch_optional(&self.pool)
                .await?;
        Ok(found.is_some())
    }

    /// Marks a table as never to be resumed (one that could not be recovered, say).
    pub async fn close_table(&self, table: &str, at: i64) -> Result<(), StoreError> {
        self.write(Batch { table: table.to_string(), closed_at: Some(at), ..Batch::default() }).await
    }

    /// Forgets the journals of tables closed before `before` (Unix milliseconds): a closed
    /// table is never rebuilt, and its finished games keep records of their own. A hundred
    /// tables a transaction, so the writer is never held for long. Returns how many tables
    /// were forgotten.
    pub async fn prune_closed(&self, before: i64) -> Result<u64, StoreError> {
        const TABLES_AT_ONCE: i64 = 100;
        if self.access == Access::Reader {
            return Err(StoreError::ReadOnly);
        }
        let mut forgotten = 0;
        loop {
            let mut tx = self.pool.begin().await?;
            let ids: Vec<String> =
                sqlx::query("SELECT id FROM tables WHERE closed_at IS NOT NULL AND closed_at < $1 LIMIT $2")
                    .bind(before)
                    .bind(TABLES_AT_ONCE)
                    .fetch_all(&mut *tx)
                    .await?
                    .iter()
                    .map(|row| row.try_get("id"))
                    .collect::<Result<_, _>>()?;
            for id in &ids {
                sqlx::query("DELETE FROM journal WHERE table_id = $1").bind(id).execute(&mut *tx).await?;
                sqlx::query("DELETE FROM tables WHERE id = $1").bind(id).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            forgotten += ids.len() as u64;
            if (ids.len() as i64) < TABLES_AT_ONCE {
                return Ok(forgotten);
            }
        }
    }

    /// Finished games, newest first.
    pub async fn games(&self, filter: &GameFilter) -> Result<Vec<GameSummary>, StoreError> {
        let limit = if filter.limit == 0 { 50 } else { filter.limit.min(1000) };
        let rows = sqlx::query(
            "SELECT id, table_id, preset, started_at, finished_at, rating_pool FROM games g \
             WHERE ($1 = '' OR EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = g.id \
                                       AND (LOWER(p.name) = LOWER($1) OR LOWER(p.bot) = LOWER($1) \
                                            OR LOWER(p.name) = LOWER($1) || ' bot' \
                                            OR LOWER(p.name) = LOWER($1) || ' (' || p.bot || ' bot)'))) \
               AND ($2 = '' OR preset = $2) \
               AND finished_at >= $3 AND finished_at <= $4 \
               AND ($6 = '' OR EXISTS (SELECT 1 FROM game_players a WHERE a.game_id = g.id \
                                       AND a.account_kind <> '' AND LOWER(a.name) = LOWER($6))) \
             ORDER BY finished_at DESC, id DESC LIMIT $5",
        )
        .bind(&filter.player)
        .bind(&filter.preset)
        .bind(filter.since.unwrap_or(i64::MIN))
        .bind(filter.until.unwrap_or(i64::MAX))
        .bind(i64::from(limit))
        .bind(&filter.account)
        .fetch_all(&self.reads)
        .await?;
        let mut games = rows.iter().map(summary_of).collect::<Result<Vec<_>, sqlx::Error>>()?;
        // Everyone in those games in one query, not one per game.
        for chunk in games.chunks_mut(ROWS_PER_INSERT) {
            let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT game_id, seat, name, bot, place, account_kind FROM game_players WHERE game_id IN ({}) ORDER BY game_id, seat",
                placeholders.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for g in chunk.iter() {
                query = query.bind(g.id.as_str());
            }
            for row in query.fetch_all(&self.reads).await? {
                let game: String = row.try_get("game_id")?;
                let player = player_of(&row)?;
                if let Some(g) = chunk.iter_mut().find(|g| g.id == game) {
                    g.players.push(player);
                }
            }
        }
        Ok(games)
    }

    async fn players(&self, game: &str) -> Result<Vec<GamePlayer>, StoreError> {
        let rows = sqlx::query(
            "SELECT seat, name, bot, place, account_kind FROM game_players WHERE game_id = $1 ORDER BY seat",
        )
        .bind(game)
        .fetch_all(&self.reads)
        .await?;
        Ok(rows.iter().map(player_of).collect::<Result<Vec<_>, sqlx::Error>>()?)
    }

    /// One finished game, with its record.
    pub async fn game(&self, id: &str) -> Result<Option<FinishedGame>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT id, table_id, preset, started_at, finished_at, rating_pool, record FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.reads)
        .await?
        else {
            return Ok(None);
        };
        let summary = GameSummary { players: self.players(id).await?, ..summary_of(&row)? };
        Ok(Some(FinishedGame { summary, record: row.try_get("record")? }))
    }

    /// The size in bytes of a finished game's record, without reading it (none: no such game).
    pub async fn record_size(&self, id: &str) -> Result<Option<usize>, StoreError> {
        Ok(self.record_head(id, 0).await?.map(|(size, _)| size))
    }

    /// The size in bytes of a finished game's record and its first `n` bytes (where a
    /// record's format may say more of it), without reading the rest.
    pub async fn record_head(&self, id: &str, n: usize) -> Result<Option<(usize, Vec<u8>)>, StoreError> {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let row = sqlx::query(
            "SELECT CAST(length(record) AS BIGINT) AS size, substr(record, 1, CAST($2 AS INTEGER)) AS head FROM games WHERE id = $1",
        )
        .bind(id)
        .bind(n)
        .fetch_optional(&self.reads)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let size: i64 = row.try_get("size")?;
        let head: Vec<u8> = row.try_get("head")?;
        Ok(Some((usize::try_from(size).unwrap_or(usize::MAX), head)))
    }

    /// A pool's ratings, best first ("" for every pool).
    pub async fn ratings(&self, pool: &str) -> Result<Vec<Rating>, StoreError> {
        let rows = sqlx::query(
            "SELECT pool, name, rating, games, wins FROM ratings WHERE ($1 = '' OR pool = $1) \
             ORDER BY pool, rating DESC, name",
        )
        .bind(pool)
        .fetch_all(&self.reads)
        .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Rating {
                    pool: r.try_get("pool")?,
                    name: r.try_get("name")?,
                    rating: r.try_get("rating")?,
                    games: r.try_get("games")?,
                    wins: r.try_get("wins")?,
                })
            })
            .collect()
    }
}

/// Settings every connection needs.
async fn prepare(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    access: Access,
) -> Result<(), sqlx::Error> {
    if access == Access::Member {
        // A node paused (or cut off) in the middle of a transaction would hold its tables'
        // rows locked, and no other node could adopt them: PostgreSQL ends such a
        // transaction after a second, letting go of its locks (its commit then fails, as a
        // fenced write would).
        sqlx::query("SET idle_in_transaction_session_timeout = 1000").execute(&mut *conn).await?;
    }
    if backend == Backend::Sqlite {
        // WAL: readers do not wait for the writer; FULL: a commit is on disk before it
        // returns, so nothing a player saw is lost to a crash (or a power cut).
        sqlx::query("PRAGMA journal_mode = WAL").execute(&mut *conn).await?;
        sqlx::query("PRAGMA synchronous = FULL").execute(&mut *conn).await?;
        sqlx::query("PRAGMA busy_timeout = 5000").execute(&mut *conn).await?;
    }
    Ok(())
}

/// [`prepare`], for the writer's connection: the commits' hot path (BENCHMARKS.md, issue 25).
/// Readers keep SQLite's defaults, so a query sorting many rows spills to a file rather than
/// memory, and the extra cache is paid once.
async fn prepare_writer(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    access: Access,
) -> Result<(), sqlx::Error> {
    prepare(conn, backend, access).await?;
    if backend == Backend::Sqlite {
        // A many-row insert that may meet a conflict keeps a statement journal: in memory
        // rather than in a temporary file written at every commit (a seventh of the writer's
        // time under load). The writer's statements are inserts and small updates.
        sqlx::query("PRAGMA temp_store = MEMORY").execute(&mut *conn).await?;
        // Journal rows land all over the index (a page per table per commit): 16 MiB of cache
        // instead of 2 keeps those pages rather than reading them back at each commit.
        sqlx::query("PRAGMA cache_size = -16384").execute(&mut *conn).await?;
    }
    Ok(())
}

/// A `games` row, its players not yet read.
fn summary_of(row: &sqlx::any::AnyRow) -> Result<GameSummary, sqlx::Error> {
    Ok(GameSummary {
        id: row.try_get("id")?,
        table: row.try_get("table_id")?,
        preset: row.try_get("preset")?,
        started_at: row.try_get("started_at")?,
        finished_at: row.try_get("finished_at")?,
        rating_pool: row.try_get("rating_pool")?,
        players: Vec::new(),
    })
}

fn player_of(r: &sqlx::any::AnyRow) -> Result<GamePlayer, sqlx::Error> {
    Ok(GamePlayer {
        seat: u32::try_from(r.try_get::<i64, _>("seat")?).unwrap_or(0),
        name: r.try_get("name")?,
        bot: r.try_get("bot")?,
        place: u32::try_from(r.try_get::<i64, _>("place")?).unwrap_or(0),
        account_kind: r.try_get("account_kind")?,
    })
}

/// The writer: takes every batch waiting (up to [`MAX_GROUP`]) and commits them together.
async fn write_loop(pool: AnyPool, backend: Backend, mut queue: mpsc::Receiver<Queued>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while queue.recv_many(&mut group, MAX_GROUP).await > 0 {
        let batches: Vec<&Batch> = group.iter().map(|q| q.batch.as_ref()).collect();
        if commit(&pool, backend, &batches).await.is_ok() {
            for q in group.drain(..) {
                let _ = q.done.send(Ok(()));
            }
            continue;
        }
        // One table's bad batch must not fail the others: each is tried on its own.
        for q in group.drain(..) {
            let outcome = commit(&pool, backend, &[q.batch.as_ref()]).await;
            // A fenced table is its own to report (it stops, and says where its streams go).
            if let Some(e) = outcome.as_ref().err().filter(|e| !matches!(e, WriteFailure::Fenced { .. })) {
                tracing::error!(error = %e, table = %q.batch.table, "the store could not commit");
            }
            let _ = q.done.send(outcome);
        }
    }
}

async fn commit(pool: &AnyPool, backend: Backend, batches: &[&Batch]) -> Result<(), WriteFailure> {
    let mut tx = pool.begin().await?;
    for b in batches {
        if let Some(new) = &b.new_table {
            // Idempotent, as every write here: a batch retried after a commit whose answer was
            // lost must not fail on what it already wrote.
            let now = cluster::now_sql(backend);
            sqlx::query(&format!(
                "INSERT INTO tables (id, code, created_at, owner, epoch, lease_until) \
                 VALUES ($1, $2, $3, $4, $5, {now} + $6) ON CONFLICT (id) DO NOTHING"
            ))
            .bind(&b.table)
            .bind(&new.code)
            .bind(new.created_at)
            .bind(b.lease.as_ref().map(|l| l.node.clone()))
            .bind(b.lease.as_ref().map_or(0, |l| l.epoch))
            .bind(b.lease.as_ref().map_or(0, |l| l.millis))
            .execute(&mut *tx)
            .await?;
        }
    }
    // Fencing: each leased batch's table must still be its writer's, at its epoch. The row
    // stays locked until the commit, so a node adopting the table waits for this write or
    // this write sees the table gone; never both. By id, the order renewals lock in.
    let mut leased: Vec<(&str, &cluster::Lease)> =
        batches.iter().filter_map(|b| b.lease.as_ref().map(|l| (b.table.as_str(), l))).collect();
    leased.sort_unstable_by_key(|&(table, _)| table);
    for (table, lease) in leased {
        let held = sqlx::query("UPDATE tables SET epoch = epoch WHERE id = $1 AND owner = $2 AND epoch = $3")
            .bind(table)
            .bind(&lease.node)
            .bind(lease.epoch)
            .execute(&mut *tx)
            .await?;
        if held.rows_affected() == 0 {
            return Err(WriteFailure::Fenced { table: table.to_string() });
        }
    }
    // Journal entries, many rows to a statement: one round trip per few hundred entries.
    let entries: Vec<(&str, &Entry)> =
        batches.iter().flat_map(|b| b.entries.iter().map(|e| (b.table.as_str(), e))).collect();
    for chunk in entries.chunks(ROWS_PER_INSERT) {
        let mut sql = String::from("INSERT INTO journal (table_id, n, at, entry) VALUES ");
        let conflict = " ON CONFLICT (table_id, n) DO NOTHING";
        for i in 0..chunk.len() {
            if i > 0 {
                sql.push(',');
            }
            match backend {
                // Positional: sqlx binds SQLite's `$N` by looking its name up among all of the
                // statement's parameters, which made a 2,000-parameter insert quadratic.
                Backend::Sqlite => sql.push_str("(?, ?, ?, ?)"),
                Backend::Postgres => {
                    let p = i * 4;
                    sql.push_str(&format!("(${}, ${}, ${}, ${})", p + 1, p + 2, p + 3, p + 4));
                }
            }
        }
        sql.push_str(conflict);
        let mut query = sqlx::query(&sql);
        for (table, e) in chunk {
            query = query.bind(*table).bind(e.n).bind(e.at).bind(e.bytes.as_slice());
        }
        let written = query.execute(&mut *tx).await?;
        if written.rows_affected() < chunk.len() as u64 {
            // Some entries were there already: a retried batch (the same bytes) is fine; other
            // bytes mean a second writer, and hiding that would lose moves players saw.
            for (table, e) in chunk {
                let kept: Vec<u8> = sqlx::query("SELECT entry FROM journal WHERE table_id = $1 AND n = $2")
                    .bind(*table)
                    .bind(e.n)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("entry")?;
                if kept != e.bytes {
                    return Err(WriteFailure::Conflict { table: table.to_string(), entry: e.n });
                }
            }
        }
    }
    for b in batches {
        for game in &b.finished {
            insert_game(&mut tx, backend, game).await?;
        }
        if let Some(at) = b.closed_at {
            sqlx::query("UPDATE tables SET closed_at = $1 WHERE id = $2")
                .bind(at)
                .bind(&b.table)
                .execute(&mut *tx)
                .await?;
        }
    }
    Ok(tx.commit().await?)
}

async fn insert_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    _backend: Backend,
    game: &FinishedGame,
) -> Result<(), sqlx::Error> {
    let s = &game.summary;
    let inserted = sqlx::query(
        "INSERT INTO games (id, table_id, preset, started_at, finished_at, rating_pool, record) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&s.id)
    .bind(&s.table)
    .bind(&s.preset)
    .bind(s.started_at)
    .bind(s.finished_at)
    .bind(&s.rating_pool)
    .bind(game.record.as_slice())
    .execute(&mut **tx)
    .await?;
    if inserted.rows_affected() == 0 {
        // Already recorded (a retried batch): its players and ratings were written with it.
        return Ok(());
    }
    for p in &s.players {
        sqlx::query(
            "INSERT INTO game_players (game_id, seat, name, bot, place, account_kind) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&s.id)
        .bind(i64::from(p.seat))
        .bind(&p.name)
        .bind(&p.bot)
        .bind(i64::from(p.place))
        .bind(&p.account_kind)
            .execute(&mut **tx)
            .await?;
    }
    if let Some(pool) = s.rating_pool.strip_prefix(ladder::POOL_PREFIX) {
        ladder::rate(tx, pool, s).await?;
    } else if !s.rating_pool.is_empty() {
        rate(tx, s).await?;
    }
    Ok(())
}

/// Updates the pool's ratings with a finished game, in the game's transaction. Seats rated
/// under one name (two odds bots, two people called Ana) are one player: their pairs with
/// each other cancel out, and the game counts once for them.
async fn rate(tx: &mut sqlx::Transaction<'_, sqlx::Any>, s: &GameSummary) -> Result<(), sqlx::Error> {
    let mut finish: Vec<&GamePlayer> = s.players.iter().collect();
    // A seat with no place (0) finished last.
    finish.sort_by_key(|p| if p.place == 0 { u32::MAX } else { p.place });
    let mut names: Vec<String> = Vec::new();
    let order: Vec<usize> = finish
        .iter()
        .map(|p| {
            let name = p.rated_as();
            names.iter().position(|n| *n == name).unwrap_or_else(|| {
                names.push(name);
                names.len() - 1
            })
        })
        .collect();
    let mut ratings = Vec::with_capacity(names.len());
    for name in &names {
        let row = sqlx::query("SELECT rating FROM ratings WHERE pool = $1 AND name = $2")
            .bind(&s.rating_pool)
            .bind(name)
            .fetch_optional(&mut **tx)
            .await?;
        ratings.push(match row {
            Some(r) => r.try_get::<f64, _>("rating")?,
            None => elo::START,
        });
    }
    elo::update(&mut ratings, &order);
    for (i, name) in names.iter().enumerate() {
        let won = i64::from(finish.iter().zip(&order).any(|(p, &o)| o == i && p.place == 1));
        sqlx::query(
            "INSERT INTO ratings (pool, name, rating, games, wins, updated_at) VALUES ($1, $2, $3, 1, $4, $5) \
             ON CONFLICT (pool, name) DO UPDATE SET rating = excluded.rating, games = ratings.games + 1, \
             wins = ratings.wins + excluded.wins, updated_at = excluded.updated_at",
        )
        .bind(&s.rating_pool)
        .bind(name)
        .bind(ratings[i])
        .bind(won)
        .bind(s.finished_at)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(url_of(":memory:").0, "sqlite::memory:");
        assert_eq!(url_of("/tmp/x.db"), ("sqlite:///tmp/x.db?mode=rwc".to_string(), Backend::Sqlite));
        assert_eq!(url_of("sqlite://a.db").0, "sqlite://a.db?mode=rwc");
        assert_eq!(url_of("postgres://u@h/db").1, Backend::Postgres);
        assert_eq!(shown("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(shown("postgres://u@h/db"), "postgres://u@h/db");
    }

    /// A pool closes a connection whose query was cut short (a cancelled call): an
    /// in-memory database must outlive it, and two in-memory stores are two databases.
    #[tokio::test]
    async fn an_in_memory_database_outlives_a_closed_connection() {
        let store = Store::open(":memory:").await.unwrap();
        let other = Store::open(":memory:").await.unwrap();
        sqlx::query("INSERT INTO accounts (id, name, name_key, kind, created_at) VALUES ('a1', 'Ana', 'ana', 'person', 0)")
            .execute(&store.pool)
            .await
            .unwrap();
        let conn = store.pool.acquire().await.unwrap();
        conn.close().await.unwrap();
        let count = |pool: AnyPool| async move {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM accounts").fetch_one(&pool).await.unwrap()
        };
        assert_eq!(count(store.pool.clone()).await, 1);
        assert_eq!(count(other.pool.clone()).await, 0);
    }
}
