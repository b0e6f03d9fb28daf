//! What lets several servers share one database: each open table's lease (which node owns it,
//! in which epoch, until when), the nodes themselves, and leases on jobs that run once per
//! cluster.
//!
//! Only PostgreSQL holds a cluster: its row locks (and `SKIP LOCKED`) are what make a lease
//! change hands safely. Times here are the database's clock, never a node's: nodes whose clocks disagree still
//! agree on whether a lease has run out. Every change of hands goes through one `UPDATE` that
//! the journal's fencing (in [`crate::Store::write`]) serialises with: a node that lost a
//! table cannot write into it, however long it was paused.

use sqlx::Row;

use crate::alive::HELD_KEYS;
use crate::{Backend, OpenTable, Store, StoreError};

/// How long a table let go of waits for the node it is meant for before any node takes it.
const HEIR_FIRST_MILLIS: i64 = 1000;

/// A node's hold on one table: journal writes carry it, and are refused once the table's
/// epoch has moved on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The owning node's id.
    pub node: String,
    pub epoch: i64,
    /// How long a new table's first lease lasts (renewals say their own).
    pub millis: i64,
}

/// A node of the cluster, as the others see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub id: String,
    /// Where the other nodes reach it (`http://10.0.0.7:7000`).
    pub address: String,
    pub tables: i64,
    pub draining: bool,
}

/// Who holds an open table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub table: String,
    /// Its node, if its lease has one (none while it waits to be adopted).
    pub node: Option<Node>,
    /// How many times its lease has passed to another node (each adoption is one more).
    pub epoch: i64,
}

/// The database's clock, in Unix milliseconds, as SQL.
/// Addresses refused lately that one sharing tells, or asks about: a flood of refusals from
/// many addresses cannot make the cluster's every look long.
pub const MOST_REFUSED_SHARED: usize = 1024;

pub(crate) fn now_sql(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
    }
}

impl Store {
    /// Leases are PostgreSQL's (its row locks and `SKIP LOCKED` are what make them safe),
    /// and a reader holds none.
    fn member(&self) -> Result<(), StoreError> {
        if self.backend != Backend::Postgres {
            return Err(StoreError::ClusterNeedsPostgres { db: self.place.clone() });
        }
        match self.access {
            crate::Access::Reader => Err(StoreError::ReadOnly),
            _ => Ok(()),
        }
    }

    /// What only a cluster's database answers (readers may ask it too).
    fn cluster_db(&self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Postgres => Ok(()),
            Backend::Sqlite => Err(StoreError::ClusterNeedsPostgres { db: self.place.clone() }),
        }
    }

    /// Renews every lease `node` holds for `millis` more; returns the tables it still holds,
    /// with their epochs (a table missing from them, or at another epoch, was adopted by
    /// another node while this one was not renewing). A lease that has run out (let go, or
    /// not renewed in time) is not brought back: it is up for adoption.
    pub async fn renew(&self, node: &str, millis: i64) -> Result<Vec<(String, i64)>, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        // Rows are locked in the order journal writes lock them (by id), so the two never
        // wait for each other in a circle.
        let rows = sqlx::query(&format!(
            "UPDATE tables SET lease_until = {now} + $2 WHERE id IN \
             (SELECT id FROM tables WHERE owner = $1 AND closed_at IS NULL AND lease_until >= {now} \
             ORDER BY id FOR UPDATE) RETURNING id, epoch"
        ))
        .bind(node)
        .bind(millis)
        .fetch_all(&self.members)
        .await?;
        Ok(rows
            .iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("epoch")?)))
            .collect::<Result<_, sqlx::Error>>()?)
    }

    /// Takes up to `most` open tables whose leases have run out (their node died, was
    /// paused, or let them go), each at its next epoch, with their journals to rebuild them
    /// from, and how long (in milliseconds) each had been without an owner. Nodes adopting
    /// at once take different tables.
    pub async fn adopt(
        &self,
        node: &str,
        millis: i64,
        most: i64,
    ) -> Result<Vec<(OpenTable, i64)>, StoreError> {
        let mut adopted = Vec::new();
        for (mut table, ownerless) in self.adopt_leases(node, millis, most).await? {
            table.entries = self.adopted_journal(&table.id).await?;
            adopted.push((table, ownerless));
        }
        Ok(adopted)
    }

    /// A table's journal, read for its adoption (after its lease moved: the last owner can
    /// write nothing more, so this is all).
    pub async fn adopted_journal(&self, table: &str) -> Result<Vec<crate::Entry>, StoreError> {
        self.journal_on(&self.members, table).await
    }

    /// [`Store::adopt`] without the journals (each read with [`Store::adopted_journal`]), so
    /// that a node can rebuild the tables it took side by side, a short journal never waiting
    /// behind a long one.
    pub async fn adopt_leases(
        &self,
        node: &str,
        millis: i64,
        most: i64,
    ) -> Result<Vec<(OpenTable, i64)>, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        // A table another node is adopting, or writing, right now is skipped (its row is
        // locked), not waited for.
        // The old lease's end comes back too: how long the table had no owner.
        let rows = sqlx::query(&format!(
            "WITH lapsed AS (SELECT id, lease_until FROM tables WHERE closed_at IS NULL AND lease_until < {now} \
                             AND (heir IS NULL OR heir = $1 OR lease_until < {now} - {HEIR_FIRST_MILLIS}) \
                             ORDER BY lease_until, id LIMIT $3 FOR UPDATE SKIP LOCKED) \
             UPDATE tables SET owner = $1, epoch = epoch + 1, lease_until = {now} + $2, heir = NULL FROM lapsed \
             WHERE tables.id = lapsed.id \
             RETURNING tables.id AS id, tables.code AS code, tables.epoch AS epoch, \
                       {now} - lapsed.lease_until AS ownerless"
        ))
        .bind(node)
        .bind(millis)
        .bind(most)
        .fetch_all(&self.members)
        .await?;
        let mut adopted = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let table = OpenTable {
                id,
                code: row.try_get("code")?,
                entries: Vec::new(),
                epoch: row.try_get("epoch")?,
            };
            adopted.push((table, row.try_get::<i64, _>("ownerless")?.max(0)));
        }
        Ok(adopted)
    }

    /// Lets go of a table at once (a node draining, or handing it to one with fewer): the
    /// next node to look adopts it, `heir` first if named.
    pub async fn release(&self, table: &str, lease: &Lease, heir: Option<&str>) -> Result<(), StoreError> {
        self.member()?;
        // Run out now (not at 0): the time it waits for its next owner is counted from here.
        let now = now_sql(self.backend);
        sqlx::query(&format!(
            "UPDATE tables SET lease_until = {now} - 1, heir = $4 WHERE id = $1 AND owner = $2 AND epoch = $3"
        ))
        .bind(table)
        .bind(&lease.node)
        .bind(lease.epoch)
        .bind(heir)
        .execute(&self.members)
        .await?;
        Ok(())
    }

    /// Lets go of a table this node took at `epoch` but cannot rebuild (a newer version
    /// wrote its journal), for `millis`: no node holds it meanwhile, then any may adopt it.
    pub async fn set_aside(&self, table: &str, epoch: i64, millis: i64) -> Result<(), StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        sqlx::query(&format!(
            "UPDATE tables SET owner = NULL, heir = NULL, lease_until = {now} + $3 WHERE id = $1 AND epoch = $2"
        ))
        .bind(table)
        .bind(epoch)
        .bind(millis)
        .execute(&self.members)
        .await?;
        Ok(())
    }

    /// Says `node` is alive, where it is reached, how many tables it holds, whether it is
    /// draining, and the hash of its cluster key.
    pub async fn heartbeat(&self, node: &Node, key_hash: &str) -> Result<(), StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        sqlx::query(&format!(
            "INSERT INTO nodes (id, address, tables, draining, seen_at, key_hash, alive_lock) \
             VALUES ($1, $2, $3, $4, {now}, $5, $6) \
             ON CONFLICT (id) DO UPDATE SET address = excluded.address, tables = excluded.tables, \
             draining = excluded.draining, seen_at = excluded.seen_at, key_hash = excluded.key_hash, \
             alive_lock = excluded.alive_lock"
        ))
        .bind(&node.id)
        .bind(&node.address)
        .bind(node.tables)
        .bind(i64::from(node.draining))
        .bind(key_hash)
        .bind(self.alive_key().await)
        .execute(&self.members)
        .await?;
        Ok(())
    }

    /// Takes `node`'s id for this process, unless a process under that id was heard from in
    /// the last `within` milliseconds; true if taken. One statement, so two processes
    /// starting under one id at once cannot both take it.
    pub async fn claim_node(&self, node: &Node, key_hash: &str, within: i64) -> Result<bool, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        // A process that ran under this id and died is known dead at once if its alive lock
        // is free (not waited for a lease).
        let claimed = sqlx::query(&format!(
            "INSERT INTO nodes (id, address, tables, draining, seen_at, key_hash, alive_lock) \
             VALUES ($1, $2, $3, $4, {now}, $5, $7) \
             ON CONFLICT (id) DO UPDATE SET address = excluded.address, tables = excluded.tables, \
             draining = excluded.draining, seen_at = excluded.seen_at, key_hash = excluded.key_hash, \
             alive_lock = excluded.alive_lock \
             WHERE nodes.seen_at < {now} - $6 \
                OR (nodes.alive_lock <> 0 AND nodes.alive_lock NOT IN ({HELD_KEYS}))"
        ))
        .bind(&node.id)
        .bind(&node.address)
        .bind(node.tables)
        .bind(i64::from(node.draining))
        .bind(key_hash)
        .bind(within)
        .bind(self.alive_key().await)
        .execute(&self.members)
        .await?;
        Ok(claimed.rows_affected() == 1)
    }

    /// Whether a process runs under `node`'s id now, as its alive lock says (a node whose
    /// row names no lock, one of an earlier version, is judged by its heartbeats instead).
    pub async fn holds_its_lock(&self, node: &str) -> Result<bool, StoreError> {
        self.cluster_db()?;
        let held: Option<i64> = sqlx::query_scalar(&format!(
            "SELECT CAST(1 AS BIGINT) FROM nodes WHERE id = $1 AND alive_lock <> 0 AND alive_lock IN ({HELD_KEYS})"
        ))
        .bind(node)
        .fetch_optional(&self.members)
        .await?;
        Ok(held.is_some())
    }

    /// The nodes heard from in the last `within` milliseconds, each with the hash of its
    /// cluster key: what a node checks before it joins.
    pub async fn live_keys(&self, within: i64) -> Result<Vec<(String, String)>, StoreError> {
        self.cluster_db()?;
        let now = now_sql(self.backend);
        let rows =
            sqlx::query(&format!("SELECT id, key_hash FROM nodes WHERE seen_at >= {now} - $1 ORDER BY id"))
                .bind(within)
                .fetch_all(&self.members)
                .await?;
        Ok(rows
            .iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("key_hash")?)))
            .collect::<Result<_, sqlx::Error>>()?)
    }

    /// Lets go of every table and job `node` holds: what a node does as it starts, for the
    /// tables an earlier run of it held when it died (no process holds them now).
    pub async fn release_all(&self, node: &str) -> Result<u64, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        let released = sqlx::query(&format!(
            "UPDATE tables SET lease_until = {now} - 1 WHERE owner = $1 AND closed_at IS NULL AND lease_until >= {now}"
        ))
        .bind(node)
        .execute(&self.members)
        .await?;
        sqlx::query("DELETE FROM cluster_jobs WHERE owner = $1").bind(node).execute(&self.members).await?;
        Ok(released.rows_affected())
    }

    /// Forgets a node (it stopped, having let go of all it held).
    pub async fn leave(&self, node: &str) -> Result<(), StoreError> {
        self.member()?;
        sqlx::query("DELETE FROM nodes WHERE id = $1").bind(node).execute(&self.members).await?;
        sqlx::query("DELETE FROM cluster_jobs WHERE owner = $1").bind(node).execute(&self.members).await?;
        Ok(())
    }

    /// Forgets the nodes not heard from in `unseen` milliseconds (they died, not drained:
    /// their rows would otherwise stay until a node of the same id starts). How many went.
    pub async fn forget_gone_nodes(&self, unseen: i64) -> Result<u64, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        let gone = sqlx::query(&format!("DELETE FROM nodes WHERE seen_at < {now} - $1"))
            .bind(unseen)
            .execute(&self.members)
            .await?;
        Ok(gone.rows_affected())
    }

    /// The nodes heard from in the last `within` milliseconds, fewest tables first (read as
    /// a client's call reads, beside the history).
    pub async fn nodes(&self, within: i64) -> Result<Vec<Node>, StoreError> {
        self.nodes_on(&self.reads, within).await
    }

    /// [`Store::nodes`] for a node's own bookkeeping (renewals, sharing, a drain): read on its
    /// own connections, which no client's calls wait on.
    pub async fn members(&self, within: i64) -> Result<Vec<Node>, StoreError> {
        self.nodes_on(&self.members, within).await
    }

    async fn nodes_on(&self, pool: &sqlx::AnyPool, within: i64) -> Result<Vec<Node>, StoreError> {
        self.cluster_db()?;
        let now = now_sql(self.backend);
        let rows = sqlx::query(&format!(
            "SELECT id, address, tables, draining FROM nodes WHERE seen_at >= {now} - $1 ORDER BY tables, id"
        ))
        .bind(within)
        .fetch_all(pool)
        .await?;
        rows.iter().map(|r| Ok(node_of(r)?)).collect()
    }

    /// Who holds the open table with this id or join code (none: no such open table).
    pub async fn owner_of(&self, table: &str) -> Result<Option<Owner>, StoreError> {
        self.cluster_db()?;
        let now = now_sql(self.backend);
        let row = sqlx::query(&format!(
            "SELECT t.id AS table_id, t.epoch AS epoch, n.id, n.address, n.tables, n.draining FROM tables t \
             LEFT JOIN nodes n ON n.id = t.owner AND t.lease_until >= {now} \
             WHERE (t.id = $1 OR t.code = UPPER($1)) AND t.closed_at IS NULL LIMIT 1"
        ))
        .bind(table)
        .fetch_optional(&self.reads)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let node = match row.try_get::<Option<String>, _>("id")? {
            Some(_) => Some(node_of(&row)?),
            None => None,
        };
        Ok(Some(Owner { table: row.try_get("table_id")?, node, epoch: row.try_get("epoch")? }))
    }

    /// Whether an open table anywhere in the cluster answers to `code`.
    pub async fn code_in_use(&self, code: &str) -> Result<bool, StoreError> {
        self.cluster_db()?;
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT CAST(1 AS BIGINT) FROM tables WHERE code = $1 AND closed_at IS NULL LIMIT 1",
        )
        .bind(code)
        .fetch_optional(&self.reads)
        .await?;
        Ok(found.is_some())
    }

    /// Takes or renews `job` for `node` for `millis`; true if `node` holds it now. A job
    /// changes hands only once its holder has not renewed it in time.
    pub async fn hold_job(&self, job: &str, node: &str, millis: i64) -> Result<bool, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        let held = sqlx::query(&format!(
            "INSERT INTO cluster_jobs (job, owner, lease_until) VALUES ($1, $2, {now} + $3) \
             ON CONFLICT (job) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until \
             WHERE cluster_jobs.owner = excluded.owner OR cluster_jobs.lease_until < {now}"
        ))
        .bind(job)
        .bind(node)
        .bind(millis)
        .execute(&self.members)
        .await?;
        Ok(held.rows_affected() == 1)
    }
}

/// A node found dead by [`Store::bury_dead`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buried {
    pub node: String,
    /// Its open tables, let go of for the survivors.
    pub tables: u64,
}

impl Store {
    /// Tells the cluster these addresses were refused by this node's per-address limits, each
    /// counting as refused for `for_ms` from now; and hears the addresses refused anywhere
    /// that still count, with how many ms they still do: the latest refused, and of those
    /// `asked` about (this node's away seats'), every one, so that a flood of refusals from
    /// many addresses cannot crowd them out. At most [`MOST_REFUSED_SHARED`] of each.
    pub async fn share_refused(
        &self,
        refused: &[String],
        for_ms: i64,
        asked: &[String],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        self.member()?;
        let now = now_sql(self.backend);
        let mut tx = self.members.begin().await?;
        for address in refused.iter().take(MOST_REFUSED_SHARED) {
            sqlx::query(&format!(
                "INSERT INTO refused_addresses (address, until_ms) VALUES ($1, {now} + $2) \
                 ON CONFLICT (address) DO UPDATE SET until_ms = excluded.until_ms"
            ))
            .bind(address)
            .bind(for_ms)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(&format!("DELETE FROM refused_addresses WHERE until_ms < {now}"))
            .execute(&mut *tx)
            .await?;
        let asked = &asked[..asked.len().min(MOST_REFUSED_SHARED)];
        let latest = sqlx::query(&format!(
            "SELECT address, until_ms - {now} AS left_ms FROM refused_addresses ORDER BY until_ms DESC LIMIT $1"
        ))
        .bind(i64::try_from(MOST_REFUSED_SHARED).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await?;
        let mut heard = Vec::new();
        for row in latest {
            heard.push((row.try_get::<String, _>("address")?, row.try_get::<i64, _>("left_ms")?));
        }
        if !asked.is_empty() {
            let places: Vec<String> = (1..=asked.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT address, until_ms - {now} AS left_ms FROM refused_addresses WHERE until_ms >= {now} \
                 AND address IN ({})",
                places.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for address in asked {
                query = query.bind(address);
            }
            for row in query.fetch_all(&mut *tx).await? {
                heard.push((row.try_get::<String, _>("address")?, row.try_get::<i64, _>("left_ms")?));
            }
        }
        tx.commit().await?;
        Ok(heard)
    }

    /// Takes (or checks) this node's alive lock; the key it holds. A cluster member calls it
    /// before it joins and at each heartbeat.
    pub async fn keep_alive(&self) -> Result<i64, StoreError> {
        self.member()?;
        let alive = self.alive.as_ref().ok_or(StoreError::ReadOnly)?;
        Ok(alive.keep().await?)
    }

    /// Whether this node's alive session ended since the last asking (the database closed
    /// it, or it could not be checked and was dropped): the others may bury this node the
    /// moment they look, so its tables are to be let go of at once rather than at the next
    /// write (which another owner's epoch fences).
    pub fn alive_session_lost(&self) -> bool {
        self.alive.as_ref().is_some_and(|alive| alive.take_lost())
    }

    async fn alive_key(&self) -> i64 {
        match &self.alive {
            Some(alive) => alive.key().await,
            None => 0,
        }
    }

    /// Buries the nodes that died: a node whose alive lock nobody holds lost its session
    /// with the database (its process ended). Its row goes, its jobs run out now, and its
    /// open tables' leases too, each table meant in turn for one of the nodes heard from in
    /// the last `within` milliseconds (fewest tables first), so the survivors share them.
    /// Only a node holding its own lock buries others: after the database restarts nobody
    /// holds one until they take them again, and nobody is buried meanwhile.
    pub async fn bury_dead(&self, me: &str, within: i64) -> Result<Vec<Buried>, StoreError> {
        self.member()?;
        let mine = self.alive_key().await;
        if mine == 0 {
            return Ok(Vec::new());
        }
        let now = now_sql(self.backend);
        let mut tx = self.members.begin().await?;
        // One statement: of two survivors burying one node, the second finds its row gone.
        let dead: Vec<String> = sqlx::query(&format!(
            "WITH held AS ({HELD_KEYS}) DELETE FROM nodes WHERE id <> $1 AND alive_lock <> 0 \
             AND alive_lock NOT IN (SELECT k FROM held) AND EXISTS (SELECT 1 FROM held WHERE k = $2) RETURNING id"
        ))
        .bind(me)
        .bind(mine)
        .fetch_all(&mut *tx)
        .await?
        .iter()
        .map(|r| r.try_get("id"))
        .collect::<Result<_, sqlx::Error>>()?;
        let mut buried = Vec::with_capacity(dead.len());
        for node in dead {
            // The i-th of its tables (by id) is meant for the (i mod m)-th of the m live nodes.
            let shared = sqlx::query(&format!(
                "UPDATE tables AS t SET lease_until = {now} - 1, heir = h.id \
                 FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) - 1 AS i FROM tables \
                       WHERE owner = $1 AND closed_at IS NULL AND lease_until >= {now}) AS o, \
                      (SELECT id, ROW_NUMBER() OVER (ORDER BY tables, id) - 1 AS j, COUNT(*) OVER () AS m \
                       FROM nodes WHERE draining = 0 AND seen_at >= {now} - $2) AS h \
                 WHERE t.id = o.id AND o.i % h.m = h.j"
            ))
            .bind(&node)
            .bind(within)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            // Any the sharing missed (no live node listed): for whoever looks first.
            let rest = sqlx::query(&format!(
                "UPDATE tables SET lease_until = {now} - 1 WHERE owner = $1 AND closed_at IS NULL AND lease_until >= {now}"
            ))
            .bind(&node)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query(&format!("UPDATE cluster_jobs SET lease_until = {now} - 1 WHERE owner = $1"))
                .bind(&node)
                .execute(&mut *tx)
                .await?;
            buried.push(Buried { node, tables: shared + rest });
        }
        tx.commit().await?;
        Ok(buried)
    }

    /// The live node holding `job` (none: no node holds it now).
    pub async fn job_holder(&self, job: &str) -> Result<Option<Node>, StoreError> {
        self.cluster_db()?;
        let now = now_sql(self.backend);
        let row = sqlx::query(&format!(
            "SELECT n.id, n.address, n.tables, n.draining FROM cluster_jobs j JOIN nodes n ON n.id = j.owner \
             WHERE j.job = $1 AND j.lease_until >= {now}"
        ))
        .bind(job)
        .fetch_optional(&self.reads)
        .await?;
        Ok(row.as_ref().map(node_of).transpose()?)
    }
}

fn node_of(row: &sqlx::any::AnyRow) -> Result<Node, sqlx::Error> {
    Ok(Node {
        id: row.try_get("id")?,
        address: row.try_get("address")?,
        tables: row.try_get("tables")?,
        draining: row.try_get::<i64, _>("draining")? != 0,
    })
}
