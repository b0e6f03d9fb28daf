//! Taking over the tables of a node that is gone: a dead node is buried as soon as the
//! database says its session ended (see `dudo_store::Store::bury_dead`), and its tables,
//! shared among the survivors, are rebuilt from their journals here.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{ADOPT_AT_ONCE, Cluster, millis};
use crate::node::Dudo;
use crate::table::{self, Table};

/// How long a table no node of this version can rebuild waits before it is looked at again.
const SET_ASIDE_MILLIS: i64 = 10_000;

impl Dudo {
    /// Buries the nodes that died since the last look (said in the log): their tables'
    /// leases run out now, each meant for one survivor, and the ladder's job is free.
    pub(super) async fn bury_the_dead(&self, cluster: &Cluster) {
        let Some(store) = &self.store else { return };
        match store.bury_dead(cluster.node(), millis(cluster.setup.lease)).await {
            Ok(buried) => {
                for dead in buried {
                    metrics::counter!("dudo_nodes_buried_total").increment(1);
                    tracing::warn!(
                        node = %dead.node,
                        tables = dead.tables,
                        "a node died (its session with the database ended): its tables are shared among the others now"
                    );
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not look for nodes that died"),
        }
    }

    /// Adopts what one look finds; returns how many tables it took.
    pub(super) async fn adopt(&self, cluster: &Arc<Cluster>) -> usize {
        let Some(store) = &self.store else { return 0 };
        if self.stopping.is_stopping() {
            return 0;
        }
        // Tables still being rebuilt count: they are here a moment later.
        let here = self.table_count() + cluster.rebuilding.load(Ordering::Relaxed);
        let room = self.limits.max_tables.saturating_sub(here);
        let most = i64::try_from(room).unwrap_or(i64::MAX).min(ADOPT_AT_ONCE);
        if most == 0 {
            return 0;
        }
        cluster.adopting.store(true, Ordering::Release);
        let adopted = match store.adopt_leases(cluster.node(), millis(cluster.setup.lease), most).await {
            Ok(adopted) => adopted,
            Err(e) => {
                cluster.adopting.store(false, Ordering::Release);
                tracing::warn!(error = %e, "could not look for tables to adopt");
                return 0;
            }
        };
        for (open, _) in &adopted {
            cluster.hold(&open.id, open.epoch);
        }
        cluster.adopting.store(false, Ordering::Release);
        let taken = adopted.len();
        cluster.rebuilding.fetch_add(taken, Ordering::Relaxed);
        for (open, ownerless) in adopted {
            // Each on its own, two at a time: a short journal never waits behind a long one.
            let (dudo, cluster) = (self.clone(), Arc::clone(cluster));
            tokio::spawn(async move {
                let _permit = cluster.rebuilds.acquire().await;
                dudo.rebuild_adopted(&cluster, open, ownerless).await;
                cluster.rebuilding.fetch_sub(1, Ordering::Relaxed);
            });
        }
        taken
    }

    /// Reads an adopted table's journal and rebuilds it here. Whatever fails, the lease is
    /// not kept without a table behind it: it is let go (for another node), set aside (a
    /// newer version's journal) or the table closed (no node could rebuild it).
    async fn rebuild_adopted(&self, cluster: &Cluster, mut open: dudo_store::OpenTable, ownerless: i64) {
        let Some(store) = &self.store else { return };
        let (id, epoch) = (open.id.clone(), open.epoch);
        let lease = cluster.lease_of(&id);
        let let_go = |why: &str, error: String| {
            tracing::warn!(table = %id, error, "{why}; letting it go");
            cluster.forget(&id);
        };
        open.entries = match store.adopted_journal(&id).await {
            Ok(entries) => entries,
            Err(e) => {
                let_go("could not read an adopted table's journal", e.to_string());
                if let Some(lease) = &lease {
                    let _ = store.release(&id, lease, None).await;
                }
                return;
            }
        };
        // Replayed off the runtime's threads: a long journal takes its time without holding
        // up the tables already here.
        let (store_, length, budget) = (store.clone(), self.game_length(), Arc::clone(self.budgets.server()));
        let (rate, share, link) =
            (self.limits.table_moves_per_second, self.bot_cpu.table_share(), Arc::clone(&self.link_base));
        let held = lease.clone();
        let rebuilt = tokio::task::spawn_blocking(move || {
            Table::recover(open, store_, rate, length, budget, share, link, held)
        })
        .await
        .unwrap_or_else(|e| Err(table::RecoverError::Panicked(e.to_string())));
        match rebuilt {
            Ok(table) => {
                let (code, hidden) = (table.info().join_code, table.hidden());
                if let Err(e) = self.spawn_table_as(table, id.clone(), code, None, hidden) {
                    // For a node with room: a lease held here with no table behind it would
                    // keep the table from everyone.
                    let_go("could not hold an adopted table", e.to_string());
                    if let Some(lease) = &lease {
                        let _ = store.release(&id, lease, None).await;
                    }
                    return;
                }
                metrics::counter!("dudo_adoptions_total").increment(1);
                metrics::histogram!("dudo_ownerless_seconds").record(ownerless as f64 / 1000.0);
                tracing::info!(table = %id, epoch, ownerless_ms = ownerless, "adopted");
            }
            Err(table::RecoverError::Newer { n }) => {
                // Mid-upgrade: left for a node of the newer version (looked at again in a
                // while, so that nodes of this one do not pass it round meanwhile).
                tracing::warn!(table = %id, entry = n, "a newer dudo wrote this table's journal; leaving it for a node of that version");
                let _ = store.set_aside(&id, epoch, SET_ASIDE_MILLIS).await;
                cluster.forget(&id);
            }
            Err(e) => {
                // No node could rebuild it: closed, rather than passed round for ever.
                tracing::error!(table = %id, error = %e, "could not rebuild an adopted table; closing it");
                let _ = store.close_table(&id, table::unix_millis()).await;
                cluster.forget(&id);
            }
        }
    }
}
