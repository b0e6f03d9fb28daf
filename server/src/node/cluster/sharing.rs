//! Sharing the tables with a node that has fewer: a node that joins (or comes back after a
//! restart) starts with none, and new tables alone would take long to even the count. A node
//! that holds clearly more than the one with the fewest, at two looks in a row (so a burst of
//! tables made and closed moves nothing), hands it some of its idle tables (waiting for their
//! first game): their people's streams reconnect to the new node within a moment, and no
//! game is moved (the table itself refuses if its game began meanwhile).

use std::sync::atomic::Ordering;
use std::time::Duration;

use dudo_proto::v1 as pb;

use super::{Cluster, millis};
use crate::node::Dudo;

/// How often a node looks whether to share.
pub(super) const SHARE_EVERY: Duration = Duration::from_secs(15);
/// How many more tables than the node with the fewest a node holds before it shares.
const SHARE_PAST: i64 = 4;
/// The most tables handed over in one look.
const SHARE_AT_ONCE: usize = 16;

impl Dudo {
    /// Hands idle tables to the node with the fewest, if this one holds [`SHARE_PAST`] more:
    /// half the difference, [`SHARE_AT_ONCE`] at most.
    pub(super) async fn share_tables(&self, cluster: &Cluster) {
        let Some(store) = &self.store else { return };
        if cluster.draining() || self.stopping.is_stopping() {
            return;
        }
        let Ok(nodes) = store.members(millis(cluster.setup.lease)).await else { return };
        let Some(fewest) = nodes.into_iter().filter(|n| !n.draining).min_by_key(|n| n.tables) else { return };
        let here = i64::try_from(self.table_count()).unwrap_or(i64::MAX);
        let uneven = fewest.id != cluster.node() && here >= fewest.tables + SHARE_PAST;
        // Shared only when the last look found it so too.
        if !(cluster.uneven.swap(uneven, Ordering::Relaxed) && uneven) {
            return;
        }
        let most = usize::try_from((here - fewest.tables) / 2).unwrap_or(0).min(SHARE_AT_ONCE);
        let idle: Vec<(String, crate::node::TableHandle)> = match self.registry.lock() {
            Ok(r) => r
                .tables
                .iter()
                .filter(|(_, h)| !h.hidden && h.listed.borrow().state() == pb::TableState::Waiting)
                .take(most)
                .map(|(id, h)| (id.clone(), h.clone()))
                .collect(),
            Err(_) => return,
        };
        if idle.is_empty() {
            return;
        }
        let mut handing = tokio::task::JoinSet::new();
        for (id, handle) in idle {
            let (dudo, lease, heir) = (self.clone(), cluster.lease_of(&id), fewest.id.clone());
            handing.spawn(async move { dudo.hand_over(&id, &handle, lease, Some(&heir), true).await });
        }
        let handed = handing.join_all().await.into_iter().filter(|&h| h).count() as u64;
        metrics::counter!("dudo_tables_shared_total").increment(handed);
        tracing::info!(tables = handed, to = %fewest.id, "handed idle tables to the node with the fewest");
    }
}
