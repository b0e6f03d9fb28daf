//! Crash recovery and records: `kill -9` the server mid-round with several tables in play,
//! restart it on the same database, and every game finishes exactly as an uninterrupted run
//! with the same seeds does; a bad database stops the server at start with a clear message.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Duration;

use dudo_bot::{Bot, Turn};
use dudo_client::Client;
use dudo_client::dudo_proto::TableEvent;
use dudo_client::dudo_proto::v1 as pb;
use dudo_rules::{Action, Event, EventKind};

/// A bot whose every decision follows from what it sees, not from a generator carried
/// along: asked the same question again after a reconnect, it answers the same, as a
/// person replaying their turn would.
pub(crate) struct Steady(pub(crate) u64);

impl Bot for Steady {
    fn act(&mut self, turn: &Turn) -> Action {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        format!("{:?}", turn.view).hash(&mut h);
        let mut brain = dudo_rules::bots::by_name("odds", self.0 ^ h.finish()).unwrap();
        brain.act(turn.rules, turn.view, turn.legal)
    }
}

/// Each seed's finished game: its events (without commitments and salts) and its standings.
pub(crate) type Results = HashMap<u64, (Vec<(u64, Event)>, Vec<u32>)>;

pub(crate) const SEEDS: [u64; 4] = [11, 12, 13, 14];

// perudo-jonti: nobody may call out of turn (Jonti is on one's turn), so no bot's call races a
// person's: each run plays each table's moves in one order, whatever the timing.

/// Seats the tables (the creator's seat played by a [`Steady`] bot through the SDK, three
/// built-in bots), starts them, and returns the SDK players' tasks by seed.
pub(crate) async fn start_tables(addr: &str) -> Vec<(String, tokio::task::JoinHandle<dudo_bot::Outcome>)> {
    let client = Client::connect(addr).await.unwrap();
    let mut players = Vec::new();
    for seed in SEEDS {
        let key = client
            .create(pb::CreateTableRequest {
                preset: "perudo-jonti".into(),
                name: "Steady".into(),
                seats: 4,
                seed: Some(seed),
                bot_think_millis: 40,
                ..Default::default()
            })
            .await
            .unwrap();
        for bot in ["odds", "reader", "random"] {
            client.add_bot(&key, bot).await.unwrap();
        }
        client.start(&key).await.unwrap();
        let client = client.clone();
        players.push((
            key.table.clone(),
            tokio::spawn(async move { dudo_bot::play(&mut Steady(seed), &client, &key).await.unwrap() }),
        ));
    }
    players
}

/// Each seed's finished game as events, without the dice commitments and their salts (those
/// are drawn from each table's own secret), and its standings.
pub(crate) async fn results(addr: &str) -> Results {
    let client = Client::connect(addr).await.unwrap();
    let games = client.games(pb::ListGamesRequest::default()).await.unwrap();
    assert_eq!(games.len(), SEEDS.len(), "every game is recorded once: {games:?}");
    let mut out = HashMap::new();
    for g in games {
        let replay = client.replay(&g.id).await.unwrap();
        let events: Vec<(u64, Event)> = replay
            .events
            .iter()
            .map(|e| dudo_proto::convert::event_from_wire(e).unwrap())
            .filter_map(|(seq, e)| match e {
                TableEvent::Game(e) => Some((seq, e)),
                _ => None,
            })
            .collect();
        let places: Vec<u32> = g.players.iter().map(|p| p.place).collect();
        // Which table it was: the seed that deals its first dice.
        let seed = *SEEDS.iter().find(|&&s| first_roll_matches(&events, s)).unwrap();
        out.insert(seed, (events, places));
    }
    out
}

/// Whether `events` start as a game dealt from `seed` does.
fn first_roll_matches(events: &[(u64, Event)], seed: u64) -> bool {
    let rules = dudo_rules::presets::by_name("perudo-jonti").unwrap();
    let (_, start) =
        dudo_rules::Game::start(std::sync::Arc::new(rules), 4, dudo_rules::seed_from_u64(seed)).unwrap();
    let dealt: Vec<&Event> = start
        .iter()
        .filter(|e| {
            matches!(e.kind, EventKind::DiceRolled { .. })
                && e.audience.admits(dudo_rules::Viewer::Replay, true)
        })
        .collect();
    let seen: Vec<&Event> = events
        .iter()
        .map(|(_, e)| e)
        .filter(|e| matches!(e.kind, EventKind::DiceRolled { .. }))
        .take(dealt.len())
        .collect();
    dealt == seen
}

/// Every salt a replay reveals opens the commitment made for it, across the restart.
pub(crate) fn commitments_hold(replay: &pb::Replay) -> usize {
    let mut committed: HashMap<(u32, usize), String> = HashMap::new();
    let mut opened = 0;
    for wire in &replay.events {
        let (_, e) = dudo_proto::convert::event_from_wire(wire).unwrap();
        match e {
            TableEvent::DiceCommitted { round, commitments, .. } => {
                for (seat, hash) in commitments {
                    committed.insert((round, seat), hash);
                }
            }
            TableEvent::DiceSalts { round, salts } => {
                for (seat, salt, dice) in salts {
                    let salt: Vec<u8> = (0..salt.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&salt[i..i + 2], 16).unwrap())
                        .collect();
                    let hash = dudo_server::table::commitment(round, seat, &dice, &salt);
                    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
                    assert_eq!(committed.get(&(round, seat)), Some(&hex), "round {round} seat {seat}");
                    opened += 1;
                }
            }
            _ => {}
        }
    }
    opened
}

/// The uninterrupted run: the same games on one server in this process.
pub(crate) async fn uninterrupted() -> Results {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let calm = listener.local_addr().unwrap().to_string();
    let store = dudo_server::Store::open(":memory:").await.unwrap();
    let setup = dudo_server::Setup { store: Some(store), ..Default::default() };
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    for (_, player) in start_tables(&calm).await {
        tokio::time::timeout(Duration::from_secs(120), player).await.unwrap().unwrap();
    }
    results(&calm).await
}

/// Waits until `table` has begun its `round`th round, as a spectator at `addr` sees.
pub(crate) async fn until_round(addr: &str, table: &str, round: usize) {
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

/// Every game finished, its players reading from `addr`, as the uninterrupted run did, each recorded once,
/// its dice commitments opened by its salts.
pub(crate) async fn same_games(
    addr: &str,
    players: Vec<(String, tokio::task::JoinHandle<dudo_bot::Outcome>)>,
    expected: &Results,
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
async fn a_server_killed_mid_round_comes_back_and_finishes_every_game_as_if_nothing_happened() {
    let expected = uninterrupted().await;
    // The same games on the real binary, killed mid-round and restarted on its database.
    let server = dudo_tests::Restartable::new("recovery");
    let mut first = server.start().unwrap();
    let players = start_tables(&first.addr).await;
    // Killed during the second round of the last table (the others are as far or further).
    until_round(&first.addr, &players[SEEDS.len() - 1].0, 2).await;
    let client = Client::connect(&first.addr).await.unwrap();
    assert!(
        client.games(pb::ListGamesRequest::default()).await.unwrap().is_empty(),
        "the kill must come mid-game: no game may have finished yet"
    );
    first.child.kill().unwrap(); // SIGKILL: no shutdown, no last write
    first.child.wait().unwrap();
    let mut second = server.start().unwrap();
    // The SDK players reconnect with their tokens and resume from their last sequence number.
    same_games(&second.addr, players, &expected, "after the restart").await;
    second.child.kill().unwrap();
    second.child.wait().unwrap();
}

#[test]
fn a_corrupt_or_unwritable_database_stops_the_server_at_start_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("dudo-bad-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corrupt = dir.join("corrupt.db");
    std::fs::write(&corrupt, "not a database at all\n".repeat(200)).unwrap();
    let cases = [
        (corrupt.display().to_string(), "not a database"),
        ("/proc/dudo-cannot-write-here/dudo.db".to_string(), "cannot open the database"),
    ];
    for (db, reason) in cases {
        let out = std::process::Command::new(dudo_tests::binary("dudo-server"))
            .args(["--listen", "127.0.0.1:0", "--db", &db])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{db}: the server must not start");
        assert!(stderr.contains(reason) && stderr.contains(&db), "{db}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
