//! Fair calls out of turn: after each claim every seat that may call (Calza by the others,
//! in the Fibbing Dice rules) is asked at once, and the first caller in play order wins.
//! So a bot behind a proxy that adds 50 ms each way plays exactly the game it plays
//! without one, calls and all; and the same seed and bots play the same game in `dudo
//! simulate`'s loop, on a server with its own bots, and with the SDK's bot in a seat.

use std::net::SocketAddr;
use std::time::Duration;

use dudo_client::{Client, Update};
use dudo_proto::v1 as pb;
use dudo_rules::EventKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A TCP proxy to `target` that holds every chunk `delay` before passing it on, both ways.
async fn slow_proxy(target: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(target).await else { continue };
            let (client_read, client_write) = client.into_split();
            let (server_read, server_write) = server.into_split();
            tokio::spawn(pump(client_read, server_write, delay));
            tokio::spawn(pump(server_read, client_write, delay));
        }
    });
    addr
}

async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    // Chunks are read as they come and each is sent `delay` after it arrived, in order.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = from.read(&mut buf).await {
            if n == 0 || tx.send((tokio::time::Instant::now() + delay, buf[..n].to_vec())).is_err() {
                break;
            }
        }
    });
    while let Some((due, chunk)) = rx.recv().await {
        tokio::time::sleep_until(due).await;
        if to.write_all(&chunk).await.is_err() {
            break;
        }
    }
}

/// One seeded four-seat game: Ana (the SDK's odds bot) at seat 0, Bea (the same) at seat 1
/// connecting through `bea_via`, and two of the server's odds bots. Returns every game
/// event, in order, as a spectator saw them, and the calls out of turn made.
async fn play(server: &str, bea_via: &str) -> (Vec<String>, Vec<usize>) {
    let host = Client::connect(server).await.unwrap();
    let request = pb::CreateTableRequest {
        seats: 4,
        seed: Some(21),
        host_only: true,
        call_window_millis: Some(0),
        // Anyone may challenge too (the encyclopedia article's out-of-sequence challenges),
        // so calls out of turn are common.
        settings: vec![pb::Setting { path: "challenges.who".into(), value: "anyone".into() }],
        ..Default::default()
    };
    let key = host.create(request).await.unwrap();
    let code = key.info.join_code.clone();
    let ana = Client::connect(server).await.unwrap();
    let ana_seat = ana.join(&code, "Ana").await.unwrap();
    let bea = Client::connect(bea_via).await.unwrap();
    let bea_seat = bea.join(&code, "Bea").await.unwrap();
    assert_eq!((ana_seat.seat, bea_seat.seat), (0, 1));
    host.add_bot(&key, "odds").await.unwrap();
    host.add_bot(&key, "odds").await.unwrap();
    let mut watch = host.watch(&key.table, None);
    let players = [(ana, ana_seat, 1u64), (bea, bea_seat, 2u64)].map(|(client, seat, seed)| {
        tokio::spawn(async move {
            let mut bot = dudo_bot::builtin("odds", seed).unwrap();
            dudo_bot::play(&mut bot, &client, &seat).await
        })
    });
    // Both seats' streams are open before the game starts (the order docs/bots.md gives).
    tokio::time::sleep(Duration::from_millis(300)).await;
    host.start(&key).await.unwrap();
    let kinds = game_events(&mut watch).await;
    let calls = kinds
        .iter()
        .filter_map(|kind| match kind {
            EventKind::CalzaCalled { seat } => Some(*seat),
            // Not the seat after the bidder: out of turn (near enough while all four play).
            EventKind::DudoCalled { seat, target } if *seat != (target + 1) % 4 => Some(*seat),
            _ => None,
        })
        .collect();
    let events = kinds.iter().map(|kind| format!("{kind:?}")).collect();
    for p in players {
        p.await.unwrap().unwrap();
    }
    (events, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_behind_a_slow_proxy_plays_the_same_game_and_makes_the_same_calls() {
    let server = crate::serve().await;
    let (direct, direct_calls) = play(&server, &server).await;
    let proxy = slow_proxy(server.parse().unwrap(), Duration::from_millis(50)).await;
    let (slowed, slowed_calls) = play(&server, &proxy.to_string()).await;
    assert!(
        direct_calls.iter().any(|&s| s < 2),
        "the seed should give the SDK's bots a call out of turn: {direct_calls:?}"
    );
    assert_eq!(direct_calls, slowed_calls, "who called out of turn depended on the network");
    assert_eq!(direct, slowed, "the game depended on the network");
}

/// Every game event a spectator's stream carries, until the game is over.
async fn game_events(watch: &mut dudo_client::Session) -> Vec<EventKind> {
    let mut kinds = Vec::new();
    loop {
        let update =
            tokio::time::timeout(Duration::from_secs(60), watch.next()).await.expect("the game stalled");
        let Update::Event { event, .. } = update.expect("the watch ended").unwrap() else { continue };
        let Some(kind) = event.game() else { continue };
        let over = matches!(kind, EventKind::GameOver { .. });
        kinds.push(kind.clone());
        if over {
            return kinds;
        }
    }
}

/// A seeded four-seat table of `kind` bots on `server`: the server's own in every seat, or
/// the SDK's in seat 0 (as `dudo arena` seats its host). Its calls and result, in order.
async fn served(
    server: &str,
    rules: &pb::CreateTableRequest,
    kind: &str,
    sdk_in_seat_0: bool,
    seed: u64,
) -> Vec<String> {
    let host = Client::connect(server).await.unwrap();
    let request = pb::CreateTableRequest { seed: Some(seed), ..rules.clone() };
    let key = host.create(request).await.unwrap();
    let player = if sdk_in_seat_0 {
        let me = Client::connect(server).await.unwrap();
        let seat = me.join(&key.info.join_code, "Sid").await.unwrap();
        let kind = kind.to_string();
        Some(tokio::spawn(async move {
            let mut bot = dudo_bot::builtin(&kind, dudo_rules::bots::seat_seed(seed, 0)).unwrap();
            dudo_bot::play(&mut bot, &me, &seat).await
        }))
    } else {
        None
    };
    while host.table(&key.table).await.unwrap().players.len() < rules.seats as usize {
        host.add_bot(&key, kind).await.unwrap();
    }
    let mut watch = host.watch(&key.table, None);
    tokio::time::sleep(Duration::from_millis(200)).await;
    host.start(&key).await.unwrap();
    let seen = game_events(&mut watch).await.iter().filter_map(crate::calls_and_result).collect();
    if let Some(p) = player {
        p.await.unwrap().unwrap();
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_game_plays_the_same_in_simulate_on_a_server_and_through_the_sdk() {
    use dudo_rules::{bots, presets, sim};
    let server = crate::serve().await;
    let settings = vec![pb::Setting { path: "challenges.who".into(), value: "anyone".into() }];
    let wire = pb::CreateTableRequest {
        seats: 4,
        host_only: true,
        call_window_millis: Some(0),
        settings,
        ..Default::default()
    };
    let rules =
        std::sync::Arc::new(presets::with_setting(presets::fibbing(), "challenges.who", "anyone").unwrap());
    // Poker dice: the expert's search over the cup, and its moves' words on the wire.
    let poker = pb::CreateTableRequest {
        seats: 3,
        preset: "poker-dice".into(),
        settings: Vec::new(),
        ..wire.clone()
    };
    let poker_rules = std::sync::Arc::new(presets::poker_dice());
    // Two players of one die, nothing wild: a game no table ships, solved where it is met.
    let setting = |path: &str, value: &str| pb::Setting { path: path.into(), value: value.into() };
    let one_die = pb::CreateTableRequest {
        seats: 2,
        settings: vec![setting("wilds", "none"), setting("dice.start", "1"), setting("dice.max", "1")],
        ..wire.clone()
    };
    let mut one_die_rules = presets::with_setting(presets::fibbing(), "wilds", "none").unwrap();
    for (path, value) in [("dice.start", "1"), ("dice.max", "1")] {
        one_die_rules = presets::with_setting(one_die_rules, path, value).unwrap();
    }
    let one_die_rules = std::sync::Arc::new(one_die_rules);
    // The expert searches with its own randomness: the same seed, the same search.
    let cases = [(&wire, &rules, "odds", 3u64), (&wire, &rules, "odds", 21), (&wire, &rules, "expert", 5)];
    let experts = [(&poker, &poker_rules, "expert", 8), (&one_die, &one_die_rules, "expert", 4)];
    for (wire, rules, kind, seed) in cases.into_iter().chain(experts) {
        let mut seats: Vec<Box<dyn bots::Bot>> = (0..wire.seats as usize)
            .map(|s| bots::by_name(kind, bots::seat_seed(seed, s)).unwrap())
            .collect();
        let mut events = Vec::new();
        sim::play_into(rules, &mut seats, dudo_rules::seed_from_u64(seed), &mut events).unwrap();
        let simulated: Vec<String> = events.iter().filter_map(|e| crate::calls_and_result(&e.kind)).collect();
        assert!(simulated.iter().any(|e| e.starts_with("DudoCalled")), "seed {seed}: no challenge at all?");
        let on_server = served(&server, wire, kind, false, seed).await;
        assert_eq!(
            simulated, on_server,
            "{kind}, seed {seed}: the server's bots played another game than simulate"
        );
        let with_sdk = served(&server, wire, kind, true, seed).await;
        assert_eq!(
            simulated, with_sdk,
            "{kind}, seed {seed}: the SDK's bot played another game than simulate"
        );
    }
}
