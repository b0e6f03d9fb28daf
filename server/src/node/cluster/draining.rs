//! Leaving the cluster on purpose: a node told to stop hands each table to a survivor, and
//! a table it could not save is let go for another node to rebuild.

use std::time::Duration;

use dudo_store::cluster::Node;
use std::sync::atomic::Ordering;

use crate::node::Dudo;
use crate::table::Command;

impl Dudo {
    /// Lets go of a table this node could not save (in a cluster); true if it was let go.
    pub(crate) async fn release_unsaved(&self, table: &str) -> bool {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return false };
        let Some(lease) = cluster.lease_of(table) else { return false };
        match store.release(table, &lease, None).await {
            Ok(()) => {
                tracing::warn!(table, "could not save the table; another node takes it from its journal");
                true
            }
            // The database is away: once it is back, the next renewal finds the lease with no
            // table behind it and lets it go.
            Err(_) => true,
        }
    }

    /// Hands one table to another node: its task writes what it journalled and ends (its
    /// streams told to reconnect), then its lease is let go, for `heir` first. False if the
    /// task did not end in time (its lease then runs out instead).
    pub(super) async fn hand_over(
        &self,
        id: &str,
        handle: &crate::node::TableHandle,
        lease: Option<dudo_store::cluster::Lease>,
        heir: Option<&str>,
        only_if_idle: bool,
    ) -> bool {
        let Some(store) = &self.store else { return false };
        if only_if_idle {
            // Refused by the table if a game began meanwhile: it stays.
            if !matches!(self.ask(handle, |reply| Command::HandOver { reply }).await, Ok(true)) {
                return false;
            }
        } else {
            let _ = self.ask(handle, |reply| Command::Release { reply }).await;
        }
        // The task writes what it journalled, then ends, closing its channel.
        let ended = tokio::time::timeout(Duration::from_secs(5), handle.tx.closed()).await;
        let (Ok(()), Some(lease)) = (ended, lease) else { return false };
        if let Err(e) = store.release(id, &lease, heir).await {
            tracing::warn!(table = %id, error = %e, "could not release the lease; it runs out instead");
            return false;
        }
        true
    }

    /// Hands every table over (the node was told to stop): no new ones come here, each is
    /// let go once its journal is written, and its lease released, so another node adopts
    /// it at once; its streams are told to reconnect. Then the node leaves the cluster.
    pub(crate) async fn drain(&self) {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return };
        cluster.draining.store(true, Ordering::Relaxed);
        cluster.ladder_here.store(false, Ordering::Relaxed);
        let node = Node {
            id: cluster.node().to_string(),
            address: cluster.setup.address.clone(),
            tables: 0,
            draining: true,
        };
        let _ = store.heartbeat(&node, &cluster.key_hash()).await;
        let tables: Vec<(String, crate::node::TableHandle)> = match self.registry.lock() {
            Ok(r) => r.tables.iter().map(|(id, h)| (id.clone(), h.clone())).collect(),
            Err(_) => return,
        };
        let started = tokio::time::Instant::now();
        // Shared among the nodes staying (fewest tables first), not left to the first to look.
        let heirs: Vec<String> = store
            .members(super::millis(cluster.setup.lease))
            .await
            .unwrap_or_default()
            .into_iter()
            .filter(|n| !n.draining && n.id != cluster.node())
            .map(|n| n.id)
            .collect();
        let mut releases = tokio::task::JoinSet::new();
        for (i, (id, handle)) in tables.into_iter().enumerate() {
            let dudo = self.clone();
            let heir = (!heirs.is_empty()).then(|| heirs[i % heirs.len()].clone());
            // Taken first: the lease is forgotten when the task ends.
            let lease = cluster.lease_of(&id);
            releases.spawn(async move { dudo.hand_over(&id, &handle, lease, heir.as_deref(), false).await });
        }
        let released = releases.join_all().await.len();
        let _ = store.leave(cluster.node()).await;
        tracing::info!(tables = released, millis = started.elapsed().as_millis() as u64, "drained");
    }
}
