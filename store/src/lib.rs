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
//!
//! This file is the store's handle ([`Store`]: opening it, and what it holds); `opening` finds
//! and migrates a database, `writer` is the writer task and what a batch holds, `tables` the
//! open tables' journals, `games` the finished games and their ratings; `accounts`,
//! `cluster`, `ladder` and `tournaments` the records of each; `scratch` a schema of a test's
//! own.
#![forbid(unsafe_code)]

pub mod accounts;
mod alive;
pub mod cluster;
pub mod elo;
mod games;
pub mod ladder;
mod opening;
pub mod scratch;
mod tables;
pub mod tournaments;
mod writer;

pub use games::{FinishedGame, GameFilter, GamePlayer, GameSummary, Rating};
pub use opening::sqlite_file;
use opening::*;
pub use tables::OpenTable;
use writer::*;
pub use writer::{Batch, Entry, NewTable};

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
    /// The caller stopped waiting for the write (it may still be made: every write is
    /// idempotent, and a lease fences it if the table has moved on).
    #[error("the database took longer than {millis} ms")]
    TookTooLong { millis: u64 },
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
    #[error(
        "{db}: this build has no PostgreSQL driver; dudo-server has one, and the dudo command has one when built with `--features postgres`"
    )]
    NoPostgres { db: String },
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

/// How long a query waits for a connection by default: a busy pool frees one in
/// milliseconds, so this much waiting means the database is refusing connections.
pub const PATIENCE: Duration = Duration::from_secs(30);

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

/// What keeps a second owner out: a lock file beside a SQLite file and a lock on the file
/// itself (see `opening::lock`), or a PostgreSQL session
/// holding an advisory lock on the schema.
enum Lock {
    File(#[allow(dead_code)] Vec<std::fs::File>),
    Session(#[allow(dead_code)] std::sync::Mutex<sqlx::AnyConnection>),
}

impl Store {
    /// Opens (creating a SQLite file if need be) and migrates the database at `db`:
    /// `:memory:`, a file path, `sqlite://path` or `postgres://…`.
    pub async fn open(db: &str) -> Result<Store, StoreError> {
        Store::open_as(db, Access::Owner).await
    }

    /// [`Store::open`], as an owner or a reader.
    pub async fn open_as(db: &str, access: Access) -> Result<Store, StoreError> {
        Store::open_waiting(db, access, PATIENCE).await
    }

    /// [`Store::open_as`], where a query waits at most `patience` for a connection (the
    /// database refusing new ones) before it fails. A cluster member passes a part of its
    /// lease: a write or renewal that waits longer than the lease is no use, since another
    /// node may own the table by then.
    pub async fn open_waiting(db: &str, access: Access, patience: Duration) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if db.contains("://") && !db.starts_with("sqlite:") && !db.starts_with("postgres") {
            return Err(StoreError::Unsupported { db: shown(db) });
        }
        let (mut url, backend) = url_of(db);
        if backend == Backend::Postgres && !cfg!(feature = "postgres") {
            return Err(StoreError::NoPostgres { db: shown(db) });
        }
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
            .acquire_timeout(patience)
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
                .acquire_timeout(patience)
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
                .acquire_timeout(patience)
                .after_connect(move |conn, _| Box::pin(prepare_writer(conn, backend, access)))
                .connect_with(options_for_alive.clone())
                .await
                .map_err(|source| StoreError::Open { url: place.clone(), source })?,
            _ => pool.clone(),
        };
        let alive =
            (access == Access::Member).then(|| Arc::new(alive::Alive::new(options_for_alive, patience)));
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
