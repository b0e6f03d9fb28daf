//! The cluster: three `dudo-server --cluster` processes on one PostgreSQL database (a schema
//! of each test's own), behind one address (a TCP balancer, as a Kubernetes Service stands
//! before the nodes). The recovery test's games (seeded, each seat's moves following from
//! what it sees) are played through the balancer while a node is killed (`kill -9`), paused
//! past its lease (SIGSTOP), or every node is restarted in turn; every game must finish
//! event for event as the uninterrupted run does, recorded once. Without PostgreSQL they say
//! so and skip, unless `DUDO_REQUIRE_POSTGRES=1` (CI).

use std::time::Duration;

use dudo_client::Client;
use dudo_store::{Access, Store};
use dudo_tests::{ServerProcess, binary, start_server};

use crate::recovery::{SEEDS, same_games, start_tables, uninterrupted, until_round};

const KEY: &str = "the-test-clusters-own-key";
/// Short, so that a dead node's tables are adopted within the test's patience.
const LEASE_MILLIS: &str = "2000";

/// A schema of its own on the test PostgreSQL, whose URL the nodes take (none: skipped); it is
/// dropped with the value.
pub(crate) async fn database(test: &str) -> Option<dudo_store::scratch::Scratch> {
    let base = std::env::var("DUDO_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string());
    let schema = format!("dudo_cluster_{test}_{}", std::process::id());
    match tokio::time::timeout(Duration::from_secs(5), dudo_tests::fresh_schema(&base, &schema)).await {
        Ok(Ok(schema)) => Some(schema),
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
pub(crate) struct Node {
    pub(crate) id: String,
    pub(crate) listen: String,
    /// The database URL it is given (the cluster's, or one through a proxy the test cuts).
    db: String,
    pub(crate) process: Option<ServerProcess>,
}

impl Node {
    /// Whether its process still runs, for a failure's message.
    fn state(&mut self) -> String {
        let state = match self.process.as_mut().map(|p| p.child.try_wait()) {
            None => "not started".to_string(),
            Some(Ok(None)) => "running".to_string(),
            Some(Ok(Some(status))) => format!("stopped: {status}"),
            Some(Err(e)) => format!("unknown: {e}"),
        };
        format!("{} at {} {state}", self.id, self.listen)
    }
}

/// Three nodes on one database, and the balancer before them.
pub(crate) struct Cluster {
    /// Flags every node starts with besides the cluster's own.
    extra: Vec<String>,
    pub(crate) nodes: Vec<Node>,
    /// What clients connect to.
    pub(crate) addr: String,
    /// Reads who owns what, as the nodes see it.
    pub(crate) store: Store,
}

impl Cluster {
    async fn start(db: String, size: usize) -> Cluster {
        Cluster::start_with(db, size, &[]).await
    }

    /// [`Cluster::start`], every node with `extra` flags too.
    pub(crate) async fn start_with(db: String, size: usize, extra: &[&str]) -> Cluster {
        Cluster::start_on(db.clone(), vec![db; size], extra).await
    }

    /// [`Cluster::start_with`], each node on the database URL `dbs` gives it (the first
    /// node's is the one the test reads).
    pub(crate) async fn start_on(db: String, dbs: Vec<String>, extra: &[&str]) -> Cluster {
        let size = dbs.len();
        let mut nodes = Vec::new();
        for (i, db) in dbs.into_iter().enumerate() {
            nodes.push(Node {
                id: format!("node-{i}"),
                listen: dudo_tests::fixed_address(),
                db,
                process: None,
            });
        }
        let addr = dudo_tests::balancer(nodes.iter().map(|n| n.listen.clone()).collect()).await.unwrap();
        let mut cluster = Cluster {
            store: Store::open_as(&db, Access::Reader).await.unwrap_or_else(|_| panic!()),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            nodes,
            addr,
        };
        for i in 0..size {
            cluster.start_node(i);
        }
        cluster.joined(size).await;
        cluster
    }

    /// Waits until `size` nodes have joined (said they are here).
    pub(crate) async fn joined(&mut self, size: usize) {
        let cluster = self;
        let until = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            let joined =
                cluster.store.nodes(60_000).await.map(|n| n.into_iter().map(|n| n.id).collect::<Vec<_>>());
            if joined.as_ref().is_ok_and(|n| n.len() >= size) {
                break;
            }
            if std::time::Instant::now() > until {
                let running: Vec<String> = cluster.nodes.iter_mut().map(Node::state).collect();
                panic!("every node joined the cluster within 20 s: joined {joined:?}; nodes {running:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub(crate) fn start_node(&mut self, i: usize) {
        let node = &mut self.nodes[i];
        let mut args = vec![
            "--cluster",
            "--db",
            &node.db,
            "--listen",
            &node.listen,
            "--node-id",
            &node.id,
            "--cluster-key",
            KEY,
        ];
        if !self.extra.iter().any(|a| a == "--lease-millis") {
            args.extend(["--lease-millis", LEASE_MILLIS]);
        }
        // `BALANCER` in a flag stands for the balancer's address (known once it listens).
        let public = format!("http://{}", self.addr);
        args.extend(self.extra.iter().map(|a| if a == "BALANCER" { public.as_str() } else { a.as_str() }));
        node.process = Some(start_server(&binary("dudo-server"), &args).unwrap());
    }

    /// The node holding `table` now (none while no node does).
    pub(crate) async fn owner(&self, table: &str) -> Option<usize> {
        let owner = self.store.owner_of(table).await.unwrap()?;
        let id = owner.node?.id;
        self.nodes.iter().position(|n| n.id == id)
    }

    pub(crate) fn signal(&self, i: usize, signal: &str) {
        let pid = self.nodes[i].process.as_ref().unwrap().child.id().to_string();
        let status = std::process::Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(status.success(), "kill {signal} {pid}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_killed_mid_round_leaves_its_games_to_the_others_and_each_finishes_as_if_nothing_happened() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("killed").await else { return };
    let db = schema.url().to_string();
    let expected = uninterrupted().await;
    let mut cluster = Cluster::start(db, 3).await;
    let players = start_tables(&cluster.addr).await;
    let watched = players[SEEDS.len() - 1].0.clone();
    until_round(&cluster.addr, &watched, 2).await;
    let victim = cluster.owner(&watched).await.expect("the watched table has an owner");
    let held: Vec<(String, i64)> = {
        let mut held = Vec::new();
        for (table, _) in &players {
            if cluster.owner(table).await == Some(victim) {
                let epoch = cluster.store.owner_of(table).await.unwrap().unwrap().epoch;
                held.push((table.clone(), epoch));
            }
        }
        held
    };
    cluster.signal(victim, "-KILL");
    cluster.nodes[victim].process.take().unwrap().child.wait().unwrap();
    same_games(&cluster.addr, players, &expected, "after kill -9").await;
    for (table, epoch) in held {
        let owner = cluster.owner(&table).await;
        assert!(owner.is_some() && owner != Some(victim), "{table} was adopted by a live node: {owner:?}");
        // Adopted once: not passed back and forth between the survivors.
        let now = cluster.store.owner_of(&table).await.unwrap().unwrap().epoch;
        assert_eq!(now, epoch + 1, "{table}: one adoption, not {}", now - epoch);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_paused_past_its_lease_loses_its_tables_and_writes_nothing_into_them_when_it_wakes() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("paused").await else { return };
    let db = schema.url().to_string();
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
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("rolling").await else { return };
    let db = schema.url().to_string();
    let expected = uninterrupted().await;
    let mut cluster = Cluster::start(db, 3).await;
    let players = start_tables(&cluster.addr).await;
    until_round(&cluster.addr, &players[0].0, 2).await;
    for i in 0..cluster.nodes.len() {
        // SIGTERM: the node drains (hands every table over) and stops; then it comes back.
        cluster.signal(i, "-TERM");
        let mut process = cluster.nodes[i].process.take().unwrap();
        let until = std::time::Instant::now() + Duration::from_secs(15);
        let stopped = loop {
            if let Some(status) = process.child.try_wait().unwrap() {
                break status;
            }
            assert!(std::time::Instant::now() < until, "node {i} stops within 15 s of SIGTERM");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(stopped.success(), "node {i} stopped cleanly after draining: {stopped}");
        cluster.start_node(i);
    }
    same_games(&cluster.addr, players, &expected, "after a rolling restart").await;
}

/// 200 tables, each made at one node, its seats played by the SDK (through the client
/// library) connected to other nodes, a few by the Python example bot at yet another node,
/// the rest by built-in bots: every game finishes and is recorded once, whichever node held it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_tables_made_and_played_through_any_node_all_finish() {
    const TABLES: usize = 200;
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("many").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start(db, 3).await;
    let at = |i: usize| cluster.nodes[i % cluster.nodes.len()].listen.clone();
    let mut clients = Vec::new();
    for i in 0..cluster.nodes.len() {
        clients.push(Client::connect(&at(i)).await.unwrap());
    }
    let python = dudo_tests::python();
    let mut players = Vec::new();
    let mut pythons = Vec::new();
    for t in 0..TABLES {
        let maker = &clients[t % 3];
        let key = maker
            .create(dudo_client::dudo_proto::v1::CreateTableRequest {
                preset: "perudo-jonti".into(),
                name: "Sam".into(),
                seats: 3,
                seed: Some(t as u64),
                settings: vec![dudo_client::dudo_proto::v1::Setting {
                    path: "dice.start".into(),
                    value: "2".into(),
                }],
                ..Default::default()
            })
            .await
            .unwrap();
        // Every tenth table's last seat is a second person, at a third node; three tables'
        // are the Python example bot's; the others, a built-in bot.
        let second = if t % 10 == 0 {
            let joined = clients[(t + 2) % 3].join(&key.table, "Pat").await.unwrap();
            Some(joined)
        } else if t < 3 && python.is_ok() {
            let script = dudo_tests::root().join("bot-sdk/examples/python/bot.py");
            let child = std::process::Command::new(python.as_ref().unwrap())
                .arg(script)
                .args([&at(t + 2), &key.table, "Pyro"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            pythons.push(child);
            // Seated before the start.
            let until = std::time::Instant::now() + Duration::from_secs(30);
            while maker.table(&key.table).await.unwrap().players.len() < 2 {
                assert!(std::time::Instant::now() < until, "the Python bot took its seat");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            None
        } else {
            maker.add_bot(&key, "odds").await.unwrap();
            None
        };
        maker.add_bot(&key, "random").await.unwrap();
        maker.start(&key).await.unwrap();
        // The creator's seat, played through the next node.
        let client = clients[(t + 1) % 3].clone();
        players.push(tokio::spawn(async move {
            dudo_bot::play(&mut crate::recovery::Steady(t as u64), &client, &key).await.unwrap()
        }));
        if let Some(second) = second {
            let client = clients[(t + 2) % 3].clone();
            players.push(tokio::spawn(async move {
                dudo_bot::play(&mut crate::recovery::Steady(t as u64 + 1000), &client, &second).await.unwrap()
            }));
        }
    }
    if let Err(why) = &python {
        dudo_tests::skipped("cluster::two_hundred_tables…: the Python bots", why);
    }
    for player in players {
        tokio::time::timeout(Duration::from_secs(180), player).await.expect("every game finished").unwrap();
    }
    for child in pythons {
        let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await.unwrap().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("Pyro: game over, place"),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Recorded once each, and the same list from every node.
    for client in &clients {
        let request = dudo_client::dudo_proto::v1::ListGamesRequest { limit: 1000, ..Default::default() };
        let games = client.games(request).await.unwrap();
        assert_eq!(games.len(), TABLES, "every game recorded once");
    }
    // The tables spread over the nodes (each made where fewest were).
    let mut held = [0usize; 3];
    for t in cluster.store.open_tables().await.unwrap() {
        if let Some(i) = cluster.owner(&t.id).await {
            held[i] += 1;
        }
    }
    assert!(held.iter().all(|&n| n >= TABLES / 6), "tables spread over the nodes: {held:?}");
}

/// A second process under a running node's id, or with another key, is refused at start
/// with the reason (two processes under one id would renew each other's leases for ever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_with_a_running_nodes_id_or_another_key_is_refused_at_start() {
    // A long lease, so that waiting it out cannot pass for a slow start: the first start of a
    // freshly built server took 6 s on this machine, more than the other tests' 2 s lease.
    const LONG_LEASE: &str = "20000";
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("refused").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start_with(db.clone(), 1, &["--lease-millis", LONG_LEASE]).await;
    let start = |id: &str, key: &str| {
        let (db, id, key) = (db.clone(), id.to_string(), key.to_string());
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(binary("dudo-server"))
                .args(["--cluster", "--db", &db, "--listen", "127.0.0.1:0", "--node-id", &id])
                .args(["--cluster-key", &key, "--lease-millis", LONG_LEASE])
                .output()
                .unwrap()
        })
    };
    let within = |started| tokio::time::timeout(Duration::from_secs(30), started);
    let asked = std::time::Instant::now();
    let twin = within(start(&cluster.nodes[0].id, KEY)).await.expect("refused within 30 s").unwrap();
    let said = String::from_utf8_lossy(&twin.stderr);
    assert!(!twin.status.success() && said.contains("is in use by a running node"), "{said}");
    // At once (the running node holds the id's alive lock), not after waiting out its lease.
    assert!(asked.elapsed() < Duration::from_secs(10), "refused in {:?}: {said}", asked.elapsed());
    // Refused before the "listening on" line a script waits for: it never sees one, nor the
    // log's line.
    assert!(!String::from_utf8_lossy(&twin.stdout).contains("listening on"), "{:?}", twin.stdout);
    assert!(!said.contains("dudo-server listening"), "{said}");
    let stranger =
        within(start("node-9", "another-key-of-enough-length")).await.expect("refused within 30 s").unwrap();
    let said = String::from_utf8_lossy(&stranger.stderr);
    assert!(!stranger.status.success() && said.contains("cluster key is not the one"), "{said}");
    assert!(!String::from_utf8_lossy(&stranger.stdout).contains("listening on"));
}

/// Tournaments in a cluster: every node answers `Tournaments` calls (made, entered and
/// cancelled through the node that does not run them); a bot check holds its account at
/// every node; and the node running a tournament killed (-9) with every game in play leaves
/// each game to the node that adopts its table, where it is carried on with the same seats
/// and tokens, once, and the tournament finishes with a record a game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournaments_are_served_at_every_node_and_carried_on_when_their_node_dies() {
    use crate::tournaments_hold::{fibbing, play_out, seats_told};
    use dudo_proto::v1 as pb;
    const ADMIN: &str = "cluster-tournament-admin";
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("tournaments").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start_with(db, 2, &["--admin-token", ADMIN, "--tournaments", "anyone"]).await;
    // Which node runs the tournaments (the ladder's job), and which does not.
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let director = loop {
        if let Ok(Some(node)) = cluster.store.job_holder("ladder").await {
            break cluster.nodes.iter().position(|n| n.id == node.id).unwrap();
        }
        assert!(std::time::Instant::now() < until, "a node took the ladder's job");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let other = 1 - director;
    let at_other = Client::connect(&cluster.nodes[other].listen).await.unwrap();
    let admin_other = at_other.clone().with_account(Some(ADMIN.into()));
    // Made and cancelled through the node that does not run them.
    let t = admin_other
        .create_tournament(fibbing("at the other node", 1, Duration::from_secs(600)))
        .await
        .unwrap();
    let cancelled = admin_other.cancel_tournament(&t.id).await.unwrap();
    assert_eq!(cancelled.state, pb::TournamentState::Cancelled as i32);
    // One bot check an account at a time, whichever node each is asked at.
    let token = at_other.register("cluster-checker", true, "test").await.unwrap().token.unwrap().token;
    let at_director = Client::connect(&cluster.nodes[director].listen).await.unwrap();
    let first = at_director.clone().with_account(Some(token.clone())).check_bot("").await;
    assert!(first.is_ok(), "{:?}", first.err());
    let second = at_other.clone().with_account(Some(token)).check_bot("").await;
    let refused = second.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(refused.contains("running already"), "{refused}");
    drop(first);
    // A tournament whose games all wait on their entrants (a long clock), entered through
    // the balancer.
    let client = Client::connect(&cluster.addr).await.unwrap();
    let mut accounts = Vec::new();
    for name in ["cl-ana", "cl-ben"] {
        let token = client.register(name, true, "test").await.unwrap().token.unwrap().token;
        accounts.push(client.clone().with_account(Some(token)));
    }
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let t = admin
        .create_tournament(pb::CreateTournamentRequest {
            house_bots: vec!["odds".into()],
            move_millis: 120_000,
            ..fibbing("killed", 1, Duration::from_secs(2))
        })
        .await
        .unwrap();
    let ((ana, _a), (ben, _b)) =
        tokio::join!(seats_told(&accounts[0], &t.id, 3), seats_told(&accounts[1], &t.id, 3));
    cluster.signal(director, "-9");
    // The other node takes the tournaments and the tables on: the entrants, back, are told
    // the same seats and tokens.
    let ((ana_again, _c), (ben_again, _d)) =
        tokio::join!(seats_told(&accounts[0], &t.id, 3), seats_told(&accounts[1], &t.id, 3));
    assert_eq!((&ana, &ben), (&ana_again, &ben_again));
    let plays: Vec<_> =
        ana.into_iter().chain(ben).map(|told| tokio::spawn(play_out(cluster.addr.clone(), told))).collect();
    for play in plays {
        play.await.unwrap();
    }
    let until = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let now = admin.tournament(&t.id).await.unwrap();
        if now.state == pb::TournamentState::Finished as i32 {
            assert_eq!((now.finished, now.games), (3, 3));
            break;
        }
        assert!(std::time::Instant::now() < until, "not finished: {now:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let games = admin.tournament_games(&t.id, None, 10).await.unwrap();
    for g in games {
        client.replay(&g.game).await.unwrap();
    }
    let records = client.games(pb::ListGamesRequest { limit: 100, ..Default::default() }).await.unwrap();
    assert_eq!(records.len(), 3, "one record a game: {records:?}");
}

/// The node port holds to the public port's rules at a connection's opening: a few at once
/// from one address, and one that sends nothing is closed within the opening time (5 s), so
/// silent connections cannot use up the node's descriptors; the node serves on.
#[tokio::test]
async fn silent_connections_to_the_node_port_are_capped_and_closed() {
    use tokio::io::AsyncReadExt;
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("silent").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start(db, 1).await;
    let nodes = cluster.store.nodes(60_000).await.unwrap();
    let node_port = nodes[0].address.trim_start_matches("http://").to_string();
    let mut silent = Vec::new();
    for _ in 0..48 {
        silent.push(tokio::net::TcpStream::connect(&node_port).await.unwrap());
    }
    let started = std::time::Instant::now();
    let mut closed = 0;
    for s in &mut silent {
        let mut byte = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) = tokio::time::timeout(Duration::from_secs(10), s.read(&mut byte)).await {
            closed += 1;
        }
    }
    assert_eq!(closed, silent.len(), "every silent connection was closed");
    assert!(started.elapsed() < Duration::from_secs(9), "within the opening time: {:?}", started.elapsed());
    // The node still serves.
    let client = dudo_client::Client::connect(&cluster.addr).await.unwrap();
    let request = dudo_proto::v1::CreateTableRequest { name: "Ana".into(), seats: 2, ..Default::default() };
    client.create(request).await.unwrap();
}

/// A new table is made at the node holding the fewest: two made through one node of two,
/// a renewal apart, land one at each.
#[tokio::test]
async fn a_new_table_goes_to_the_node_with_the_fewest() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("placement").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start(db, 2).await;
    let through = Client::connect(&cluster.nodes[0].listen).await.unwrap();
    let request =
        || dudo_proto::v1::CreateTableRequest { name: "Ana".into(), seats: 2, ..Default::default() };
    let first = through.create(request()).await.unwrap();
    // Each node says how many it holds when it renews (a fifth of a lease apart).
    let until = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let counts: Vec<i64> = cluster.store.nodes(60_000).await.unwrap().iter().map(|n| n.tables).collect();
        if counts.iter().sum::<i64>() >= 1 {
            break;
        }
        assert!(std::time::Instant::now() < until, "the nodes never said what they hold: {counts:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let second = through.create(request()).await.unwrap();
    let (a, b) = (cluster.owner(&first.table).await, cluster.owner(&second.table).await);
    assert!(a.is_some() && b.is_some() && a != b, "one table at each node: {a:?} and {b:?}");
}

/// A node that comes back after a kill gets a share of the idle tables the others adopted
/// (waiting rooms move; a game in play never does), and each is still joinable through any
/// node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_comes_back_gets_a_share_of_the_idle_tables() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("sharing").await else { return };
    let db = schema.url().to_string();
    let mut cluster = Cluster::start(db, 3).await;
    let client = Client::connect(&cluster.addr).await.unwrap();
    let mut tables = Vec::new();
    for i in 0..12 {
        let request =
            dudo_proto::v1::CreateTableRequest { name: format!("Ana{i}"), seats: 2, ..Default::default() };
        tables.push(client.create(request).await.unwrap().table);
    }
    cluster.signal(2, "-KILL");
    cluster.nodes[2].process.take().unwrap().child.wait().unwrap();
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while held_by(&cluster, &tables, 0).await + held_by(&cluster, &tables, 1).await < 12 {
        assert!(std::time::Instant::now() < until, "the survivors adopted every table");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    cluster.start_node(2);
    cluster.joined(3).await;
    // A node shares after two looks 15 s apart find it uneven.
    let until = std::time::Instant::now() + Duration::from_secs(50);
    while held_by(&cluster, &tables, 2).await < 3 {
        let held = held_by(&cluster, &tables, 2).await;
        assert!(std::time::Instant::now() < until, "the node that came back got a share: {held}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // Each is joinable through any node; one still moving says `table_moved`, and is tried
    // again, as every client does.
    for (i, table) in tables.iter().enumerate() {
        let until = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            match client.join(table, &format!("Ben{i}")).await {
                Ok(_) => break,
                Err(e) if e.refusal_code() == Some("table_moved") && std::time::Instant::now() < until => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("{table} joinable after the share: {e}"),
            }
        }
    }
}

/// How many of `tables` node `n` holds.
async fn held_by(cluster: &Cluster, tables: &[String], n: usize) -> usize {
    let mut held = 0;
    for t in tables {
        if cluster.owner(t).await == Some(n) {
            held += 1;
        }
    }
    held
}

/// `dudo` finds its seat at a cluster's table through the cluster's public address (the one
/// the table's link names) whichever node it was taken through, and never sends a seat's
/// token to any other address (a join code is public: a link could name anyone's server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_client_finds_its_seat_through_the_public_address_only() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("anynode").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start_with(db, 2, &["--public-url", "BALANCER"]).await;
    let home = std::env::temp_dir().join(format!("dudo-anynode-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let (a, b) = (&cluster.nodes[0].listen, &cluster.nodes[1].listen);
    let (ok, out) =
        crate::tournaments::dudo(&home, a, &["create", "--detach", "--seats", "3", "--name", "Ana"]);
    assert!(ok, "{out}");
    assert!(out.contains(&format!("Link:      http://{}/t/", cluster.addr)), "the public address: {out}");
    let code =
        out.lines().find_map(|l| l.strip_prefix("Join code: ")).expect("a join code").trim().to_string();
    let (ok, out) =
        crate::tournaments::dudo(&home, &cluster.addr, &["host", "--table", &code, "add-bot", "odds"]);
    assert!(ok, "the host's seat was found through the public address: {out}");
    let (ok, out) = crate::tournaments::dudo(&home, &cluster.addr, &["host", "--table", &code, "who"]);
    assert!(ok && out.contains("Ana") && out.contains("odds"), "{out}");
    // Another node's own address is not the public one: no token goes there.
    let (ok, out) = crate::tournaments::dudo(&home, b, &["host", "--table", &code, "who"]);
    assert!(!ok, "no seat is held through {b}: {out}");
    let _ = std::fs::remove_dir_all(&home);
}

/// A TCP proxy to the test PostgreSQL that can be made to refuse: from `refuse`, every
/// connection through it is cut, and each new one is held answering nothing, as a firewall
/// dropping one node's packets does (the worst case: a refused connection fails at once, an
/// unanswered one waits out whatever patience its caller has).
async fn refusing_proxy(to: String) -> (String, tokio::sync::watch::Sender<bool>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (refuse, refusing) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        let mut unanswered = Vec::new();
        while let Ok((mut inbound, _)) = listener.accept().await {
            if *refusing.borrow() {
                unanswered.push(inbound);
                continue;
            }
            let Ok(mut outbound) = tokio::net::TcpStream::connect(&to).await else { continue };
            let mut refused = refusing.clone();
            tokio::spawn(async move {
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                    _ = refused.wait_for(|r| *r) => {}
                }
            });
        }
    });
    (addr, refuse)
}

/// A node the database stops taking connections from (its sessions ended, new ones refused)
/// is buried by the others and its tables adopted; its own copy of each table must let its
/// players go at once, not after its pool's wait: a stream opened at that node for one of
/// its tables ends well inside a lease (it ran ~28 s with a 30 s pool wait), and every game
/// goes on at its new owner as if nothing had happened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_the_database_refuses_lets_its_tables_players_go_inside_a_lease() {
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("db_refusing").await else { return };
    let db = schema.url().to_string();
    let expected = uninterrupted().await;
    let pg = db.split("://").nth(1).and_then(|rest| rest.split('@').nth(1)).and_then(|h| h.split('/').next());
    let pg = pg.expect("the test database's host and port").to_string();
    let (through, refuse) = refusing_proxy(pg.clone()).await;
    let cluster = Cluster::start_on(db.clone(), vec![db.clone(), db.replacen(&pg, &through, 1)], &[]).await;
    let players = start_tables(&cluster.addr).await;
    let mut theirs = None;
    for (table, _) in &players {
        if cluster.owner(table).await == Some(1) {
            theirs = Some(table.clone());
        }
    }
    let table =
        theirs.expect("a table is held by the node behind the proxy (new tables go to the node with fewest)");
    until_round(&cluster.addr, &table, 2).await;
    let mut play =
        dudo_proto::v1::play_client::PlayClient::connect(format!("http://{}", cluster.nodes[1].listen))
            .await
            .unwrap();
    let mut watch = play
        .watch(dudo_proto::v1::WatchRequest { table: table.clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    assert!(watch.message().await.unwrap().is_some(), "the watch at the table's node began");
    let cut = std::time::Instant::now();
    refuse.send_replace(true);
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match watch.message().await {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => return,
            }
        }
    })
    .await;
    let waited = cut.elapsed();
    assert!(ended.is_ok(), "the refused node's stream ended within 20 s");
    eprintln!("the refused node let its table's stream go {waited:?} after the cut");
    let lease = Duration::from_millis(LEASE_MILLIS.parse().unwrap());
    assert!(waited < lease, "the refused node let its table's stream go in {waited:?}; a lease is {lease:?}");
    // The records are read at the node the database still takes (the other answers
    // UNAVAILABLE for anything it must read, and a client tries again).
    same_games(&cluster.nodes[0].listen, players, &expected, "after the database refused a node").await;
    assert_eq!(
        cluster.owner(&table).await,
        Some(0),
        "the table went on at the node the database still takes"
    );
}

/// A player whose reconnects one node refuses is not taken out by the node that holds their
/// table: the nodes tell each other the addresses their limits refused lately. Here Ben's
/// table is at node 1; at node 0 others behind Ben's address hold every connection it may
/// have (each carrying a seat of their own), and Ben's reconnects there are refused while
/// the clock runs out turn after turn at node 1. (Before, node 1 knew nothing of node 0's
/// refusals, and took Ben out.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_refused_at_one_node_is_not_taken_out_by_the_node_holding_their_table() {
    use crate::shared_address::{
        ben_is_back, bens_game, from, holding_seats, refused_while_his_clock_runs_out,
    };
    use dudo_proto::v1 as pb;
    use dudo_proto::v1::play_client::PlayClient;
    // Dropped last, when the test is done: the schema goes with it.
    let Some(schema) = database("refused_elsewhere").await else { return };
    let db = schema.url().to_string();
    let cluster = Cluster::start_with(db, 2, &["--max-connections-per-ip", "3"]).await;
    let node = |i: usize| format!("http://{}", cluster.nodes[i].listen);
    let shared = "127.0.0.5";
    // Clocks long enough for the word to go round (a heartbeat each, and a table's look each
    // second) before Ben's can run out twice.
    let game =
        bens_game(from(&node(1), "127.0.0.1").await.unwrap(), from(&node(1), shared).await.unwrap(), 1_500)
            .await;
    assert_eq!(cluster.owner(&game.table).await, Some(1), "the table is node 1's");
    // At node 0, every connection Ben's address may have carries someone else's seat.
    let held = holding_seats(&node(0), shared, 3).await;
    let mut spectator = PlayClient::new(from(&node(1), "127.0.0.1").await.unwrap())
        .watch(pb::WatchRequest { table: game.table.clone(), since: None })
        .await
        .unwrap()
        .into_inner();
    // Ben tries to come back through node 0; he comes back at node 1, still in the seat.
    let refused = refused_while_his_clock_runs_out(&node(0), shared, &mut spectator).await;
    ben_is_back(from(&node(1), shared).await.unwrap(), &game, refused).await;
    drop(held);
}
