//! Records: finished games listed, replayed and streamed through the History service and the
//! `dudo history | replay | ratings` commands; ratings pools; tables brought back after a
//! restart with their lobby changes, their seats' tokens and a fair clock.

use std::time::{Duration, SystemTime};

use dudo_client::dudo_proto::v1 as pb;
use dudo_client::{Client, Code, TableEvent, Update};
use dudo_rules::{EventKind, Viewer};

async fn server_with(setup: dudo_server::Setup) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    // Programs play its tables: after a showdown they go on at once.
    let mut setup = setup;
    setup.limits.default_clock.reveal_pause_millis = 0;
    tokio::spawn(dudo_server::serve(listener, setup, std::future::pending()));
    addr
}

async fn memory(ranked: bool) -> String {
    let store = dudo_server::Store::open(":memory:").await.unwrap();
    server_with(dudo_server::Setup { store: Some(store), ranked, ..Default::default() }).await
}

/// A table of the creator (played to the end by the SDK's odds bot) and two built-in bots.
async fn play_a_game(client: &Client, name: &str, preset: &str, pool: &str, seed: u64) -> String {
    let key = client
        .create(pb::CreateTableRequest {
            preset: preset.into(),
            name: name.into(),
            seats: 3,
            // A ranked table deals from the server's randomness only.
            seed: (pool != "ranked").then_some(seed),
            rating_pool: pool.into(),
            ..Default::default()
        })
        .await
        .unwrap();
    client.add_bot(&key, "odds").await.unwrap();
    client.add_bot(&key, "reader").await.unwrap();
    client.start(&key).await.unwrap();
    let mut bot = dudo_bot::builtin("odds", seed).unwrap();
    dudo_bot::play(&mut bot, client, &key).await.unwrap();
    key.table
}

#[tokio::test]
async fn finished_games_are_listed_filtered_replayed_and_streamed_and_games_in_play_are_not() {
    let addr = memory(false).await;
    let client = Client::connect(&addr).await.unwrap();
    play_a_game(&client, "Ana", "fibbing", "", 1).await;
    play_a_game(&client, "Ben", "perudo-jonti", "", 2).await;
    // A game in progress: its bots think for ten seconds a move.
    let busy = client
        .create(pb::CreateTableRequest {
            name: "Cleo".into(),
            seats: 2,
            bot_think_millis: 10_000,
            ..Default::default()
        })
        .await
        .unwrap();
    client.add_bot(&busy, "odds").await.unwrap();
    client.start(&busy).await.unwrap();

    let all = client.games(pb::ListGamesRequest::default()).await.unwrap();
    assert_eq!(all.len(), 2, "only finished games: {all:?}");
    assert!(all[0].finished_unix_millis >= all[1].finished_unix_millis, "newest first");
    let by = |player: &str, preset: &str| pb::ListGamesRequest {
        player: player.into(),
        preset: preset.into(),
        ..Default::default()
    };
    assert_eq!(client.games(by("Ana", "")).await.unwrap().len(), 1);
    assert_eq!(client.games(by("reader", "")).await.unwrap().len(), 2, "a bot kind finds its games");
    assert_eq!(client.games(by("", "perudo-jonti")).await.unwrap()[0].players[0].name, "Ben");
    assert!(client.games(by("Cleo", "")).await.unwrap().is_empty());
    let future = pb::ListGamesRequest { since_unix_millis: Some(u64::MAX / 2), ..Default::default() };
    assert!(client.games(future).await.unwrap().is_empty());
    let summary = &all[0];
    let places: Vec<u32> = {
        let mut p: Vec<u32> = summary.players.iter().map(|p| p.place).collect();
        p.sort();
        p
    };
    assert_eq!(places, [1, 2, 3], "every seat has its place");

    // The whole record: every cup of every round, nothing seat-private, times for each event.
    let replay = client.replay(&summary.id).await.unwrap();
    assert_eq!(replay.events.len(), replay.event_unix_millis.len());
    assert_eq!(replay.seed.len(), 32, "the seed, for checking the record");
    assert!(replay.moves.len() > 3, "every move, in order");
    let events: Vec<_> =
        replay.events.iter().map(|e| dudo_proto::convert::event_from_wire(e).unwrap().1).collect();
    assert!(events.iter().all(|e| e.admits(Viewer::Replay, true)));
    let rounds = events.iter().filter(|e| matches!(e.game(), Some(EventKind::RoundStarted { .. }))).count();
    let rolls = events.iter().filter(|e| matches!(e.game(), Some(EventKind::DiceRolled { .. }))).count();
    assert!(rounds > 0 && rolls >= rounds * 2, "{rounds} rounds, {rolls} rolls");
    assert!(matches!(events.last().unwrap().game(), Some(EventKind::GameOver { .. })));

    // As if live, quickly: the table, then the same events.
    let mut stream = client.watch_replay(&summary.id, 1000.0).await.unwrap();
    let first = stream.message().await.unwrap().unwrap();
    assert!(matches!(first.update, Some(pb::play_update::Update::Table(_))));
    let mut streamed = Vec::new();
    while let Some(u) = stream.message().await.unwrap() {
        if let Some(pb::play_update::Update::Event(e)) = u.update {
            streamed.push(e);
        }
    }
    assert_eq!(streamed, replay.events);

    // The game in progress is not there for anyone, its own player included.
    let in_play = format!("{}-1", &busy.table[..16]);
    let refused = client.replay(&in_play).await.unwrap_err();
    assert_eq!(refused.code(), Some(Code::NotFound));
    assert!(refused.to_string().contains("in progress are not replayed"), "{refused}");
    let bad_speed = client.watch_replay(&summary.id, -1.0).await.unwrap_err();
    assert!(bad_speed.to_string().contains("speed"), "{bad_speed}");
}

#[tokio::test]
async fn ratings_pools_are_kept_where_the_operator_allows_them() {
    let ranked = memory(true).await;
    // Rated play is an account's: Ana registers, and plays with her token.
    let guest = Client::connect(&ranked).await.unwrap();
    let ana = guest.register("Ana", false, "test").await.unwrap().token.unwrap().token;
    let client = guest.clone().with_account(Some(ana));
    play_a_game(&client, "Ana", "fibbing", "ranked", 5).await;
    play_a_game(&client, "Ana", "fibbing", "ranked", 6).await;
    play_a_game(&client, "Ana", "fibbing", "", 7).await;
    let ratings = client.ratings("ranked").await.unwrap();
    let mut names: Vec<&str> = ratings.iter().map(|r| r.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["Ana", "odds bot", "reader bot"]);
    assert!(ratings.iter().all(|r| r.games == 2), "the unrated game does not count: {ratings:?}");
    assert!((ratings.iter().map(|r| r.rating).sum::<f64>() - 3.0 * 1500.0).abs() < 1e-6);

    let create = |pool: &str| pb::CreateTableRequest { rating_pool: pool.into(), ..Default::default() };
    let plain = Client::connect(&memory(false).await).await.unwrap();
    let refused = plain.create(create("ranked")).await.unwrap_err();
    assert_eq!(refused.code(), Some(Code::FailedPrecondition));
    assert!(refused.to_string().contains("--ranked"), "{refused}");
    plain.create(create("arena")).await.unwrap();
    let odd = plain.create(create("elo")).await.unwrap_err();
    assert!(odd.to_string().starts_with("rating_pool:"), "{odd}");
    let keepsnothing = Client::connect(&crate::serve().await).await.unwrap();
    let refused = keepsnothing.create(create("arena")).await.unwrap_err();
    assert!(refused.to_string().contains("keeps no records"), "{refused}");
    let none = keepsnothing.games(pb::ListGamesRequest::default()).await.unwrap_err();
    assert!(none.to_string().contains("--db none"), "{none}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_brings_back_lobby_changes_tokens_and_a_fresh_clock() {
    let server = dudo_tests::Restartable::new("restart");
    let mut first = server.start().unwrap();
    let client = Client::connect(&first.addr).await.unwrap();
    // A waiting table: settings changed, a bot added then removed, a second person seated.
    let lobby = client
        .create(pb::CreateTableRequest { name: "Host".into(), seats: 3, ..Default::default() })
        .await
        .unwrap();
    client.change_settings(&lobby, vec![("dice.start".into(), "3".into())]).await.unwrap();
    client.add_bot(&lobby, "random").await.unwrap();
    client.remove(&lobby, 1).await.unwrap();
    let guest = client.join(&lobby.table, "Guest").await.unwrap();
    let before = client.table(&lobby.table).await.unwrap();
    // A game in play with a 3 s clock, waiting on its person.
    let clocked = client
        .create(pb::CreateTableRequest {
            name: "Dora".into(),
            seats: 2,
            move_millis: Some(3000),
            seed: Some(9),
            ..Default::default()
        })
        .await
        .unwrap();
    client.add_bot(&clocked, "odds").await.unwrap();
    client.start(&clocked).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // A graceful stop (SIGTERM) keeps the tables too.
    let pid = first.child.id().to_string();
    std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    first.child.wait().unwrap();

    let mut second = server.start().unwrap();
    let client = Client::connect(&second.addr).await.unwrap();
    let after = client.table(&lobby.table).await.unwrap();
    // Presence is live, not kept: after a restart everyone is away until they reconnect.
    let unseen = |mut info: pb::TableInfo| {
        for p in &mut info.players {
            (p.connected, p.away_since_unix_millis) = (false, 0);
        }
        info
    };
    assert_eq!(unseen(before), unseen(after.clone()), "the waiting table is as it was");
    assert_eq!(after.rules.unwrap().dice.unwrap().start, 3);
    let found = client.join(&lobby.info.join_code, "Third").await.unwrap();
    assert_eq!(found.seat, 2, "the join code still finds the table");
    // The guest's token still holds its seat.
    let mut session = client.play(&guest, None);
    assert!(matches!(session.next().await, Some(Ok(Update::Snapshot { .. }))));
    // The clocked seat gets its whole move time again, from the restart.
    let restarted = SystemTime::now();
    let mut seat = client.play(&clocked, None);
    let deadline = loop {
        match seat.next().await {
            Some(Ok(Update::Prompt(p))) => break p.deadline.expect("a clocked prompt has a deadline"),
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    };
    let left = deadline.duration_since(restarted).unwrap_or_default();
    assert!(left > Duration::from_millis(2000), "the clock restarted fairly: {left:?} left of 3 s");
    second.child.kill().unwrap();
    second.child.wait().unwrap();
}

/// `dudo ARGS` with its home in `dir` and no database or server from the environment:
/// whether it succeeded, its standard output and its standard error.
fn dudo_at(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(dudo_tests::binary("dudo"))
        .args(args)
        .env("DUDO_HOME", dir)
        .env_remove("DUDO_DB")
        .env_remove("DUDO_SERVER")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn the_history_replay_and_ratings_commands_read_what_the_arena_kept() {
    let dir = std::env::temp_dir().join(format!("dudo-cli-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("records.db").display().to_string();
    let dudo = |args: &[&str]| dudo_at(&dir, args);
    let (ok, out, err) =
        dudo(&["arena", "--bots", "odds,reader", "--games", "4", "--seed", "3", "--db", &db]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("stored arena ratings"), "{out}");
    let (ok, history, err) = dudo(&["history", "--db", &db, "--player", "reader"]);
    assert!(ok, "{err}");
    let games: Vec<&str> = history.lines().skip(1).filter(|l| l.contains("[arena]")).collect();
    assert_eq!(games.len(), 4, "{history}");
    let game = games[0].split_whitespace().next().unwrap();
    let (ok, replay, err) = dudo(&["replay", game, "--db", &db]);
    assert!(ok, "{err}");
    assert!(replay.contains(&format!("Game {game}")) && replay.contains("Round 1"), "{replay}");
    assert!(replay.contains("to its bidder; there w"), "each bid's odds and truth: {replay}");
    assert!(!replay.contains("there were 1:"), "one is singular: {replay}");
    assert!(!replay.contains("does not replay"), "the record replays through the engine: {replay}");
    assert!(replay.contains("wins the challenge"), "who was right: {replay}");
    let (ok, ratings, _) = dudo(&["ratings", "--db", &db]);
    assert!(ok && ratings.contains("arena    reader bot"), "{ratings}");
    let (ok, _, err) = dudo(&["replay", "no-such-game", "--db", &db]);
    assert!(!ok && err.contains("no finished game \"no-such-game\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_arena_keeps_its_games_apart_from_the_players_own() {
    let dir = std::env::temp_dir().join(format!("dudo-cli-arena-apart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dudo = |args: &[&str]| dudo_at(&dir, args);
    // Nothing kept yet: the hint names the other places games may be.
    let (ok, none, err) = dudo(&["history"]);
    assert!(ok, "{err}");
    assert!(none.contains("No records yet") && none.contains("--server HOST:PORT"), "{none}");
    let (ok, out, err) = dudo(&["arena", "--bots", "odds,random", "--games", "2", "--seed", "3"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("stored arena ratings at") && out.contains("arena.db"), "{out}");
    // The player's own history is not the arena's.
    let (ok, mine, err) = dudo(&["history"]);
    assert!(ok, "{err}");
    assert!(!mine.contains("[arena]") && mine.contains("--arena"), "{mine}");
    let (ok, arena, err) = dudo(&["history", "--arena"]);
    assert!(ok, "{err}");
    assert_eq!(arena.lines().filter(|l| l.contains("[arena]")).count(), 2, "{arena}");
    let (ok, ratings, err) = dudo(&["ratings"]);
    assert!(ok && ratings.contains("odds bot"), "{ratings}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_game_that_ends_on_a_time_out_is_recorded_whole() {
    let addr = memory(false).await;
    let client = Client::connect(&addr).await.unwrap();
    // One die each, a 150 ms clock, and a person who never moves: time-outs end the game.
    let key = client
        .create(pb::CreateTableRequest {
            name: "Absent".into(),
            seats: 2,
            move_millis: Some(150),
            seed: Some(4),
            settings: vec![pb::Setting { path: "dice.start".into(), value: "1".into() }],
            ..Default::default()
        })
        .await
        .unwrap();
    client.add_bot(&key, "odds").await.unwrap();
    client.start(&key).await.unwrap();
    let game = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Some(g) = client.games(pb::ListGamesRequest::default()).await.unwrap().pop() {
                return g;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the game ends on time-outs");
    let replay = client.replay(&game.id).await.unwrap();
    let kinds: Vec<TableEvent> =
        replay.events.iter().map(|e| dudo_proto::convert::event_from_wire(e).unwrap().1).collect();
    assert!(kinds.iter().any(|k| matches!(k, TableEvent::TurnTimedOut { .. })), "{kinds:?}");
    assert!(
        matches!(kinds.last().and_then(TableEvent::game), Some(EventKind::GameOver { .. })),
        "the record ends with the game: {kinds:?}"
    );
}

/// A record larger than one answer carries is refused by `GetReplay` (with a code saying
/// so) and streamed whole by `WatchReplay`.
#[tokio::test]
async fn a_large_record_is_streamed_not_answered_at_once() {
    let addr = memory(false).await;
    let client = Client::connect(&addr).await.unwrap();
    let key = client
        .create(pb::CreateTableRequest {
            preset: "fibbing".into(),
            name: "Ana".into(),
            seats: 12,
            seed: Some(4),
            ..Default::default()
        })
        .await
        .unwrap();
    for _ in 0..11 {
        client.add_bot(&key, "odds").await.unwrap();
    }
    client.start(&key).await.unwrap();
    let mut bot = dudo_bot::builtin("odds", 4).unwrap();
    dudo_bot::play(&mut bot, &client, &key).await.unwrap();
    let game = client.games(pb::ListGamesRequest::default()).await.unwrap()[0].id.clone();
    let refused = client.replay(&game).await.unwrap_err();
    assert_eq!(refused.refusal_code(), Some("replay_too_large"), "{refused}");
    // A table's id is not a game's: the refusal says what its games are called.
    let refused = client.replay(&key.table).await.unwrap_err();
    assert!(refused.to_string().contains(&format!("{}-1", &key.table[..16])), "{refused}");
    let started = std::time::Instant::now();
    let mut stream = client.watch_replay(&game, 1_000_000.0).await.unwrap();
    let mut events = 0;
    while let Some(u) = stream.message().await.unwrap() {
        if let Some(pb::play_update::Update::Event(_)) = u.update {
            events += 1;
        }
    }
    assert!(events > 1000, "{events} events streamed");
    // At a million times the game's pace the replay comes as fast as it is read: no wait
    // under a millisecond is taken (each was once a whole millisecond of the timer's grain).
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_millis(events / 2), "{events} events took {took:?}");
}

/// A table whose journal has grown past the server's limit refuses another game (a journal
/// is replayed whole to rebuild its table), says so by name, and stays as it was.
#[tokio::test]
async fn a_table_whose_journal_is_full_refuses_another_game() {
    let store = dudo_server::Store::open(":memory:").await.unwrap();
    let limits = dudo_server::node::Limits { max_journal_entries: 20, ..Default::default() };
    let addr = server_with(dudo_server::Setup { store: Some(store), limits, ..Default::default() }).await;
    let client = Client::connect(&addr).await.unwrap();
    let key = client
        .create(pb::CreateTableRequest { name: "Ana".into(), seats: 3, seed: Some(4), ..Default::default() })
        .await
        .unwrap();
    client.add_bot(&key, "odds").await.unwrap();
    client.add_bot(&key, "reader").await.unwrap();
    // A few entries in: another game is no trouble.
    client.start(&key).await.unwrap();
    client.reset(&key).await.unwrap();
    client.start(&key).await.unwrap();
    let mut bot = dudo_bot::builtin("odds", 4).unwrap();
    let outcome = dudo_bot::play(&mut bot, &client, &key).await.unwrap();
    assert_eq!(outcome.standings.len(), 3);
    // A whole game later the journal is past 20 entries.
    let refused = client.reset(&key).await.unwrap_err();
    assert_eq!(refused.code(), Some(Code::FailedPrecondition), "{refused}");
    assert_eq!(refused.refusal_code(), Some("table_spent"), "{refused}");
    assert!(refused.to_string().contains("entries"), "{refused}");
    let table = client.table(&key.table).await.unwrap();
    assert_eq!(table.state, pb::TableState::Over as i32, "the finished game stays: {table:?}");
}
