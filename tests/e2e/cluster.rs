//! The cluster: three `dudo-server --cluster` processes on one PostgreSQL database (a schema
//! of each test's own), behind one address (a TCP balancer, as a Kubernetes Service stands
//! before the nodes). The recovery test's games (seeded, each seat's moves following from
//! what it sees) are played through the balancer while a node is killed (`kill -9`), paused
//! past its lease (SIGSTOP), or every node is restarted in turn; every game must finish
//! event for event as the uninterrupted run does, recorded once. Without PostgreSQL they say
//! so and skip, unless `DUDO_REQUIRE_POSTGRES=1` (CI).

use std::time::Duration;

use dudo_client::Client;
use dudo_rules::EventKind;
use dudo_store::{Access, Store};
use dudo_tests::{ServerProcess, binary, start_server};

use crate::recovery::{SEEDS, commitments_hold, results, start_tables};

const KEY: &str = "the-test-clusters-own-key";
/// Short, so that a dead node's tables are adopted within the test's patience.
const LEASE_MILLIS: &str = "2000";

/// A schema of its own on the test PostgreSQL, as a URL the nodes take (none: skipped).
async fn database(test: &str) -> Option<String> {
    let base = std::env::var("DUDO_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    sqlx::any::install_default_drivers();
    let schema = format!("dudo_cluster_{test}_{}", std::process::id());
    let made = async {
        let pool = sqlx::AnyPool::connect(&base).await?;
        sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).execute(&pool).await?;
        sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&pool).await?;
        pool.close().await;
        Ok::<_, sqlx::Error>(())
    };
    match tokio::time::timeout(Duration::from_secs(5), made).await {
        Ok(Ok(())) => {
            let sep = if base.contains('?') { '&' } else { '?' };
            Some(format!("{base}{sep}options[search_path]={schema}"))
        }
        failed => {
            let why = match failed {
                Ok(Err(e)) => e.to_string(),
                _ => "no answer in 5 s".to_string(),
            };
            assert!(
                std::env::var("DUDO_REQUIRE_POSTGRES").is_err(),
                "PostgreSQL is required (DUDO_REQUIRE_POSTGRES) but {base} failed: {why}"
            );
            dudo_tests::skipped(test, &format!("no PostgreSQL at {base}: {why}"));
            None
        }
    }
}

/// One node: its id and fixed public address (kept across restarts), and its process.
struct Node {
    id: String,
    listen: String,
    process: Option<ServerProcess>,
}

/// Three nodes on one database, and the balancer before them.
struct Cluster {
    db: String,
    nodes: Vec<Node>,
    /// What clients connect to.
    addr: String,
    /// Reads who owns what, as the nodes see it.
    store: Store,
}

impl Cluster {
    async fn start(db: String, size: usize) -> Cluster {
        let mut nodes = Vec::new();
        for i in 0..size {
            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            nodes.push(Node { id: format!("node-{i}"), listen: format!("127.0.0.1:{port}"), process: None });
        }
        let addr = dudo_tests::balancer(nodes.iter().map(|n| n.listen.clone()).collect()).await.unwrap();
        let mut cluster = Cluster { store: Store::open_as(&db, Access::Reader).await.unwrap_or_else(|_| panic!()), db, nodes, addr };
        for i in 0..size {
            cluster.start_node(i);
        }
        cluster
    }

    fn start_node(&mut self, i: usize) {
        let node = &mut self.nodes[i];
        let args = [
            "--cluster",
            "--db",
            &self.db,
            "--listen",
            &node.listen,
            "--node-id",
            &node.id,
            "--cluster-key",
            KEY,
            "--lease-millis",
            LEASE_MILLIS,
        ];
        node.process = Some(start_server(&binary("dudo-server"), &args).unwrap());
    }

    /// The node holding `table` now (none while no node does).
    async fn owner(&self, table: &str) -> Option<usize> {
        let owner = self.store.owner_of(table).await.unwrap()?;
        let id = owner.node?.id;
        self.nodes.iter().position(|n| n.id == id)
    }

    fn signal(&self, i: usize, signal: &str) {
        let pid = self.nodes[i].process.as_ref().unwrap().child.id().to_string();
        let status = std::process::Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(status.success(), "kill {signal} {pid}");
    }
}

/// The uninterrupted run: the same games on one server in this process.
async fn uninterrupted() -> std::collections::HashMap<u64, (Vec<(u64, dudo_rules::Event)>, Vec<u32>)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let calm = listener.local_addr().unwrap().to_string();
    let store = dudo_server::Store::open(":memory:").await.unwrap();
    let setup = dudo_server::Setup { store: Some(store), ..Default::default() };
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    for (_, player) in start_tables(&calm).await {
        tokio::time::timeout(Duration::from_secs(120), player).await.unwrap().unwrap();
    }
    results(&calm).await
}

/// Waits until `table` has begun its `round`th round, as a spectator through the balancer sees.
async fn until_round(addr: &str, table: &str, round: usize) {
    let client = Client::connect(addr).await.unwrap();
    let mut watch = client.watch(table, None);
    let mut rounds = 0;
    while rounds < round {
        match tokio::time::timeout(Duration::from_secs(30), watch.next()).await {
            Ok(Some(Ok(dudo_client::Update::Event { event, .. }))) => {
                if matches!(event.game(), Some(EventKind::RoundStarted { .. })) {
                    rounds += 1;
                }
            }
            Ok(Some(_)) => {}
            other => panic!("the watched table stopped before round {round}: {other:?}"),
        }
    }
}

/// Every game finished through the balancer as the uninterrupted run did, each recorded once,
/// its dice commitments opened by its salts.
async fn same_games(
    addr: &str,
    players: Vec<(String, tokio::task::JoinHandle<dudo_bot::Outcome>)>,
    expected: &std::collections::HashMap<u64, (Vec<(u64, dudo_rules::Event)>, Vec<u32>)>,
    what: &str,
) {
    for (table, player) in players {
        let outcome = tokio::time::timeout(Duration::from_secs(120), player)
            .await
            .unwrap_or_else(|_| panic!("{what}: table {table} did not finish"))
            .unwrap();
        assert!(outcome.dice_checked > 0, "{what}: the SDK checked the dice commitments");
    }
    let got = results(addr).await;
    for seed in SEEDS {
        let (want, got) = (&expected[&seed], &got[&seed]);
        assert_eq!(want.1, got.1, "{what}: seed {seed}: the same standings");
        assert_eq!(want.0, got.0, "{what}: seed {seed}: the same game, event for event");
    }
    let client = Client::connect(addr).await.unwrap();
    for g in client.games(Default::default()).await.unwrap() {
        assert!(commitments_hold(&client.replay(&g.id).await.unwrap()) > 0, "{what}: {}", g.id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_mid_round_leaves_its_games_to_the_others_and_each_finishes_as_if_nothing_happened() {
    let Some(db) = database("killed").await else { return };
    let expected = uninterrupted().await;
    let mut cluster = Cluster::start(db, 3).await;
    let players = start_tables(&cluster.addr).await;
    let watched = players[SEEDS.len() - 1].0.clone();
    until_round(&cluster.addr, &watched, 2).await;
    let victim = cluster.owner(&watched).await.expect("the watched table has an owner");
    let held: Vec<String> = {
        let mut held = Vec::new();
        for (table, _) in &players {
            if cluster.owner(table).await == Some(victim) {
                held.push(table.clone());
            }
        }
        held
    };
    cluster.signal(victim, "-KILL");
    cluster.nodes[victim].process.take().unwrap().child.wait().unwrap();
    same_games(&cluster.addr, players, &expected, "after kill -9").await;
    for table in held {
        let owner = cluster.owner(&table).await;
        assert!(owner.is_some() && owner != Some(victim), "{table} was adopted by a live node: {owner:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_paused_past_its_lease_loses_its_tables_and_writes_nothing_into_them_when_it_wakes() {
    let Some(db) = database("paused").await else { return };
    let expected = uninterrupted().await;
    let cluster = Cluster::start(db, 3).await;
    let players = start_tables(&cluster.addr).await;
    let watched = players[SEEDS.len() - 1].0.clone();
    until_round(&cluster.addr, &watched, 2).await;
    let paused = cluster.owner(&watched).await.expect("the watched table has an owner");
    cluster.signal(paused, "-STOP");
    // Its tables move while it sleeps.
    let moved = tokio::time::timeout(Duration::from_secs(20), async {
        while cluster.owner(&watched).await.is_none_or(|o| o == paused) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    cluster.signal(paused, "-CONT");
    assert!(moved.is_ok(), "the paused node's table was adopted");
    // Woken, it lets go of what it lost; every game goes on at its new owner, with one history.
    same_games(&cluster.addr, players, &expected, "after a pause").await;
    assert_ne!(cluster.owner(&watched).await, Some(paused), "the table stayed with its new owner");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_every_node_loses_and_repeats_nothing() {
    let Some(db) = database("rolling").await else { return };
    let expected = uninterrupted().await;
    let mut cluster = Cluster::start(db, 3).await;
    let players = start_tables(&cluster.addr).await;
    until_round(&cluster.addr, &players[0].0, 2).await;
    for i in 0..cluster.nodes.len() {
        // SIGTERM: the node drains (hands every table over) and stops; then it comes back.
        cluster.signal(i, "-TERM");
        let mut process = cluster.nodes[i].process.take().unwrap();
        let stopped = tokio::task::spawn_blocking(move || process.child.wait()).await.unwrap().unwrap();
        assert!(stopped.success(), "node {i} stopped cleanly after draining: {stopped}");
        cluster.start_node(i);
    }
    same_games(&cluster.addr, players, &expected, "after a rolling restart").await;
}
