//! The `dudo` command, offline: scripts, simulation, rules and a whole game of `dudo play`.

use std::io::Write;
use std::process::{Command, Stdio};

use dudo_tests::{binary, root};

fn dudo(args: &[&str]) -> std::process::Output {
    Command::new(binary("dudo")).args(args).current_dir(root()).output().expect("run dudo")
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
    assert!(text.contains("Round 4 - PALIFICO for Alice"), "{text}");
    assert!(text.contains("Roger wins the game!"), "{text}");
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
    let mut child = Command::new(binary("dudo"))
        .args(["script", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
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
    for name in dudo_rules_names() {
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

fn dudo_rules_names() -> [&'static str; 15] {
    [
        "fibbing",
        "perudo-jonti",
        "house",
        "openspiel",
        "wikipedia-classic",
        "west-coast",
        "snyd",
        "variable",
        "points",
        "points-quick",
        "points-full",
        "poker-dice",
        "stanford",
        "mexican",
        "mexican-two-dice",
    ]
}

#[test]
fn play_a_whole_game_against_bots_from_standard_input() {
    // Whatever is asked, answer in turn: challenge, open with one two, or let play go on.
    // Wrong answers are refused with a reason and asked again, never fatal.
    let answers = "dudo\n1 2s\n\n".repeat(2000);
    let mut child = Command::new(binary("dudo"))
        .args(["play", "--bots", "3", "--seed", "11", "--name", "Tester"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(answers.as_bytes()).ok());
    let out = child.wait_with_output().unwrap();
    writer.join().ok();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("wins the game!"), "{text}");
    assert!(text.contains("Tester rolls"), "{text}");
    // Only the human's own dice are ever shown while a round is on: no bot's roll.
    assert!(!text.contains("Alice rolls") || text.contains("Tester is out of the game"), "{text}");
}

#[test]
fn play_the_individual_hand_games_from_standard_input() {
    // One of these answers is always allowed: roll, claim (an undercall counts as "better"),
    // challenge, bark for the dog's life, accept a Mexican.
    let answers = "roll all\na pair\n211\nbetter\ndudo\nbark\naccept\n".repeat(3000);
    for preset in ["poker-dice", "stanford", "mexican", "mexican-two-dice"] {
        let mut child = Command::new(binary("dudo"))
            .args(["play", "--preset", preset, "--bots", "2", "--seed", "5", "--name", "Tester"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Write from another thread: the game's output fills its pipe while we feed it.
        let mut stdin = child.stdin.take().unwrap();
        let feed = answers.clone();
        let writer = std::thread::spawn(move || stdin.write_all(feed.as_bytes()).ok());
        let out = child.wait_with_output().unwrap();
        writer.join().ok();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{preset}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("wins the game!"), "{preset}: {}", &text[text.len().saturating_sub(3000)..]);
        assert!(text.contains("passes the cup"), "{preset}");
    }
}

#[test]
fn play_quits_cleanly_when_input_ends() {
    let mut child = Command::new(binary("dudo"))
        .args(["play", "--bots", "2", "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
}
