//! Opening a database: its URL, the SQLite file and the lock that keeps a second owner out,
//! the migrations, and the settings each connection is given.

use super::*;

pub(crate) fn migrator(backend: Backend) -> Migrator {
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
            migration(9, "account_addresses", include_str!("../migrations/0009_account_addresses.sql")),
            migration(10, "refused_addresses", include_str!("../migrations/0010_refused_addresses.sql")),
        ]),
        ..Migrator::DEFAULT
    }
}

/// `:memory:`, a file path, `sqlite://…` or `postgres://…`, as a URL sqlx understands.
pub(crate) fn url_of(db: &str) -> (String, Backend) {
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
pub(crate) fn prepare_file(path: &std::path::Path, access: Access) -> Result<(), StoreError> {
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

/// Takes `<db>.lock` and the database file itself for this process; the OS lets go of both
/// when the process ends, however it ends. The lock file is beside the file the path leads
/// to (through any symlink), so two names for one database share it; the lock on the file
/// itself is on its inode, so a hard link to it is held too (a lock file by name alone let
/// a second server in that way, with a write-ahead log of its own). SQLite's own locks are
/// fcntl's, which a flock neither takes nor waits for.
pub(crate) fn lock(db: &std::path::Path) -> Result<Vec<std::fs::File>, StoreError> {
    let beside = lock_file(db)?;
    let shown = db.display().to_string();
    let itself =
        std::fs::File::open(db).map_err(|source| StoreError::Lock { path: shown.clone(), source })?;
    match itself.try_lock() {
        Ok(()) => Ok(vec![beside, itself]),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::InUse { path: shown }),
        Err(std::fs::TryLockError::Error(source)) => Err(StoreError::Lock { path: shown, source }),
    }
}

/// `<db>.lock`, beside the file the path leads to, taken for this process.
fn lock_file(db: &std::path::Path) -> Result<std::fs::File, StoreError> {
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
pub(crate) async fn schema_lock(
    options: &AnyConnectOptions,
    place: &str,
    access: Access,
) -> Result<Lock, StoreError> {
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
pub(crate) fn shown(db: &str) -> String {
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

/// Settings every connection needs.
pub(crate) async fn prepare(
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
pub(crate) async fn prepare_writer(
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
