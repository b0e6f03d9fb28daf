//! A cluster node's word that it is alive, kept by PostgreSQL rather than by a clock.
//!
//! Leases alone leave a dead node's tables waiting a whole lease before anyone adopts them.
//! But a process that dies (`kill -9`, a crash, its container ending) closes its connections,
//! and PostgreSQL ends their sessions at once. So each node holds, on a session of its own,
//! an advisory lock on a random key, and names the key in its row of `nodes`: a node whose
//! key nobody holds has lost that session, and the others bury it
//! ([`crate::Store::bury_dead`]). A node cut off without its connections closing (its
//! machine gone, a network cut) is noticed as before, when its leases run out.

use sqlx::any::AnyConnectOptions;
use sqlx::{AnyConnection, Connection, Row};

/// The session holding this node's key, and the key.
pub(crate) struct Alive {
    options: AnyConnectOptions,
    /// How long a check of the session, or a new session's opening, may take: a session
    /// cut off by the network answers nothing rather than failing.
    patience: std::time::Duration,
    session: tokio::sync::Mutex<Option<(AnyConnection, i64)>>,
    /// A session this node held was found ended since [`Alive::take_lost`] last asked: the
    /// others may have buried the node, and adopted its tables, at once.
    lost: std::sync::atomic::AtomicBool,
}

impl Alive {
    pub(crate) fn new(options: AnyConnectOptions, patience: std::time::Duration) -> Alive {
        let lost = std::sync::atomic::AtomicBool::new(false);
        Alive { options, patience, session: tokio::sync::Mutex::new(None), lost }
    }

    /// Whether a session was lost since the last asking (see [`Alive::lost`]).
    pub(crate) fn take_lost(&self) -> bool {
        self.lost.swap(false, std::sync::atomic::Ordering::AcqRel)
    }

    /// The key this node holds, its session checked first: a session that was lost (the
    /// database restarted) is opened again under a new key, which the node's next heartbeat
    /// names. Until then the others may take this node for dead, and its tables pass on as
    /// they would when its leases ran out.
    pub(crate) async fn keep(&self) -> Result<i64, sqlx::Error> {
        let mut session = self.session.lock().await;
        if let Some((conn, key)) = session.as_mut()
            && let Ok(Ok(_)) =
                tokio::time::timeout(self.patience, sqlx::query("SELECT 1").execute(&mut *conn)).await
        {
            return Ok(*key);
        }
        if session.take().is_some() {
            self.lost.store(true, std::sync::atomic::Ordering::Release);
        }
        let conn = tokio::time::timeout(self.patience, AnyConnection::connect_with(&self.options)).await;
        let mut conn = conn.map_err(|_| sqlx::Error::PoolTimedOut)??;
        // Drawn by the database: 62 bits, never 0 (which says "no key").
        let key: i64 = sqlx::query("SELECT CAST(floor(random() * 4611686018427387903) AS BIGINT) + 1 AS k")
            .fetch_one(&mut conn)
            .await?
            .try_get("k")?;
        let got: i64 =
            sqlx::query("SELECT CAST(CASE WHEN pg_try_advisory_lock($1) THEN 1 ELSE 0 END AS BIGINT) AS got")
                .bind(key)
                .fetch_one(&mut conn)
                .await?
                .try_get("got")?;
        if got != 1 {
            // Another session drew the same key: so unlikely that a retry is all it needs.
            return Err(sqlx::Error::Protocol("the alive lock's key was taken; trying again".into()));
        }
        *session = Some((conn, key));
        Ok(key)
    }

    /// The key held now (0: none yet).
    pub(crate) async fn key(&self) -> i64 {
        self.session.lock().await.as_ref().map_or(0, |(_, key)| *key)
    }
}

/// The advisory locks granted in this database, each as the one bigint it was taken on.
pub(crate) const HELD_KEYS: &str = "SELECT (CAST(classid AS BIGINT) << 32) | CAST(objid AS BIGINT) AS k \
     FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 \
     AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
