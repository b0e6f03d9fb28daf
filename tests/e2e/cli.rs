//! The `dudo` command, offline: scripts, simulation, rules and a whole game of `dudo play`.

use std::io::Write;
use std::process::{Command, Stdio};

use dudo_tests::{binary, root};

fn dudo(args: &[&str]) -> std::process::Output {
    // Nothing a test plays is kept in the user's own database.
    Command::new(binary("dudo"))
        .args(args)
        .env("DUDO_DB", "none")
        .current_dir(root())
        .output()
        .expect("run dudo")
}

/// Runs `dudo ARGS` with `input` on standard input, written from another thread so that a
/// chatty game cannot fill its output pipe while we are still feeding it.
fn dudo_with_input(args: &[&str], input: String) -> std::process::Output {
    let mut child = Command::new(binary("dudo"))
        .args(args)
        .env("DUDO_DB", "none")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dudo");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).ok());
    // A game that stops asking must fail the test, not hang it.
    let pid = child.id().to_string();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(std::time::Duration::from_secs(120)).is_err() {
            let _ = Command::new("kill").args(["-9", &pid]).status();
        }
    });
    let out = child.wait_with_output().expect("dudo output");
    let _ = done.send(());
    watchdog.join().ok();
    writer.join().ok();
    out
}

#[test]
fn script_prints_the_worked_example_exactly() {
    let out = dudo(&["script", "examples/scripts/fibbing-example.json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected =
        std::fs::read_to_string(root().join("examples/scripts/fibbing-example.expected.jsonl")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    let text = dudo(&["script", "examples/scripts/fibbing-example.json", "--format", "text"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Round 4: a palifico round for Alice"), "{text}");
    assert!(text.contains("Roger wins the game!"), "{text}");
    // Each roll is said once (not the owner's sight and then the truth), and an exact call
    // says whose bid it is on.
    assert_eq!(text.matches("Bob rolls 2 4 6 6\n").count(), 1, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.windows(2).all(|w| w[0] != w[1] || !w[0].contains(" rolls ")), "{text}");
    assert!(text.contains("Roger calls Calza on Bob's bid of 1 one"), "{text}");
    // The browser's front page replays the example from its record, as the engine plays it now.
    let replay = dudo(&["script", "examples/scripts/fibbing-example.json", "--format", "replay"]);
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let kept = std::fs::read(root().join("web/src/example/fibbing-example.replay")).unwrap();
    assert!(
        replay.stdout == kept,
        "web/src/example/fibbing-example.replay is not what the engine plays: run `dudo script examples/scripts/fibbing-example.json --format replay > web/src/example/fibbing-example.replay`, then scripts/web-build.sh"
    );
}

#[test]
fn a_script_that_stops_says_why_in_every_format() {
    let script = r#"{"rules":"fibbing","players":["a","b"],"rounds":[{"actions":["a: dudo"]}]}"#;
    for format in ["json", "text", "replay"] {
        let out = dudo_with_input(&["script", "-", "--format", format], script.to_string());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.starts_with("dudo script: "), "{format}: {err}");
    }
}

#[test]
fn mistakes_on_the_command_line_are_named_as_typed() {
    // clap suggests the closest flag: the number of bots, not their kind.
    let out = dudo(&["play", "--bost", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("'--bots'"), "{err}");
    // A setting that is not one is named as it was given, not as "rules".
    let out = dudo(&["simulate", "--rule", "dice.face=8", "--games", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("`dice.face`") && !err.contains("field `rules`"), "{err}");
    // A server that does not answer: each cause said once.
    let out = dudo(&["list", "--server", "127.0.0.1:1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach the dudo server at 127.0.0.1:1"), "{err}");
    for repeated in ["transport error: transport error", "tcp connect error: tcp connect error"] {
        assert!(!err.contains(repeated), "{err}");
    }
}

#[test]
fn the_help_and_listings_name_bots_and_sources_in_words() {
    let rules = String::from_utf8_lossy(&dudo(&["rules"]).stdout).to_string();
    assert!(!rules.contains("seed 0"), "{rules}");
    assert!(rules.contains("the Fibbing Dice manual") && rules.contains("the house rules"), "{rules}");
    for command in ["play", "simulate", "arena"] {
        let help = String::from_utf8_lossy(&dudo(&[command, "--help"]).stdout).to_string();
        assert!(help.contains("reader"), "{command}: {help}");
    }
}

#[test]
fn simulate_seats_as_many_players_as_the_preset_allows() {
    let out = dudo(&["simulate", "--preset", "openspiel", "--games", "20", "--seed", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains(", 2 players, 20 games"));
}

#[test]
fn every_example_script_plays_to_its_end() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("examples/scripts")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let out = dudo(&["script", path.to_str().unwrap(), "--format", "text"]);
            assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
            seen += 1;
        }
    }
    // One per preset family at least: fibbing, house, perudo-jonti, openspiel, classic,
    // west coast, snyd, variable, points.
    assert!(seen >= 9, "{seen}");
}

#[test]
fn a_rule_set_printed_as_toml_reads_back_from_a_file() {
    for preset in ["house", "points", "snyd"] {
        let toml = dudo(&["rules", preset]);
        let path = std::env::temp_dir().join(format!("dudo-e2e-{preset}-{}.toml", std::process::id()));
        std::fs::write(&path, &toml.stdout).unwrap();
        let players = if preset == "points" { "4" } else { "3" };
        let out = dudo(&[
            "simulate",
            "--rules-file",
            path.to_str().unwrap(),
            "--players",
            players,
            "--games",
            "20",
        ]);
        std::fs::remove_file(&path).ok();
        assert!(out.status.success(), "{preset}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(preset));
    }
    let bad = dudo(&["simulate", "--rules-file", "/nonexistent.toml"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/nonexistent.toml"));
}

#[test]
fn an_illegal_call_stops_the_script_with_its_rule() {
    let script = r#"{"rules": "fibbing", "players": ["Ann", "Ben"], "roll_off": [{"Ann": 6, "Ben": 1}],
        "rounds": [{"actions": ["Ann: three fours", "Ben: two fours"]}]}"#;
    let out = dudo_with_input(&["script", "-"], script.to_string());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("round 1, call 2") && err.contains("does not raise"), "{err}");
    // Everything up to the refused call was printed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("bid_made"));
}

#[test]
fn simulate_reports_wins_that_add_up() {
    let out = dudo(&[
        "simulate",
        "--preset",
        "fibbing",
        "--players",
        "4",
        "--games",
        "200",
        "--bot",
        "odds,random",
        "--seed",
        "7",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("games/s"), "{text}");
    let wins: u64 = text
        .lines()
        .filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<usize>().is_ok()))
        .map(|l| l.split_whitespace().nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(wins, 200, "{text}");
    // The same seed plays the same games, whatever the thread count.
    let again = dudo(&[
        "simulate",
        "--preset",
        "fibbing",
        "--players",
        "4",
        "--games",
        "200",
        "--bot",
        "odds,random",
        "--seed",
        "7",
        "--threads",
        "1",
    ]);
    let table = |t: &str| t.lines().skip(2).map(String::from).collect::<Vec<_>>();
    assert_eq!(table(&text), table(&String::from_utf8_lossy(&again.stdout)));
}

#[test]
fn rules_lists_presets_and_prints_one_that_reads_back() {
    let out = dudo(&["rules"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for name in dudo_rules::presets::NAMES {
        assert!(text.contains(name), "{text}");
    }
    let json = dudo(&["rules", "house", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["name"], "house");
    assert_eq!(value["push"]["dice"], "any_dice");
    let bad = dudo(&["rules", "nope"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("the presets are"));
}

#[test]
fn play_a_whole_game_against_bots_from_standard_input() {
    // Whatever is asked, answer in turn: challenge, open with one two, or let play go on.
    // Wrong answers are refused with a reason and asked again, never fatal.
    let answers = "dudo\n1 2s\n\n".repeat(2000);
    let out = dudo_with_input(
        &["play", "--bots", "3", "--seed", "11", "--name", "Tester", "--bot-think-ms", "0"],
        answers,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("wins the game!"), "{text}");
    assert!(text.contains("Your dice:"), "{text}");
    // Only the human's own dice are shown while they play: no bot's roll until they are out
    // (fibbing lets the eliminated see every cup).
    let playing = text.split("Tester is out of the game").next().unwrap_or_default();
    assert!(!playing.contains("(odds bot) rolls"), "{text}");
}

#[test]
fn play_the_individual_hand_games_from_standard_input() {
    // One of these answers is always allowed: roll, claim (an undercall counts as "better"),
    // challenge, bark for the dog's life, accept a Mexican.
    let answers = "roll all\na pair\n211\nbetter\ndudo\nbark\naccept\n".repeat(3000);
    for preset in ["poker-dice", "stanford", "mexican", "mexican-two-dice"] {
        let out = dudo_with_input(
            &[
                "play",
                "--preset",
                preset,
                "--bots",
                "2",
                "--seed",
                "5",
                "--name",
                "Tester",
                "--bot-think-ms",
                "0",
            ],
            answers.clone(),
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{preset}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("wins the game!"), "{preset}: {}", &text[text.len().saturating_sub(3000)..]);
        assert!(text.contains("passes the cup"), "{preset}");
    }
}

#[test]
fn play_quits_cleanly_when_input_ends() {
    let out = dudo_with_input(&["play", "--bots", "2", "--seed", "3"], String::new());
    assert!(out.status.success());
}

/// An external arena bot that dies before taking its seat is said at once, with its exit
/// status, not after the 30 s the arena waits for a bot to join.
#[test]
fn an_external_bot_that_dies_is_reported_at_once() {
    let started = std::time::Instant::now();
    let out = dudo(&["arena", "--bots", "odds", "--external", "bad=exit 3", "--games", "2"]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(text.contains("exited with exit status: 3"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}", started.elapsed());
}

/// Every listing, piped into a reader that has already gone (`dudo leaderboard POOL | head
/// -n 1`), ends quietly: no panic, no message, the status of a closed pipe or success.
#[test]
fn listings_into_a_closed_pipe_end_quietly() {
    let home = std::env::temp_dir().join(format!("dudo-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    let db = home.join("server.db");
    let server = dudo_tests::start_server(&binary("dudo-server"), &["--db", db.to_str().unwrap()]).unwrap();
    let addr = server.addr.as_str();
    let listings: [&[&str]; 9] = [
        &["rules"],
        &["rules", "house"],
        &["completions", "bash"],
        &["simulate", "--games", "200"],
        &["list", "--server", addr],
        &["ladder", "--server", addr],
        &["leaderboard", "--server", addr],
        &["history", "--server", addr],
        &["ratings", "--server", addr],
    ];
    for args in listings {
        let mut child = Command::new(binary("dudo"))
            .args(args)
            .env("DUDO_HOME", &home)
            .env("DUDO_DB", "none")
            .env_remove("DUDO_API_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run dudo");
        // The reader goes before a line is written.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("dudo output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "dudo {args:?} panicked: {stderr}");
        assert!(
            out.status.success() || out.status.code() == Some(141),
            "dudo {args:?}: {:?} {stderr}",
            out.status
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(&home);
}
