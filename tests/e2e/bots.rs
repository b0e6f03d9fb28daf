//! Bots as their authors run them: the SDK's 15-line Rust example and the Python example
//! each play whole games against a real server, and `dudo arena` runs tournaments whose
//! standings add up, replay from their seed, and take external bots.

use std::process::Command;
use std::time::Duration;

use dudo_bot::Client;
use dudo_client::Update;
use dudo_tests::{binary, example, python, root};

/// Creates a three-seat table, lets `join` (an outside program given the join code) take a
/// seat, adds an odds bot, starts, and plays the host's seat with the SDK's reader bot.
/// Returns the outside program's output.
async fn game_with(join: impl FnOnce(&str, &str) -> std::process::Child) -> std::process::Output {
    let addr = crate::serve().await;
    let client = Client::connect(&addr).await.unwrap();
    let request = dudo_client::dudo_proto::v1::CreateTableRequest {
        name: "Host".into(),
        seats: 3,
        ..Default::default()
    };
    let key = client.create(request).await.unwrap();
    let mut watch = client.watch(&key.table, None);
    let child = join(&addr, &key.info.join_code);
    // Wait for the outside bot to sit down.
    loop {
        match tokio::time::timeout(Duration::from_secs(60), watch.next()).await.expect("nobody joined") {
            Some(Ok(Update::Table { table, .. } | Update::Snapshot { table, .. }))
                if table.players.len() == 2 =>
            {
                break;
            }
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    }
    client.add_bot(&key, "odds").await.unwrap();
    let mut host = dudo_bot::builtin("reader", 1).unwrap();
    let (c, k) = (client.clone(), key.clone());
    let hosting = tokio::spawn(async move { dudo_bot::play(&mut host, &c, &k).await });
    client.start(&key).await.unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(60), hosting).await.unwrap().unwrap().unwrap();
    assert_eq!(outcome.standings.len(), 3);
    assert!(outcome.dice_checked > 0, "the host checked no dice");
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap()
}

#[tokio::test]
async fn the_fifteen_line_rust_bot_plays_a_whole_game() {
    let source = std::fs::read_to_string(root().join("bot-sdk/examples/minimal.rs")).unwrap();
    assert!(source.lines().count() <= 15, "the minimal bot has grown to {} lines", source.lines().count());
    let out = game_with(|addr, code| {
        Command::new(example("minimal"))
            .args([addr, code])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    })
    .await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
async fn the_python_example_bot_plays_a_whole_game() {
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            dudo_tests::skipped("bots::the_python_example_bot_plays_a_whole_game", &why);
            return;
        }
    };
    let script = root().join("bot-sdk/examples/python/bot.py");
    let out = game_with(|addr, code| {
        Command::new(&python)
            .arg(&script)
            .args([addr, code, "Pyro"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    })
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Pyro: game over, place"), "{stdout}");
}

/// The Node.js example (`bot-sdk/examples/node/bot.js`, @grpc/grpc-js) plays a whole game
/// against the server's bots, as docs/bots.md tells a Node author to write one.
#[tokio::test]
async fn the_node_example_bot_plays_a_whole_game() {
    let node = match dudo_tests::node() {
        Ok(n) => n,
        Err(why) => {
            dudo_tests::skipped("bots::the_node_example_bot_plays_a_whole_game", &why);
            return;
        }
    };
    let script = root().join("bot-sdk/examples/node/bot.js");
    let out = game_with(|addr, code| {
        Command::new(&node)
            .arg(&script)
            .args([addr, code, "Nodo"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    })
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Nodo: game over, place"), "{stdout}");
}

fn arena(args: &[&str]) -> (String, Vec<serde_json::Value>) {
    let out_file = std::env::temp_dir().join(format!(
        "dudo-arena-{}-{}.jsonl",
        std::process::id(),
        args.join("_").len()
    ));
    let out = Command::new(binary("dudo"))
        .arg("arena")
        .args(args)
        .arg("--out")
        .arg(&out_file)
        .env("DUDO_DB", "none")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = std::fs::read_to_string(&out_file).unwrap();
    let values = lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (String::from_utf8_lossy(&out.stdout).to_string(), values)
}

#[test]
fn an_arena_of_a_few_hundred_games_gives_standings_that_add_up_and_replay() {
    let args = ["--bots", "odds,random,reader", "--games", "300", "--seed", "3"];
    let (text, lines) = arena(&args);
    assert!(text.contains("games/s"), "{text}");
    let games: Vec<&serde_json::Value> = lines.iter().filter(|v| v.get("game").is_some()).collect();
    let table: Vec<&serde_json::Value> = lines.iter().filter(|v| v.get("standing").is_some()).collect();
    // Three pairs, both seatings of each deal: 300 games.
    assert_eq!(games.len(), 300);
    assert_eq!(table.len(), 3);
    let wins: u64 = table.iter().map(|s| s["wins"].as_u64().unwrap()).sum();
    let played: u64 = table.iter().map(|s| s["games"].as_u64().unwrap()).sum();
    assert_eq!((wins, played), (300, 600), "{text}");
    for s in &table {
        let (rate, low, high) = (
            s["win_rate"].as_f64().unwrap(),
            s["interval_95"][0].as_f64().unwrap(),
            s["interval_95"][1].as_f64().unwrap(),
        );
        assert!(low <= rate && rate <= high, "{s}");
    }
    let elo: f64 = table.iter().map(|s| s["elo"].as_f64().unwrap()).sum();
    assert!((elo - 4500.0).abs() < 1e-6, "Elo is zero-sum: {elo}");
    // The same seed plays the same tournament.
    let (_, again) = arena(&args);
    assert_eq!(lines, again);
}

#[test]
fn an_arena_takes_an_external_bot_in_every_seat() {
    let command = example("minimal").display().to_string();
    let external = format!("mini={command}");
    let (text, lines) = arena(&["--bots", "random", "--external", &external, "--games", "4", "--seed", "5"]);
    let mini = lines.iter().find(|v| v["standing"] == "mini").unwrap_or_else(|| panic!("{text}"));
    assert_eq!(mini["games"], 4, "{text}");
    // It sat in the creator's seat (given the token) and in the other (joining by code).
    let seats: Vec<String> = lines.iter().filter_map(|v| v["seats"][0].as_str().map(String::from)).collect();
    assert!(seats.contains(&"mini".to_string()) && seats.contains(&"random".to_string()), "{seats:?}");
}
