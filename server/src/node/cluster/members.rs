//! Who is in the cluster, as the database says: the nodes heard from within a lease. A node
//! that leaves (or goes unheard) and one that joins are said in the log, their count is a
//! metric, the channels to nodes gone are let go of, and their rows are forgotten.

use super::{Cluster, millis};
use crate::node::Dudo;

/// Leases a node may go unheard before its row in the database is forgotten.
const FORGET_NODES_AFTER_LEASES: u32 = 12;

impl Dudo {
    /// Lets go of the channels to nodes that are no longer in the cluster: a node that comes
    /// back (a pod rescheduled) often has a new address, and the old one's channel would
    /// otherwise be kept for ever.
    pub(super) async fn prune_peers(&self, cluster: &Cluster) {
        let Some(store) = &self.store else { return };
        let forget = millis(cluster.setup.lease.saturating_mul(FORGET_NODES_AFTER_LEASES));
        match store.forget_gone_nodes(forget).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(nodes = n, "forgot nodes unheard from for {} s", forget / 1000),
            Err(e) => tracing::warn!(error = %e, "could not forget the nodes that are gone"),
        }
        let Ok(nodes) = store.members(millis(cluster.setup.lease)).await else { return };
        let live: std::collections::HashSet<&str> = nodes.iter().map(|n| n.address.as_str()).collect();
        if let Ok(mut peers) = cluster.peers.lock() {
            peers.retain(|address, _| live.contains(address.as_str()));
        }
    }

    /// Who is alive, as the database says: a node gone since the last look (no heartbeat
    /// for a lease: it died, or was cut off) is said in the log, one that came is too, and
    /// their count is `dudo_cluster_nodes_alive`.
    pub(super) async fn look_at_the_nodes(&self, cluster: &Cluster, store: &dudo_store::Store) {
        let Ok(nodes) = store.members(millis(cluster.setup.lease)).await else { return };
        let now: std::collections::BTreeSet<String> = nodes.into_iter().map(|n| n.id).collect();
        metrics::gauge!("dudo_cluster_nodes_alive").set(now.len() as f64);
        let Ok(mut alive) = cluster.alive.lock() else { return };
        if alive.is_empty() {
            let nodes: Vec<&str> = now.iter().map(String::as_str).collect();
            tracing::info!(nodes = %nodes.join(", "), "the cluster's nodes, as this node joins");
        } else {
            for gone in alive.difference(&now) {
                tracing::warn!(node = %gone, "a node left the cluster (it drained, died, or went unheard for a lease: its tables are adopted)");
            }
            for came in now.difference(&alive) {
                tracing::info!(node = %came, "a node joined the cluster");
            }
        }
        *alive = now;
    }
}
