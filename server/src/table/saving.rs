//! Writing a table's journal: what each turn of its task caused is made durable before
//! anything of it is sent, with a few tries for a busy database, and finished games'
//! records made compact off the runtime's threads.

use std::sync::Arc;
use std::time::Duration;

use dudo_store::{Batch, StoreError};
use prost::Message;
use tokio::time::Instant;

use super::{Ended, StreamEnd, Table};

/// Finished games' records made compact (stored_record.rs) on the blocking pool: that replays
/// each game, which must not hold up the runtime's threads (a long game takes most of a
/// second). Should that task fail, the records are stored whole.
async fn compact_records(
    finished: Vec<dudo_store::FinishedGame>,
    secret: [u8; 32],
) -> Vec<dudo_store::FinishedGame> {
    let whole = finished.clone();
    let compacted = tokio::task::spawn_blocking(move || {
        finished
            .into_iter()
            .map(|f| dudo_store::FinishedGame {
                record: super::stored_record::compact_stored(&f.record, secret),
                ..f
            })
            .collect()
    });
    compacted.await.unwrap_or(whole)
}

impl Table {
    /// Makes the journal durable. If it could not be written (or another node holds the
    /// table now) the table stops, and nothing that was not saved has been sent.
    pub(super) async fn save(&mut self) -> Result<(), Ended> {
        let Some(store) = &self.store else { return Ok(()) };
        if !self.core.has_unsaved() && self.unwritten.is_none() && self.closed_at.is_none() {
            return Ok(());
        }
        let (journal, mut finished) = self.core.take_unsaved();
        if !finished.is_empty() {
            finished = compact_records(finished, self.core.dice_secret()).await;
        }
        let first = self.entries;
        let entries: Vec<dudo_store::Entry> = journal
            .into_iter()
            .enumerate()
            .map(|(i, (at, e))| dudo_store::Entry { n: first + i as i64, at, bytes: e.encode_to_vec() })
            .collect();
        self.entries += entries.len() as i64;
        let batch = Arc::new(Batch {
            table: self.core.id().to_string(),
            new_table: self.unwritten.take(),
            entries,
            finished,
            closed_at: self.closed_at,
            lease: self.lease.clone(),
        });
        let started = Instant::now();
        // In a cluster the save gives up inside half a lease: by a whole lease another node
        // may have adopted the table, and its players must not wait on this one.
        let within = self.lease.as_ref().map(|l| u64::try_from(l.millis).unwrap_or(0) / 2);
        let give_up = within.map(|millis| started + Duration::from_millis(millis));
        let attempt = |batch: Arc<Batch>| async move {
            match (give_up, within) {
                (Some(at), Some(millis)) => tokio::time::timeout_at(at, store.write_shared(batch))
                    .await
                    .unwrap_or(Err(StoreError::TookTooLong { millis })),
                _ => store.write_shared(batch).await,
            }
        };
        let mut outcome = attempt(Arc::clone(&batch)).await;
        // A busy or failing-over database gets a few tries (nothing has been sent, and every
        // write is idempotent) before the table gives up. Another writer is final.
        for pause in [100, 500, 2000] {
            let pause = Duration::from_millis(pause);
            match &outcome {
                Err(e @ StoreError::Query(_)) if give_up.is_none_or(|at| Instant::now() + pause < at) => {
                    tracing::warn!(error = %e, "could not save the table; trying again in {pause:?}");
                }
                _ => break,
            }
            tokio::time::sleep(pause).await;
            outcome = attempt(Arc::clone(&batch)).await;
        }
        if let Err(e) = outcome {
            // Replies are dropped unsent (their callers hear the table closed) and every
            // stream ends: nobody learns of anything the journal does not hold.
            self.replies.clear();
            if let StoreError::Fenced { .. } = e {
                tracing::warn!("another node holds the table now; its streams are sent there");
                metrics::counter!("dudo_tables_lost_total").increment(1);
                self.core.abandon_streams(StreamEnd::Moved);
                return Err(Ended::Moved);
            }
            tracing::error!(error = %e, "could not save the table; it stops");
            // In a cluster the node lets the table go and another rebuilds it from its
            // journal (this node may not reach the database either; its lease then runs
            // out): the streams are sent on to it now, not left to wait.
            let end = if self.lease.is_some() { StreamEnd::Moved } else { StreamEnd::Unsaved };
            self.core.abandon_streams(end);
            return Err(Ended::Unsaved);
        }
        metrics::histogram!("dudo_journal_write_seconds").record(started.elapsed().as_secs_f64());
        Ok(())
    }
}
