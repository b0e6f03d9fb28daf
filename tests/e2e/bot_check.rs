//! The bot check (`dudo bot check`) on a real server run with `--require-bot-check`: the
//! SDK's bot and the Python example pass, and entering the ladder or a tournament waits for
//! a pass; bots that make an illegal bid, never answer call windows, ignore the game's end
//! answer after the clock or stop at a clock warning each fail, their report naming the
//! fault; the report names the kinds of prompt the bot met.

use std::process::Command;

use dudo_client::Client;
use dudo_tests::{binary, python, root, start_server};

/// A pool where anyone may challenge out of turn: every claim opens a call window for the
/// seats whose turn it is not, so every check meets one.
const POOLS: &str = r#"
[[pool]]
name = "calls"
preset = "fibbing"
seats = 3
settings = { "challenges.who" = "anyone" }
"#;

struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `dudo bot check` as the account whose API token is `token`, with `DUDO_FAULT=fault` for
/// the misbehaving bot: whether it passed, and what it printed.
fn check(server: &str, token: &str, bot: &[&str], fault: &str, home: &std::path::Path) -> (bool, String) {
    let out = Command::new(binary("dudo"))
        .args(["bot", "check", "--server", server])
        .args(bot)
        .env("HOME", home)
        .env("DUDO_API_TOKEN", token)
        .env("DUDO_FAULT", fault)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bot_check_passes_good_bots_names_each_fault_and_gates_ranked_play() {
    let scratch = Scratch(std::env::temp_dir().join(format!("dudo-botcheck-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).unwrap();
    let pools = scratch.0.join("pools.toml");
    std::fs::write(&pools, POOLS).unwrap();
    let db = scratch.0.join("dudo.db").display().to_string();
    let pools_arg = pools.display().to_string();
    let server = start_server(
        &binary("dudo-server"),
        &["--db", &db, "--ladder", &pools_arg, "--require-bot-check", "30"],
    )
    .unwrap();
    let client = Client::connect(&server.addr).await.unwrap();
    let token = |name: &'static str| {
        let client = client.clone();
        async move { client.register(name, true, "t").await.unwrap().token.unwrap().token }
    };
    // Not checked yet: the ladder waits for a pass.
    let sdk = token("sdk").await;
    let as_sdk = client.clone().with_account(Some(sdk.clone()));
    let e = as_sdk.enter("calls", 1, 0).await.unwrap_err();
    assert!(e.to_string().contains("bot check"), "{e}");
    let (passed, text) = check(&server.addr, &sdk, &["--builtin", "odds"], "", &scratch.0);
    assert!(passed && text.contains("passed: the bot did nothing wrong"), "{text}");
    // Every claim opens a call window here, and the first step warns the bot's clock.
    let met = text.lines().find(|l| l.starts_with("prompts it met:")).unwrap_or_default();
    for kind in ["opening bid", "dudo", "call window", "clock warning"] {
        assert!(met.contains(kind), "{kind} not met: {text}");
    }
    assert!(text.contains("actions it played: ") && text.contains("bid"), "{text}");
    assert!(as_sdk.enter("calls", 1, 0).await.is_ok(), "a pass opens the ladder");
    // A program that registers as a person is asked for the same check in a pool bots may
    // enter: the requirement does not hang on the kind an account declares.
    let posing = client.register("posing", false, "t").await.unwrap().token.unwrap().token;
    let as_person = client.clone().with_account(Some(posing.clone()));
    let e = as_person.enter("calls", 1, 0).await.unwrap_err();
    assert_eq!(e.refusal_code(), Some("bot_check_required"), "{e}");
    let (passed, text) = check(&server.addr, &posing, &["--builtin", "odds"], "", &scratch.0);
    assert!(passed, "{text}");
    assert!(as_person.enter("calls", 1, 0).await.is_ok(), "a pass opens the ladder to it too");
    let python = match python() {
        Ok(p) => p,
        Err(why) => {
            dudo_tests::skipped(
                "bot_check::the_bot_check_passes_good_bots_names_each_fault_and_gates_ranked_play",
                &why,
            );
            return;
        }
    };
    // The Python example, and a bot for each fault, checked side by side.
    let example = format!("{python} {}", root().join("bot-sdk/examples/python/bot.py").display());
    let faulty = format!("{python} {}", root().join("tests/python/misbehaving_bot.py").display());
    let cases = [
        ("py", example.as_str(), "", None),
        ("illegal", faulty.as_str(), "illegal", Some("illegal move(s), refused as face_out_of_range")),
        ("quiet", faulty.as_str(), "no_calls", Some("call window(s) lapsed without its answer")),
        ("endless", faulty.as_str(), "ignores_end", Some("still open 3 s after game_over")),
        ("slow", faulty.as_str(), "slow", Some("refused as stale_prompt")),
        ("warned", faulty.as_str(), "warning", Some("it left its seat (after a clock warning")),
    ];
    let mut runs = Vec::new();
    for (name, bot, fault, expect) in cases {
        let token = token(name).await;
        let (addr, home, bot) = (server.addr.clone(), scratch.0.clone(), bot.to_string());
        let run = std::thread::spawn(move || check(&addr, &token, &["--bot", &bot], fault, &home));
        runs.push((name, expect, run));
    }
    for (name, expect, run) in runs {
        let (passed, text) = run.join().unwrap();
        match expect {
            None => assert!(passed && text.contains("passed"), "{name}: {text}"),
            Some(fault) => assert!(!passed && text.contains(fault), "{name}: expected {fault:?} in {text}"),
        }
    }
}
