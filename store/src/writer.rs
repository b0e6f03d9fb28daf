//! The writer: one task that takes every batch waiting and commits them in one transaction,
//! so a thousand tables each waiting for its move to be durable share one disk sync; what a
//! batch holds, and how a failed commit is told apart (another writer, a lease moved on, the
//! database).

use super::*;

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

pub(crate) struct Queued {
    pub(crate) batch: Arc<Batch>,
    pub(crate) done: oneshot::Sender<Result<(), WriteFailure>>,
}

/// Why a commit failed: another writer (final), or the database (perhaps passing).
#[derive(Debug)]
pub(crate) enum WriteFailure {
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
pub(crate) const MAX_GROUP: usize = 1024;
/// Rows per INSERT statement (four parameters each; SQLite allows 32,766).
pub(crate) const ROWS_PER_INSERT: usize = 500;

impl Store {
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
}

/// The writer: takes every batch waiting (up to [`MAX_GROUP`]) and commits them together.
pub(crate) async fn write_loop(pool: AnyPool, backend: Backend, mut queue: mpsc::Receiver<Queued>) {
    let mut group = Vec::with_capacity(MAX_GROUP);
    while queue.recv_many(&mut group, MAX_GROUP).await > 0 {
        let batches: Vec<&Batch> = group.iter().map(|q| q.batch.as_ref()).collect();
        match commit(&pool, backend, &batches).await {
            Ok(()) => {
                for q in group.drain(..) {
                    let _ = q.done.send(Ok(()));
                }
                continue;
            }
            // No connection to be had: trying each batch on its own would wait the pool's
            // patience once per table, holding every later write behind them.
            Err(WriteFailure::Database(sqlx::Error::PoolTimedOut)) => {
                tracing::error!("the store could not commit: no connection to the database");
                for q in group.drain(..) {
                    let _ = q.done.send(Err(WriteFailure::Database(sqlx::Error::PoolTimedOut)));
                }
                continue;
            }
            Err(_) => {}
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

pub(crate) async fn commit(pool: &AnyPool, backend: Backend, batches: &[&Batch]) -> Result<(), WriteFailure> {
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

pub(crate) async fn insert_game(
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
pub(crate) async fn rate(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    s: &GameSummary,
) -> Result<(), sqlx::Error> {
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
