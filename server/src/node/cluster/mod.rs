//! The node as one of a cluster on one PostgreSQL database: the leases it holds on its tables
//! (renewed in the background; a table whose lease moved on is let go), the tables it adopts
//! when another node's leases run out, where a call for a table held elsewhere goes, and the
//! drain that hands every table over when the node is told to stop.
//!
//! The database decides who owns what (`dudo_store::cluster`); this module only acts on it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dudo_store::cluster::{Lease, Node};
use tonic::transport::{Channel, Endpoint};

use super::Dudo;
use crate::refusal::{Refusal, refused};
use crate::table::{self, Command};

/// Metadata a node puts on a call it forwards: the cluster's key, which the node port
/// requires, and the address of the client the call came from.
pub(crate) const NODE_KEY: &str = "dudo-node-key";
pub(crate) const CLIENT_ADDR: &str = "dudo-client-addr";
/// Set on a node's own watch of a table another node holds (a tournament's director
/// following its game): the one spectator a table the server seats itself admits. Never
/// passed on from a client.
pub(crate) const SERVER_WATCH: &str = "dudo-server-watch";

/// How often a node looks for nodes that died and tables to adopt: a failover's wait, on
/// average half of it (two short queries each time).
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Adopted tables rebuilt at once (each reads its journal and replays it).
const REBUILDS_AT_ONCE: usize = 2;

/// Tables one node adopts in one look (the others take the rest at once).
const ADOPT_AT_ONCE: i64 = 64;

/// The job of running the ladder's matchmaker: one node holds it, and the others send
/// entries there, so that everyone waiting in a pool waits in one queue.
const LADDER_JOB: &str = "ladder";

/// How a node joins a cluster.
#[derive(Clone, Debug)]
pub struct ClusterSetup {
    /// This node's id, unique in the cluster (a pod's name, or random).
    pub node: String,
    /// Where the other nodes reach this one's node port (`http://10.0.0.7:7001`).
    pub address: String,
    /// The secret every node of the cluster shares; forwarded calls carry it.
    pub key: String,
    /// How long a lease lasts unrenewed: a node that dies holds its tables this long.
    pub lease: Duration,
}

/// Why a node could not join its cluster.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error(
        "the node id {node:?} is in use by a running node (heard from in the last {lease_millis} ms): give each node an id of its own (--node-id)"
    )]
    IdInUse { node: String, lease_millis: i64 },
    #[error(
        "this node's cluster key is not the one the running nodes ({nodes}) share: give every node the same key (DUDO_CLUSTER_KEY or --cluster-key-file)"
    )]
    OtherKey { nodes: String },
    #[error("the cluster's database: {0}")]
    Store(#[from] dudo_store::StoreError),
}

/// A call forwarded to this node by another (put among a request's extensions by the node
/// port): it is served here, never forwarded again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forwarded;

/// The cluster as this node sees it.
pub(crate) struct Cluster {
    setup: ClusterSetup,
    /// Told to stop: no new tables here, and none adopted.
    draining: AtomicBool,
    /// This node runs the cluster's ladder (holds [`LADDER_JOB`]).
    ladder_here: AtomicBool,
    /// One channel per other node, by address, made when first needed (tonic reconnects).
    peers: Mutex<HashMap<String, Channel>>,
    /// Each table's lease as this node holds it, by table id.
    leases: Mutex<HashMap<String, i64>>,
    /// The nodes heard from within a lease, by id, as last looked: a node missing from the
    /// next look is gone (said in the log), and the count is a metric.
    alive: Mutex<std::collections::BTreeSet<String>>,
    /// An adoption is between taking leases in the database and holding them here: the
    /// renewal must not take those leases for strays and let them go (which passed tables
    /// back and forth between the survivors of a kill: 29 adoptions for 10 tables).
    adopting: AtomicBool,
    /// The last look for sharing found this node with clearly more tables than another (it
    /// shares only if the next look does too).
    uneven: AtomicBool,
    /// Adopted tables still being rebuilt, and the rebuilds allowed at once.
    rebuilding: std::sync::atomic::AtomicUsize,
    rebuilds: tokio::sync::Semaphore,
    /// When the last renewal that went through was asked for: past a lease from then, every
    /// lease of this node has run out, and another node may be running its tables.
    renewed: Mutex<tokio::time::Instant>,
}

mod adopting;
mod draining;
mod members;
mod sharing;

/// How often the channels to nodes that left are let go of.
const PRUNE_PEERS_EVERY: Duration = Duration::from_secs(60);

/// Where a call for a table is served.
pub(crate) enum Route {
    Here,
    /// At another node, over this channel.
    There(Channel),
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Cluster {
    pub(crate) fn new(setup: ClusterSetup) -> Cluster {
        Cluster {
            setup,
            draining: AtomicBool::new(false),
            ladder_here: AtomicBool::new(false),
            peers: Mutex::default(),
            leases: Mutex::default(),
            alive: Mutex::default(),
            adopting: AtomicBool::new(false),
            uneven: AtomicBool::new(false),
            rebuilding: std::sync::atomic::AtomicUsize::new(0),
            rebuilds: tokio::sync::Semaphore::new(REBUILDS_AT_ONCE),
            renewed: Mutex::new(tokio::time::Instant::now()),
        }
    }

    pub(crate) fn node(&self) -> &str {
        &self.setup.node
    }

    pub(crate) fn key(&self) -> &str {
        &self.setup.key
    }

    /// The key's hash, as the nodes compare keys in the database (never the key itself).
    fn key_hash(&self) -> String {
        table::proofs::hex(&table::seats::token_hash(&self.setup.key))
    }

    /// The lease a table made here starts with.
    pub(crate) fn first_lease(&self, table: &str) -> Lease {
        self.hold(table, 1);
        Lease { node: self.setup.node.clone(), epoch: 1, millis: millis(self.setup.lease) }
    }

    fn hold(&self, table: &str, epoch: i64) {
        if let Ok(mut leases) = self.leases.lock() {
            leases.insert(table.to_string(), epoch);
        }
    }

    /// Forgets a table's lease (its task ended).
    pub(crate) fn forget(&self, table: &str) {
        if let Ok(mut leases) = self.leases.lock() {
            leases.remove(table);
        }
    }

    fn lease_of(&self, table: &str) -> Option<Lease> {
        let epoch = *self.leases.lock().ok()?.get(table)?;
        Some(Lease { node: self.setup.node.clone(), epoch, millis: millis(self.setup.lease) })
    }

    pub(crate) fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// A channel to the node at `address` (lazily connected; shared by every call to it).
    fn peer(&self, address: &str) -> Result<Channel, Refusal> {
        let mut peers = self.peers.lock().map_err(|_| Refusal::internal("peers poisoned"))?;
        if let Some(channel) = peers.get(address) {
            return Ok(channel.clone());
        }
        let endpoint = Endpoint::from_shared(address.to_string())
            .map_err(|e| Refusal::internal(format!("node address {address:?}: {e}")))?
            .connect_timeout(Duration::from_secs(2))
            // A paused or cut-off node is noticed within seconds: the streams relayed to it
            // end, and their clients find the table's next owner.
            .http2_keep_alive_interval(Duration::from_secs(2))
            .keep_alive_timeout(Duration::from_secs(3))
            .keep_alive_while_idle(true);
        let channel = endpoint.connect_lazy();
        peers.insert(address.to_string(), channel.clone());
        Ok(channel)
    }
}

/// Said while a table has no owner (its node died and no other has adopted it yet, or it is
/// being rebuilt): clients try again, as they do for a restarting server.
pub(crate) fn changing_hands() -> Refusal {
    refused(
        "table_moved",
        Refusal::unavailable("the table is moving to another node of the cluster: try again in a moment"),
    )
}

impl Dudo {
    /// Joins the cluster: starts renewing, adopting and saying this node is alive.
    pub fn with_cluster(mut self, setup: ClusterSetup) -> Dudo {
        self.cluster = Some(Arc::new(Cluster::new(setup)));
        self
    }

    pub(crate) fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }

    /// Where a call for `table` (an id, a code or a link) is served. `forwarded`: the call
    /// came from another node, and is served here whatever this node holds.
    pub(crate) async fn route(&self, table: &str, forwarded: bool) -> Result<Route, Refusal> {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return Ok(Route::Here) };
        if self.find(table).is_ok() {
            return Ok(Route::Here);
        }
        if forwarded {
            // Sent here as its owner, but let go of since (drained, or lost): the caller
            // tries again and finds its new owner.
            return Err(changing_hands());
        }
        let key = super::table_key(table);
        let owner = store.owner_of(key).await.map_err(|e| Refusal::unavailable(e.to_string()))?;
        match owner {
            // No such open table anywhere: `find` says so, as on one node.
            None => Ok(Route::Here),
            Some(owner) => match owner.node {
                Some(node) if node.id != cluster.node() => {
                    metrics::counter!("dudo_forwarded_calls_total").increment(1);
                    Ok(Route::There(cluster.peer(&node.address)?))
                }
                // Ours but not here yet (being rebuilt), or no one's for a moment.
                _ => Err(changing_hands()),
            },
        }
    }

    /// Whether this node runs the ladder and the tournaments: alone, or holding the
    /// cluster's job.
    pub(crate) fn runs_ladder_here(&self) -> bool {
        self.cluster.as_ref().is_none_or(|c| c.ladder_here.load(Ordering::Relaxed))
    }

    /// Where a ladder entry is served: at the node running the cluster's matchmaker.
    pub(crate) async fn route_ladder(&self, forwarded: bool) -> Result<Route, Refusal> {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return Ok(Route::Here) };
        if forwarded || cluster.ladder_here.load(Ordering::Relaxed) {
            return Ok(Route::Here);
        }
        match store.job_holder(LADDER_JOB).await.map_err(|e| Refusal::unavailable(e.to_string()))? {
            Some(node) if node.id != cluster.node() => {
                metrics::counter!("dudo_forwarded_calls_total").increment(1);
                Ok(Route::There(cluster.peer(&node.address)?))
            }
            _ => Err(refused(
                "ladder_moving",
                Refusal::unavailable(
                    "the ladder is moving to another node of the cluster: enter again in a moment",
                ),
            )),
        }
    }

    /// The node a new table should be made at: the one holding the fewest, if that is not
    /// this one (a tie stays here). A creation is sent on once at most (a forwarded one is
    /// made where it lands), so nodes never pass one back and forth. The others' counts are
    /// as of their last renewal, a fifth of a lease ago at most.
    pub(crate) async fn placement(&self, forwarded: bool) -> Option<Channel> {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return None };
        if forwarded {
            return None;
        }
        let here = i64::try_from(self.table_count()).unwrap_or(i64::MAX);
        let alive = millis(cluster.setup.lease);
        let nodes = store.nodes(alive).await.ok()?;
        let fewest =
            nodes.into_iter().filter(|n| !n.draining && n.id != cluster.node()).min_by_key(|n| n.tables)?;
        if fewest.tables < here || cluster.draining() {
            metrics::counter!("dudo_forwarded_calls_total").increment(1);
            return cluster.peer(&fewest.address).ok();
        }
        None
    }

    /// Channels to every other live node (none outside a cluster).
    pub(crate) async fn other_nodes(&self) -> Vec<Channel> {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return Vec::new() };
        let nodes = store.nodes(millis(cluster.setup.lease)).await.unwrap_or_default();
        nodes
            .iter()
            .filter(|n| n.id != cluster.node())
            .filter_map(|n| cluster.peer(&n.address).ok())
            .collect()
    }

    pub(crate) fn table_count(&self) -> usize {
        self.registry.lock().map_or(0, |r| r.tables.len())
    }

    /// The lease a new table of this node starts under (none outside a cluster).
    pub(crate) fn first_lease(&self, table: &str) -> Option<Lease> {
        self.cluster.as_ref().map(|c| c.first_lease(table))
    }

    /// Joins the cluster, before the node serves anyone: refused if a running node has this
    /// node's id (one that ran under it and died is waited for, a lease's length at most) or
    /// another key. Then every table an earlier run of this node held is let go (no process
    /// holds them now; the others adopt them at once), and the node says it is here.
    pub(crate) async fn join_cluster(&self) -> Result<(), JoinError> {
        let (Some(cluster), Some(store)) = (&self.cluster, &self.store) else { return Ok(()) };
        let lease = millis(cluster.setup.lease);
        let hash = cluster.key_hash();
        let until = tokio::time::Instant::now() + cluster.setup.lease * 2;
        // Held before this node's row names it: the others never see a key nobody holds.
        store.keep_alive().await?;
        loop {
            let live = store.live_keys(lease).await?;
            let others: Vec<&str> = live
                .iter()
                .filter(|(id, key)| id != cluster.node() && *key != hash)
                .map(|(id, _)| id.as_str())
                .collect();
            if !others.is_empty() {
                return Err(JoinError::OtherKey { nodes: others.join(", ") });
            }
            let me = Node {
                id: cluster.node().to_string(),
                address: cluster.setup.address.clone(),
                tables: 0,
                draining: false,
            };
            if store.claim_node(&me, &hash, lease).await? {
                break;
            }
            // A running process holds the id's alive lock: refused now, not after waiting.
            if tokio::time::Instant::now() >= until || store.holds_its_lock(cluster.node()).await? {
                return Err(JoinError::IdInUse { node: cluster.node().to_string(), lease_millis: lease });
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let released = store.release_all(cluster.node()).await?;
        if released > 0 {
            tracing::info!(tables = released, "let go of the tables an earlier run of this node held");
        }
        self.renew(cluster).await;
        Ok(())
    }

    /// Every table here told to let go at once, its streams sent on to wherever it goes
    /// next (each in a task of its own: a table in the middle of a save answers when the
    /// save gives up, inside half a lease).
    fn let_go_of_every_table(&self, why: &str) {
        let handles: Vec<(String, super::TableHandle)> = match self.registry.lock() {
            Ok(registry) => registry.tables.iter().map(|(id, h)| (id.clone(), h.clone())).collect(),
            Err(_) => return,
        };
        if handles.is_empty() {
            return;
        }
        tracing::warn!(tables = handles.len(), "{why}; letting go of every table");
        for (id, handle) in handles {
            metrics::counter!("dudo_tables_lost_total").increment(1);
            let dudo = self.clone();
            tokio::spawn(async move {
                if dudo.ask(&handle, |reply| Command::Release { reply }).await.is_err() {
                    tracing::debug!(table = %id, "had ended already");
                }
            });
        }
    }

    /// Keeps this node's place in the cluster until the process ends: says it is alive,
    /// renews its leases (letting go of tables another node took), and adopts tables whose
    /// leases ran out, or whose node died. Renewal comes at a fifth of the lease; the look
    /// for dead nodes and tables to adopt every [`LOOK_EVERY`].
    pub fn run_cluster(&self) {
        let Some(cluster) = self.cluster.clone() else { return };
        // Exported from the start (at 0), so that an alert on their rise sees the first one.
        for counter in [
            "dudo_adoptions_total",
            "dudo_nodes_buried_total",
            "dudo_tables_lost_total",
            "dudo_tables_shared_total",
            "dudo_lease_renew_failures_total",
            "dudo_forwarded_calls_total",
            "dudo_node_port_refused_total",
            "dudo_records_kept_whole_total",
        ] {
            metrics::counter!(counter).increment(0);
        }
        // Two tasks: adopting a table (reading and replaying its journal) never delays the
        // renewals that keep every other table of this node its own.
        let (dudo, renewing) = (self.clone(), Arc::clone(&cluster));
        tokio::spawn(async move {
            let mut renew = tokio::time::interval((renewing.setup.lease / 5).max(Duration::from_millis(100)));
            renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut pruned = tokio::time::Instant::now();
            let mut shared = tokio::time::Instant::now();
            loop {
                renew.tick().await;
                dudo.renew(&renewing).await;
                if shared.elapsed() >= sharing::SHARE_EVERY {
                    // Off the renewals' task: a hand-over waits for its table to end.
                    let (sharing, cluster) = (dudo.clone(), Arc::clone(&renewing));
                    tokio::spawn(async move { sharing.share_tables(&cluster).await });
                    shared = tokio::time::Instant::now();
                }
                if pruned.elapsed() >= PRUNE_PEERS_EVERY {
                    dudo.prune_peers(&renewing).await;
                    pruned = tokio::time::Instant::now();
                }
                if dudo.stopping.is_stopping() && renewing.draining() {
                    break;
                }
            }
        });
        let dudo = self.clone();
        tokio::spawn(async move {
            let mut adopt = tokio::time::interval(LOOK_EVERY);
            adopt.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while !cluster.draining() && !dudo.stopping.is_stopping() {
                adopt.tick().await;
                dudo.bury_the_dead(&cluster).await;
                // A full look means more are waiting (a node drained or died with many):
                // look again at once rather than at the next tick.
                for _ in 0..16 {
                    if dudo.adopt(&cluster).await < ADOPT_AT_ONCE as usize {
                        break;
                    }
                }
            }
        });
    }

    async fn renew(&self, cluster: &Cluster) {
        let Some(store) = &self.store else { return };
        let asked = tokio::time::Instant::now();
        if let Err(e) = store.keep_alive().await {
            tracing::warn!(error = %e, "could not hold this node's alive lock (the others may take it for dead)");
        }
        if store.alive_session_lost() {
            self.let_go_of_every_table(
                "this node's session with the database ended: the others may adopt its tables now",
            );
        }
        let node = Node {
            id: cluster.node().to_string(),
            address: cluster.setup.address.clone(),
            tables: i64::try_from(self.table_count()).unwrap_or(i64::MAX),
            draining: cluster.draining(),
        };
        if let Err(e) = store.heartbeat(&node, &cluster.key_hash()).await {
            metrics::counter!("dudo_lease_renew_failures_total").increment(1);
            tracing::warn!(error = %e, "could not tell the cluster this node is alive");
        }
        // The addresses each node's limits refused lately, told and heard: a player whose
        // reconnects one node refuses is not taken out by the node that holds their table.
        let untold: Vec<String> = self.refused.untold().iter().map(ToString::to_string).collect();
        let most = dudo_store::cluster::MOST_REFUSED_SHARED;
        let away: Vec<String> = self.refused.asked(most).iter().map(ToString::to_string).collect();
        let lately = i64::try_from(crate::address::REFUSED_LATELY.as_millis()).unwrap_or(i64::MAX);
        match store.share_refused(&untold, lately, &away).await {
            Ok(heard) => {
                for (address, left) in heard {
                    if let Ok(ip) = address.parse::<std::net::IpAddr>() {
                        let left = Duration::from_millis(u64::try_from(left).unwrap_or(0));
                        self.refused.heard(ip, left);
                    }
                }
            }
            Err(e) => tracing::debug!(error = %e, "could not share the addresses refused lately"),
        }
        // The ladder's matchmaker runs where this job is held; a draining node lets it go.
        let ladder = !cluster.draining()
            && self.ladder.is_some()
            && store.hold_job(LADDER_JOB, cluster.node(), millis(cluster.setup.lease)).await.unwrap_or(false);
        if cluster.ladder_here.swap(ladder, Ordering::Relaxed) != ladder {
            tracing::info!(here = ladder, "the cluster's ladder");
        }
        metrics::gauge!("dudo_ladder_here").set(if ladder { 1.0 } else { 0.0 });
        let held = match store.renew(cluster.node(), millis(cluster.setup.lease)).await {
            Ok(held) => {
                if let Ok(mut renewed) = cluster.renewed.lock() {
                    *renewed = asked;
                }
                held.into_iter().collect::<HashMap<_, _>>()
            }
            Err(e) => {
                metrics::counter!("dudo_lease_renew_failures_total").increment(1);
                tracing::warn!(error = %e, "could not renew this node's leases");
                let ran_out = cluster.renewed.lock().is_ok_and(|r| r.elapsed() >= cluster.setup.lease);
                if ran_out {
                    self.let_go_of_every_table(
                        "this node's leases ran out unrenewed: another node may hold its tables",
                    );
                }
                return;
            }
        };
        // Leases the database says are this node's but no table here holds (one it could not
        // save or register while the database was away): let go, for another node to adopt.
        // Not while an adoption is taking leases: those are held here the moment it has them.
        let adopting = cluster.adopting.load(Ordering::Acquire);
        let strays: Vec<(String, i64)> = match cluster.leases.lock() {
            Ok(_) if adopting => Vec::new(),
            Ok(leases) => held
                .iter()
                .filter(|(id, _)| !leases.contains_key(*id))
                .map(|(id, e)| (id.clone(), *e))
                .collect(),
            Err(_) => Vec::new(),
        };
        for (id, epoch) in strays {
            let lease = Lease { node: cluster.node().to_string(), epoch, millis: 0 };
            if store.release(&id, &lease, None).await.is_ok() {
                tracing::warn!(table = %id, "held no table behind this node's lease; let it go");
            }
        }
        // Tables another node took while this one could not renew (it was paused, or cut
        // off): their streams are sent to the new owner at once, not at the next write.
        let unrenewed: Vec<(String, bool, super::TableHandle)> = {
            let Ok(leases) = cluster.leases.lock() else { return };
            let Ok(registry) = self.registry.lock() else { return };
            leases
                .iter()
                .filter(|(id, epoch)| held.get(*id) != Some(epoch))
                .filter_map(|(id, _)| {
                    registry.tables.get(id).map(|h| (id.clone(), held.contains_key(id), h.clone()))
                })
                .collect()
        };
        let mut lost = Vec::new();
        for (id, at_other_epoch, handle) in unrenewed {
            // Not renewed at all: a table made since its first write may not be written yet
            // (or it closed); only one another node owns is lost.
            let elsewhere = at_other_epoch
                || match store.owner_of(&id).await {
                    Ok(Some(owner)) => owner.node.is_none_or(|n| n.id != cluster.node()),
                    _ => false,
                };
            if elsewhere {
                lost.push((id, handle));
            }
        }
        for (id, handle) in lost {
            tracing::warn!(table = %id, "another node holds the table now; letting it go");
            metrics::counter!("dudo_tables_lost_total").increment(1);
            let _ = self.ask(&handle, |reply| Command::Release { reply }).await;
        }
        metrics::gauge!("dudo_tables_owned").set(held.len() as f64);
        // After the renewal, which nothing may delay.
        self.look_at_the_nodes(cluster, store).await;
    }
}
