//! Open tables: each table's journal, read back to resume it, closed, and forgotten once
//! closed long enough.

use super::*;

/// A table to resume: its journal, in order.
#[derive(Clone, Debug)]
pub struct OpenTable {
    pub id: String,
    pub code: String,
    pub entries: Vec<Entry>,
    /// The lease's epoch it was taken at (0 on a single server).
    pub epoch: i64,
}

impl Store {
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
}
