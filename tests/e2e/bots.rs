//! Bots as their authors run them: the SDK's 15-line Rust example and the Python, Node.js
//! and Go examples each play whole games against a real server (the Go one on the ladder
//! too, over `Ladder.Enter` itself), and `dudo arena` runs tournaments whose
//! standings add up, replay from their seed, take external bots, and export a file that
//! `dudo tournament verify` checks (and finds a changed move in).

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
    game_on(&addr, &client, join).await
}

/// [`game_with`] on the server at `addr`, through `client`.
pub(crate) async fn game_on(
    addr: &str,
    client: &Client,
    join: impl FnOnce(&str, &str) -> std::process::Child,
) -> std::process::Output {
    let request = dudo_client::dudo_proto::v1::CreateTableRequest {
        name: "Host".into(),
        seats: 3,
        ..Default::default()
    };
    let key = client.create(request).await.unwrap();
    let mut watch = client.watch(&key.table, None);
    let child = join(addr, &key.info.join_code);
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

/// An example bot in another language plays a whole game against the server's bots, run as
/// `PROGRAM SCRIPT HOST:PORT CODE NAME` (or `PROGRAM play HOST:PORT CODE NAME` for a built
/// program), as docs/bots.md tells its author to.
async fn example_bot_plays(program: Result<String, String>, test: &str, script: &str, name: &str) {
    let program = match program {
        Ok(p) => p,
        Err(why) => {
            dudo_tests::skipped(test, &why);
            return;
        }
    };
    let first = if script == "play" { script.into() } else { root().join(script) };
    let out = game_with(|addr, code| {
        Command::new(&program)
            .arg(&first)
            .args([addr, code, name])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    })
    .await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{name}: game over, place")), "{stdout}");
}

#[tokio::test]
async fn the_python_example_bot_plays_a_whole_game() {
    let test = "bots::the_python_example_bot_plays_a_whole_game";
    example_bot_plays(python(), test, "bot-sdk/examples/python/bot.py", "Pyro").await;
}

/// The Node.js example (`bot-sdk/examples/node/bot.js`, @grpc/grpc-js) plays a whole game.
#[tokio::test]
async fn the_node_example_bot_plays_a_whole_game() {
    let test = "bots::the_node_example_bot_plays_a_whole_game";
    example_bot_plays(dudo_tests::node(), test, "bot-sdk/examples/node/bot.js", "Nodo").await;
}

/// The Go example (`bot-sdk/examples/go`, grpc-go from Debian's packages, built by
/// `scripts/go-env.sh`) plays a whole game.
#[tokio::test]
async fn the_go_example_bot_plays_a_whole_game() {
    let test = "bots::the_go_example_bot_plays_a_whole_game";
    let program = tokio::task::spawn_blocking(dudo_tests::go_bot).await.unwrap();
    example_bot_plays(program, test, "play", "Gopher").await;
}

/// The C++ example (`bot-sdk/examples/cpp`, gRPC's C++ library from Debian's packages, built
/// by `scripts/cpp-env.sh`) plays a whole game.
#[tokio::test]
async fn the_cpp_example_bot_plays_a_whole_game() {
    let test = "bots::the_cpp_example_bot_plays_a_whole_game";
    let program = tokio::task::spawn_blocking(dudo_tests::cpp_bot).await.unwrap();
    example_bot_plays(program, test, "play", "Cplus").await;
}

/// A home folder of its own (`dudo-KIND-ladder-PID` in the temp folder) and a server keeping
/// its records there, with the one-pool ladder `duel` (`dudo_tests::duel_pool`).
fn duel_ladder(kind: &str) -> (std::path::PathBuf, dudo_tests::ServerProcess) {
    let home = std::env::temp_dir().join(format!("dudo-{kind}-ladder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let pools = dudo_tests::duel_pool(&home).unwrap();
    let db = home.join("server.db");
    let server = dudo_tests::start_server(
        &binary("dudo-server"),
        &["--db", db.to_str().unwrap(), "--ladder", pools.to_str().unwrap()],
    )
    .unwrap();
    (home, server)
}

/// The C++ example as `dudo ladder --bot` starts it: from the seat its environment names,
/// game after game, none left to the clock.
#[test]
fn the_cpp_example_bot_plays_the_ladder_as_a_bot_command() {
    let program = match dudo_tests::cpp_bot() {
        Ok(p) => p,
        Err(why) => {
            return dudo_tests::skipped("bots::the_cpp_example_bot_plays_the_ladder_as_a_bot_command", &why);
        }
    };
    let (home, mut server) = duel_ladder("cpp");
    let addr = server.addr.clone();
    let dudo = |args: &[&str]| {
        let out = Command::new(binary("dudo"))
            .args(args)
            .args(["--server", &addr])
            .env("DUDO_HOME", &home)
            .output();
        let out = out.unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, _, said) = dudo(&["account", "register", "Cplus", "--bot"]);
    assert!(ok, "{said}");
    let (ok, stdout, stderr) = dudo(&["ladder", "duel", "--bot", &program, "--games", "2"]);
    assert!(ok && stdout.matches("finished").count() == 2, "{stdout}\n{stderr}");
    // What the bot printed went to standard error, apart from the results.
    assert!(
        stderr.contains("Cplus: game over, place") && !stdout.contains("game over, place"),
        "{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("turn_timed_out") && !stderr.contains("benched"), "{stderr}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&home);
}

/// The Go example enters a ladder pool over `Ladder.Enter` itself, as an account, plays the
/// games it is seated at over Play, and stops after as many as asked, none left unplayed.
#[test]
fn the_go_example_bot_plays_the_ladder_through_enter() {
    let program = match dudo_tests::go_bot() {
        Ok(p) => p,
        Err(why) => {
            return dudo_tests::skipped("bots::the_go_example_bot_plays_the_ladder_through_enter", &why);
        }
    };
    let (home, mut server) = duel_ladder("go");
    let addr = server.addr.clone();
    let registered = Command::new(binary("dudo"))
        .args(["account", "register", "Gopher", "--bot", "--server", &addr])
        .env("DUDO_HOME", &home)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&registered.stdout).to_string();
    let token = said
        .lines()
        .find_map(|l| l.strip_prefix("For a bot elsewhere: DUDO_API_TOKEN="))
        .unwrap_or_else(|| panic!("no token: {said}"))
        .to_string();
    let out = Command::new(&program)
        .args(["ladder", &addr, "duel", "-games", "3", "-at-once", "2"])
        .env("DUDO_API_TOKEN", &token)
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Gopher: 3 ladder games played in duel"), "{stdout}\n{stderr}");
    assert_eq!(stdout.matches("Gopher: game over, place").count(), 3, "{stdout}");
    // On the board with its three games, and no game of its left to the clock.
    let board = Command::new(binary("dudo"))
        .args(["leaderboard", "duel", "--server", &addr])
        .env("DUDO_HOME", &home)
        .output()
        .unwrap();
    let board = String::from_utf8_lossy(&board.stdout);
    assert!(board.contains("Gopher [bot]"), "{board}");
    assert!(!stderr.contains("turn_timed_out") && !stderr.contains("benched"), "{stderr}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&home);
}

/// The Go example enters a tournament over `Tournaments.Enter` itself, plays every seat the
/// schedule gives it beside two house bots, and prints the standings when it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_go_example_bot_plays_a_tournament_through_enter() {
    let program = match tokio::task::spawn_blocking(dudo_tests::go_bot).await.unwrap() {
        Ok(p) => p,
        Err(why) => {
            return dudo_tests::skipped("bots::the_go_example_bot_plays_a_tournament_through_enter", &why);
        }
    };
    const ADMIN: &str = "go-tournament-admin";
    let home = std::env::temp_dir().join(format!("dudo-go-tournament-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let db = home.join("server.db");
    let mut server = dudo_tests::start_server(
        &binary("dudo-server"),
        &["--db", db.to_str().unwrap(), "--admin-token", ADMIN],
    )
    .unwrap();
    let client = Client::connect(&server.addr).await.unwrap();
    let token = client.register("Gopher", true, "test").await.unwrap().token.unwrap().token;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let request = dudo_client::dudo_proto::v1::CreateTournamentRequest {
        name: "Go cup".into(),
        preset: "fibbing".into(),
        seats: 2,
        format: dudo_client::dudo_proto::v1::TournamentFormat::RoundRobin as i32,
        deals: 2,
        move_millis: 5_000,
        house_bots: vec!["odds".into(), "random".into()],
        starts_unix_millis: now + 3_000,
        ..Default::default()
    };
    let admin = client.clone().with_account(Some(ADMIN.into()));
    let t = admin.create_tournament(request).await.unwrap();
    let (addr, id) = (server.addr.clone(), t.id.clone());
    let out = tokio::task::spawn_blocking(move || {
        Command::new(&program)
            .args(["tournament", &addr, &id])
            .env("DUDO_API_TOKEN", &token)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // Three entrants two at a table: 3 line-ups, 2 rotations, 2 deals; the Go bot in 8.
    assert!(
        stdout.contains("Gopher is entrant") && stdout.contains("Go cup: finished; 12 games"),
        "{stdout}"
    );
    assert!(stdout.contains("Gopher: game over, place"), "{stdout}\n{stderr}");
    let standings = client.tournament_standings(&t.id).await.unwrap();
    let gopher = standings.entrants.iter().find(|e| e.name == "Gopher").expect("on the standings");
    assert!(gopher.games == 8 && gopher.benched.is_empty(), "{standings:?}");
    let _ = server.child.kill();
    let _ = server.child.wait();
    let _ = std::fs::remove_dir_all(&home);
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
    // Every pair compared deal by deal; 50 deals tell the reader from the random bot.
    let pairs: Vec<&serde_json::Value> = lines.iter().filter(|v| v.get("pair").is_some()).collect();
    assert_eq!(pairs.len(), 3, "{text}");
    let reader_random = pairs.iter().find(|p| p["pair"][0] == "reader" && p["pair"][1] == "random");
    assert!(reader_random.is_some_and(|p| p["ahead"] == true && p["deals"] == 50), "{pairs:?}");
    assert!(text.contains("reader ahead of random by"), "{text}");
    let elo: f64 = table.iter().map(|s| s["elo"].as_f64().unwrap()).sum();
    assert!((elo - 4500.0).abs() < 1e-6, "Elo is zero-sum: {elo}");
    // The same seed plays the same tournament.
    let (_, again) = arena(&args);
    assert_eq!(lines, again);
}

/// A tournament exported by `dudo arena ARGS` into a directory of the test's own (removed
/// when dropped): its database, its export and what the arena printed.
struct Exported {
    dir: std::path::PathBuf,
    db: std::path::PathBuf,
    file: std::path::PathBuf,
    printed: String,
}

impl Exported {
    fn run(name: &str, args: &[&str]) -> Exported {
        let dir = std::env::temp_dir().join(format!("dudo-{name}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let (db, file) = (dir.join("arena.db"), dir.join("t.json"));
        let out = Command::new(binary("dudo"))
            .arg("arena")
            .args(args)
            .arg("--db")
            .arg(&db)
            .arg("--export")
            .arg(&file)
            .output()
            .unwrap();
        // The arena's own error is its last line, after whatever its bots wrote.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(30).collect();
        assert!(out.status.success(), "{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
        let printed = String::from_utf8_lossy(&out.stdout).to_string();
        Exported { dir, db, file, printed }
    }

    /// `dudo tournament verify` of `file`, against this arena's records too if `records`:
    /// whether it verified, and what it printed.
    fn verify(&self, file: &std::path::Path, records: bool) -> (bool, String) {
        let mut verify = Command::new(binary("dudo"));
        verify.args(["tournament", "verify"]);
        if records {
            verify.args(["--records", "--db"]).arg(&self.db);
        }
        let out = verify.arg(file).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).to_string())
    }
}

impl Drop for Exported {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `dudo arena --export` writes the whole tournament; `dudo tournament verify` checks it
/// without the server, and names the move a one-byte change makes another.
#[test]
fn an_arena_export_verifies_and_a_changed_move_is_named() {
    let t = Exported::run("export", &["--bots", "odds,reader,random", "--games", "30", "--seed", "4"]);
    let (ok, text) = t.verify(&t.file, false);
    assert!(ok && text.starts_with("verified: 30 games made again from seed 4"), "{text}");
    assert!(text.contains("reader ") && text.contains("95% interval"), "{text}");
    // One byte: game 5's first bid one higher (a quantity below 9, so one digit).
    let export = std::fs::read_to_string(&t.file).unwrap();
    let game = export.find("\"number\":5,").unwrap();
    let moves = game + export[game..].find("\"moves\":").unwrap();
    let at = moves + export[moves..].find("\"quantity\":").unwrap() + "\"quantity\":".len();
    let digit = export.as_bytes()[at];
    assert!(digit.is_ascii_digit() && digit < b'9' && !export.as_bytes()[at + 1].is_ascii_digit());
    let mut tampered = export.into_bytes();
    tampered[at] = digit + 1;
    let changed = t.dir.join("changed.json");
    std::fs::write(&changed, tampered).unwrap();
    let (ok, text) = t.verify(&changed, false);
    assert!(!ok && text.starts_with("NOT verified: game 5, move "), "{text}");
    // Against the records: the honest file is its games' records; one whose games 0 and 1
    // swapped ids is consistent on its own, and not against the records.
    let (ok, text) = t.verify(&t.file, true);
    assert!(ok && text.starts_with("every game is the record it came from"), "{text}");
    let mut swapped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&t.file).unwrap()).unwrap();
    let (a, b) = (swapped["games"][0]["id"].clone(), swapped["games"][1]["id"].clone());
    swapped["games"][0]["id"] = b;
    swapped["games"][1]["id"] = a;
    let swapped_file = t.dir.join("swapped.json");
    std::fs::write(&swapped_file, swapped.to_string()).unwrap();
    assert!(t.verify(&swapped_file, false).0, "a file alone cannot tell");
    let (ok, text) = t.verify(&swapped_file, true);
    assert!(!ok && text.starts_with("NOT verified: game 0 ("), "{text}");
}

/// `dudo arena --mode swiss`: each round seated by the standings before it; its export
/// verifies, against its records too.
#[test]
fn a_swiss_arena_exports_a_tournament_that_verifies_against_its_records() {
    let bots = "random,odds,reader,random,odds,reader,random,odds,reader";
    let args =
        ["--mode", "swiss", "--bots", bots, "--seats", "3", "--rounds", "2", "--deals", "2", "--seed", "6"];
    let t = Exported::run("swiss", &args);
    // 9 bots at 3 tables of 3 in 3 rotations of 2 deals: 18 games a round, 2 rounds.
    assert!(t.printed.starts_with("36 games in "), "{}", t.printed);
    let (ok, text) = t.verify(&t.file, true);
    assert!(ok && text.contains("(9 entrants, 3 seats a table, 2 Swiss rounds of 2 deals)"), "{text}");
}

/// A tournament with a bot in another language: the Python example beside the built-in
/// bots at tables of three, ten deals; the reader is ahead of the random bot with 95%
/// confidence, and the export verifies against its records.
#[test]
fn a_tournament_with_a_python_bot_verifies_and_tells_the_reader_from_random() {
    let test = "bots::a_tournament_with_a_python_bot_verifies_and_tells_the_reader_from_random";
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            dudo_tests::skipped(test, &why);
            return;
        }
    };
    let bot = format!("py={python} {}", root().join("bot-sdk/examples/python/bot.py").display());
    let out = std::env::temp_dir().join(format!("dudo-pytour-{}.jsonl", std::process::id()));
    let out_arg = out.display().to_string();
    let args =
        ["--bots", "random,odds,reader", "--external", &bot, "--seats", "3", "--games", "120", "--seed", "8"];
    let t = Exported::run("pytour", &[&args[..], &["--out", &out_arg]].concat());
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let _ = std::fs::remove_file(&out);
    let py = lines.iter().find(|v| v["standing"] == "py").unwrap();
    assert_eq!(py["games"], 90, "4 line-ups of 3, the Python bot in 3, 3 rotations, 10 deals");
    let reader_random = lines.iter().find(|v| v["pair"][0] == "reader" && v["pair"][1] == "random");
    assert!(reader_random.is_some_and(|p| p["ahead"] == true), "{lines:?}");
    let (ok, text) = t.verify(&t.file, true);
    assert!(ok && text.contains("verified: 120 games"), "{text}");
}

#[test]
fn an_arena_takes_an_external_bot_in_every_seat() {
    let command = example("minimal").display().to_string();
    // A bot that talks on its standard output: not into the arena's standings.
    let external = format!("mini=echo bot-noise; {command}");
    let (text, lines) = arena(&["--bots", "random", "--external", &external, "--games", "4", "--seed", "5"]);
    assert!(!text.contains("bot-noise") && text.contains("mini"), "the standings alone: {text}");
    let mini = lines.iter().find(|v| v["standing"] == "mini").unwrap_or_else(|| panic!("{text}"));
    assert_eq!(mini["games"], 4, "{text}");
    // It sat in the creator's seat (given the token) and in the other (joining by code).
    let seats: Vec<String> = lines.iter().filter_map(|v| v["seats"][0].as_str().map(String::from)).collect();
    assert!(seats.contains(&"mini".to_string()) && seats.contains(&"random".to_string()), "{seats:?}");
}

/// The `buf curl` session of docs/bots.md ("By hand, with buf curl") and the generic tools of
/// docs/protocol.md, run as written against a real server: methods listed by reflection, a
/// seeded two-seat table made, a bot added, the seat's stream opened, the game started, and a
/// challenge made with one `Act`; `GetTable` over gRPC-Web too.
// buf runs as a blocking child process: the in-process server needs threads of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_buf_curl_session_runs_as_written() {
    let buf = match dudo_tests::buf() {
        Ok(b) => b,
        Err(why) => {
            dudo_tests::skipped("bots::the_docs_buf_curl_session_runs_as_written", &why);
            return;
        }
    };
    let server = format!("http://{}", crate::serve().await);
    let curl = |args: &[&str]| {
        let out = Command::new(&buf)
            .args(["curl", "--protocol", "grpc", "--http2-prior-knowledge"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "buf curl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let methods = curl(&["--list-methods", &server]);
    for method in ["dudo.v1.Lobby/AddBot", "dudo.v1.Play/Watch", "grpc.health.v1.Health/Check"] {
        assert!(methods.contains(method), "{method} not listed: {methods}");
    }
    let created = curl(&[
        "-d",
        r#"{"name": "Curly", "seats": 2, "seed": "4"}"#,
        &format!("{server}/dudo.v1.Lobby/CreateTable"),
    ]);
    let created: serde_json::Value = serde_json::from_str(&created).unwrap();
    let (id, token) = (created["table"]["id"].as_str().unwrap(), created["token"].as_str().unwrap());
    let bearer = format!("authorization: Bearer {token}");
    let table = format!(r#"{{"table": "{id}"}}"#);
    curl(&[
        "-H",
        &bearer,
        "-d",
        &format!(r#"{{"table": "{id}", "bot": "odds"}}"#),
        &format!("{server}/dudo.v1.Lobby/AddBot"),
    ]);
    // The seat's stream, in "another terminal".
    let mut stream = std::process::Command::new(&buf)
        .args(["curl", "--protocol", "grpc", "--http2-prior-knowledge", "-H", &bearer, "-d", &table])
        .arg(format!("{server}/dudo.v1.Play/Subscribe"))
        .stdout(std::process::Stdio::piped())
        // It is killed mid-stream at the end, and says so.
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lines = std::io::BufReader::new(stream.stdout.take().unwrap());
    let (seen_tx, seen) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        use std::io::BufRead;
        // buf curl prints each message as indented JSON: one message ends with a line "}".
        let mut message = String::new();
        for line in lines.lines().map_while(Result::ok) {
            message.push_str(&line);
            if line == "}" && seen_tx.send(std::mem::take(&mut message)).is_err() {
                return;
            }
        }
    });
    let first = seen.recv_timeout(Duration::from_secs(20)).expect("the stream said nothing");
    assert!(first.contains("snapshot"), "{first}");
    curl(&["-H", &bearer, "-d", &table, &format!("{server}/dudo.v1.Lobby/StartGame")]);
    let wait_for = |what: &str| loop {
        let message = seen.recv_timeout(Duration::from_secs(20)).unwrap_or_else(|_| panic!("no {what}"));
        if message.contains(what) {
            return message;
        }
    };
    // Seed 4: the bot opens, and our prompt may challenge it.
    let prompt = wait_for("\"prompt\"");
    assert!(prompt.contains("\"dudo\""), "{prompt}");
    curl(&[
        "-H",
        &bearer,
        "-d",
        &format!(r#"{{"table": "{id}", "action": {{"dudo": {{}}}}}}"#),
        &format!("{server}/dudo.v1.Play/Act"),
    ]);
    wait_for("dudoCalled");
    wait_for("diceSalts");
    let _ = stream.kill();
    let _ = stream.wait();
    // gRPC-Web over HTTP/1.1 for the unary calls.
    let web = Command::new(&buf)
        .args(["curl", "--protocol", "grpcweb", "-d", &table, &format!("{server}/dudo.v1.Lobby/GetTable")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&web.stdout);
    assert!(web.status.success() && text.contains(id), "{text}{}", String::from_utf8_lossy(&web.stderr));
}

/// Whether a process other than `except` whose command line contains `marker` runs (read
/// from /proc).
fn running_with(marker: &str, except: u32) -> bool {
    std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|entry| {
        entry.file_name().to_str() != Some(except.to_string().as_str())
            && std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).replace('\0', " ").contains(marker))
    })
}

/// An external bot runs in a process group of its own, out of reach of the terminal's
/// Ctrl-C: an interrupted arena kills it, and what its shell started, before it exits.
#[test]
fn an_interrupted_arena_leaves_no_bot_running() {
    for signal in ["-INT", "-TERM"] {
        // A bot that never joins, its sleep a child of its shell; the number marks it as
        // this test's.
        let seconds = 600 + std::process::id() % 300;
        let marker = format!("sleep {seconds}");
        let mut arena = Command::new(binary("dudo"))
            .args(["arena", "--bots", "random", "--games", "2", "--db", "none", "--external"])
            .arg(format!("slow={marker}; true"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        // The arena's own command line names it too.
        let bot_runs = || running_with(&marker, arena.id());
        while !bot_runs() && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(bot_runs(), "the bot never started");
        Command::new("kill").args([signal, &arena.id().to_string()]).status().unwrap();
        let status = arena.wait().unwrap();
        assert!(!status.success(), "{signal}: {status}");
        std::thread::sleep(Duration::from_millis(300));
        assert!(!running_with(&marker, 0), "{signal}: the bot outlived the arena");
    }
}
