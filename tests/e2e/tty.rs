//! `dudo` in a pseudo-terminal, as a person uses it: line editing and tab completion on,
//! whole games against bots on the embedded server and on a separately started
//! `dudo-server`, two people at one table, a spectator, and the host's commands.

use std::process::Command;
use std::time::{Duration, Instant};

use dudo_tests::{binary, start_server};
use rexpect::reader::{Options, ReadUntil};
use rexpect::session::PtySession;

/// `dudo ARGS` in a pty, plain (no colour, no glyphs) so the text can be matched, with its
/// remembered seats in `home`.
fn dudo_tty(args: &[&str], home: &std::path::Path, timeout_ms: u64) -> PtySession {
    let mut command = Command::new(binary("dudo"));
    command
        .args(args)
        .env("NO_COLOR", "1")
        .env("DUDO_ASCII", "1")
        .env("DUDO_HOME", home)
        .env("TERM", "xterm");
    rexpect::session::spawn_with_options(
        command,
        Options::new().timeout_ms(Some(timeout_ms)).strip_ansi_escape_codes(true),
    )
    .expect("spawn dudo in a pty")
}

/// Waits up to `secs` for `needle` in a session whose own timeout is short (so that two
/// sessions can be read in turn); returns what came before it and the match.
fn wait_for(p: &mut PtySession, needle: Needle, secs: u64) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let until = match needle {
            Needle::Text(t) => ReadUntil::String(t.into()),
            Needle::Regex(r) => ReadUntil::Regex(regex::Regex::new(r).unwrap()),
            Needle::Eof => ReadUntil::EOF,
        };
        match p.exp_any(vec![until]) {
            Ok(found) => return found,
            Err(rexpect::error::Error::Timeout { .. }) if Instant::now() < deadline => {}
            Err(e) => panic!("waiting for {needle:?}: {e}"),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Needle {
    Text(&'static str),
    Regex(&'static str),
    Eof,
}

fn text(s: &'static str) -> Needle {
    Needle::Text(s)
}

fn temp_home(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dudo-tty-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A call that is legal now, read off the hint line printed before "Your call": challenge
/// when allowed, else the least bid on the first face offered.
fn pick_call(before: &str) -> String {
    let hint = before.lines().rev().find(|l| l.contains("You may call")).unwrap_or_default();
    let calls = hint.split(": ").nth(1).unwrap_or_default();
    if calls.split(", ").any(|c| c.trim() == "dudo") {
        return "dudo".into();
    }
    calls.split(", ").next().unwrap_or("1 2s").trim().to_string()
}

const YOUR_CALL: &str = "Your call";
const GAME_OVER: &str = "wins the game!";

/// Answers every turn in `p` until the game ends; returns what was shown.
fn play_to_the_end(p: &mut PtySession) -> String {
    let mut transcript = String::new();
    loop {
        let (before, found) = p
            .exp_any(vec![ReadUntil::String(YOUR_CALL.into()), ReadUntil::String(GAME_OVER.into())])
            .unwrap_or_else(|e| panic!("{e}\n--- so far ---\n{transcript}"));
        transcript.push_str(&before);
        transcript.push_str(&found);
        if found == GAME_OVER {
            return transcript;
        }
        p.send_line(&pick_call(&before)).unwrap();
    }
}

#[test]
fn a_whole_game_in_a_terminal_on_the_embedded_server() {
    let home = temp_home("embedded");
    let mut p = dudo_tty(
        &["play", "--bots", "2", "--seed", "7", "--bot-think-ms", "0", "--name", "Ana"],
        &home,
        20_000,
    );
    let (before, _) = p.exp_string(YOUR_CALL).map(|b| (b, ())).unwrap();
    assert!(before.contains("Your dice:"), "{before}");
    assert!(before.contains("Ana (you)"), "{before}");
    // Wrong input says what is wrong and asks again; it never ends the program.
    p.send_line("banana").unwrap();
    p.exp_string("cannot read \"banana\" as a call").unwrap();
    // A call that reads but breaks a rule is refused by the server, naming the rule.
    p.send_line("7 sevens").unwrap();
    p.exp_string("Not allowed: faces run from 1 to 6").unwrap();
    p.send_line("help").unwrap();
    p.exp_string("Tab completes").unwrap();
    p.send_line("odds").unwrap();
    p.exp_regex(r"\d+% true").unwrap();
    p.send_line("status").unwrap();
    p.exp_regex(r"Round \d+ - ").unwrap();
    // Tab completes a legal call: "du" + Tab is "dudo" when a challenge is allowed, and the
    // least bid on twos ("1 2s" or more) otherwise.
    let call = pick_call(&before);
    if call == "dudo" {
        p.send("du\t").unwrap();
        p.send_line("").unwrap();
        p.exp_string("calls Dudo").unwrap();
    } else {
        p.send_line(&call).unwrap();
        p.exp_string("Ana (you) bids").unwrap();
    }
    let transcript = play_to_the_end(&mut p);
    assert!(transcript.contains("Cups up:") && transcript.contains("counted"), "{transcript}");
    // Only Ana's own dice are shown while she plays: no bot's roll until she is out (fibbing
    // lets the eliminated see every cup).
    let playing = transcript.split("Ana (you) is out of the game").next().unwrap_or_default();
    assert!(!playing.contains("(odds bot) rolls"), "{transcript}");
    p.exp_string("`again` plays another game").unwrap();
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

#[test]
fn every_spoken_form_of_a_call_is_read_at_the_table() {
    // Stanford's cup calls, and the common-hand calls in a house game with pushes and
    // passes: each one is either played or refused by a rule, never misunderstood.
    let home = temp_home("forms");
    let mut p = dudo_tty(
        &["play", "--preset", "house", "--bots", "1", "--seed", "3", "--bot-think-ms", "0", "--name", "Ana"],
        &home,
        20_000,
    );
    p.exp_string(YOUR_CALL).unwrap();
    for form in ["3 5s", "three fives", "3x5", "push 5 5", "push 5 then 9 5s", "dudo", "calza", "pass"] {
        p.send_line(form).unwrap();
        let (before, found) = p
            .exp_any(vec![
                ReadUntil::String("Not allowed".into()),
                ReadUntil::String("Ana (you) ".into()),
                ReadUntil::String("It is not your turn".into()),
            ])
            .unwrap();
        assert!(!before.contains("cannot read"), "{form}: {before}");
        // A form that was played moves the game on: wait for the next turn before the next form.
        if found == "Ana (you) " {
            let (_, found) = p
                .exp_any(vec![ReadUntil::String(YOUR_CALL.into()), ReadUntil::String(GAME_OVER.into())])
                .unwrap();
            if found == GAME_OVER {
                break;
            }
        }
    }
    p.send_line("quit").unwrap();
    p.exp_eof().unwrap();
}

/// Reads from whichever of the sessions has something, answering turns, until one of them
/// shows the end of the game.
fn play_both(players: &mut [&mut PtySession]) -> Vec<String> {
    let mut transcripts = vec![String::new(); players.len()];
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "no end of game:\n{}", transcripts.join("\n=====\n"));
        for (i, p) in players.iter_mut().enumerate() {
            // A short wait on each; a timeout leaves what was read in the session's buffer.
            match p.exp_any(vec![ReadUntil::String(YOUR_CALL.into()), ReadUntil::String(GAME_OVER.into())]) {
                Ok((before, found)) => {
                    transcripts[i].push_str(&before);
                    transcripts[i].push_str(&found);
                    if found == GAME_OVER {
                        return transcripts;
                    }
                    p.send_line(&pick_call(&before)).unwrap();
                }
                Err(rexpect::error::Error::Timeout { .. }) => {}
                Err(e) => panic!("{e}\n{}", transcripts.join("\n=====\n")),
            }
        }
    }
}

#[test]
fn friends_at_a_separate_server_create_join_host_watch_and_play() {
    let server = start_server(&binary("dudo-server"), &[]).unwrap();
    let addr = server.addr.clone();
    let home = temp_home("friends");
    let mut host = dudo_tty(
        &[
            "create",
            "--server",
            &addr,
            "--seats",
            "3",
            "--name",
            "Hana",
            "--bot-think-ms",
            "0",
            "--seed",
            "9",
        ],
        &home,
        300,
    );
    let (_, code) = wait_for(&mut host, Needle::Regex(r"Join code: [A-Z]{6}"), 20);
    let code = code.trim_start_matches("Join code: ").to_string();
    wait_for(&mut host, text("You are the host"), 20);

    // Another person, in another terminal (with their own remembered seats), finds and joins it.
    let guest_home = temp_home("friends-guest");
    let list = Command::new(binary("dudo")).args(["list", "--server", &addr]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&list.stdout).contains(&code),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
    let mut guest = dudo_tty(&["join", &code, "--server", &addr, "--name", "Gus"], &guest_home, 300);
    wait_for(&mut guest, text("Waiting for the host"), 20);
    wait_for(&mut host, text("Gus sits down"), 20);

    // The host's commands from a second terminal find the host's seat by the join code.
    let host_cmd = |args: &[&str]| {
        let out = Command::new(binary("dudo"))
            .args(["host", "--server", &addr, "--table", &code])
            .args(args)
            .env("DUDO_HOME", &home)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    host_cmd(&["settings", "dice.start=3", "dice.max=3"]);
    host_cmd(&["add-bot", "random"]);
    wait_for(&mut host, text("(random bot) sits down"), 20);
    // A guest holds no host seat: refused with a reason.
    let refused = Command::new(binary("dudo"))
        .args(["host", "--server", &addr, "--table", &code, "start"])
        .env("DUDO_HOME", &guest_home)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("host"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    // A spectator follows from a pipe: public events only, and it stops at the end.
    let watcher = Command::new(binary("dudo"))
        .args(["watch", &code, "--server", &addr])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();

    host.send_line("start").unwrap();
    let transcripts = play_both(&mut [&mut host, &mut guest]);
    assert!(transcripts.iter().any(|t| t.contains("Cups up:")), "{transcripts:?}");
    let watched = watcher.wait_with_output().unwrap();
    let watched = String::from_utf8_lossy(&watched.stdout);
    assert!(watched.contains(GAME_OVER), "{watched}");
    assert!(!watched.contains("Your dice"), "{watched}");
    assert!(!watched.contains(" rolls "), "a spectator saw a roll:\n{watched}");
    for p in [&mut host, &mut guest] {
        p.send_line("quit").unwrap();
        wait_for(p, Needle::Eof, 20);
    }
    let mut child = server.child;
    let _ = child.kill();
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(binary("dudo")).args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("join") && text.contains("--server"), "{shell}: {text}");
    }
}
