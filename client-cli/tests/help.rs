//! `dudo --help` and every command's `--help` match the snapshots in `tests/help/`, and
//! every one of them shows an example. After changing the help on purpose, refresh the
//! snapshots with `DUDO_BLESS=1 cargo test -p dudo-cli --test help` and read the diff.
//! (This test also makes `cargo test` build the binary that the end-to-end tests drive.)

use std::path::PathBuf;
use std::process::Command;

const COMMANDS: &[&[&str]] = &[
    &[],
    &["play"],
    &["create"],
    &["join"],
    &["list"],
    &["watch"],
    &["host"],
    &["host", "settings"],
    &["host", "add-bot"],
    &["host", "start"],
    &["host", "remove"],
    &["host", "reset"],
    &["host", "who"],
    &["leave"],
    &["rules"],
    &["script"],
    &["simulate"],
    &["arena"],
    &["tournament"],
    &["tournament", "verify"],
    &["history"],
    &["replay"],
    &["ratings"],
    &["completions"],
];

#[test]
fn every_command_has_help_with_an_example_and_matches_its_snapshot() {
    let dudo = env!("CARGO_BIN_EXE_dudo");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/help");
    let bless = std::env::var_os("DUDO_BLESS").is_some();
    let mut stale = Vec::new();
    for args in COMMANDS {
        let out = Command::new(dudo)
            .args(*args)
            .arg("--help")
            // The help shows environment values; the snapshot is of a clean environment.
            .env_remove("DUDO_SERVER")
            .env("COLUMNS", "100")
            .output()
            .expect("run dudo");
        assert!(out.status.success(), "dudo {args:?} --help failed");
        let text = String::from_utf8(out.stdout).expect("help is UTF-8");
        assert!(text.contains("Usage: dudo"), "{text}");
        // Subcommands of `host` show their example in the parent's help.
        if args.len() < 2 {
            assert!(text.contains("Example"), "dudo {args:?} --help has no example:\n{text}");
        }
        let name = if args.is_empty() { "dudo".to_string() } else { format!("dudo-{}", args.join("-")) };
        let path = dir.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&dir).expect("make the snapshot directory");
            std::fs::write(&path, &text).expect("write the snapshot");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(format!("{}:\n{text}", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "help differs from its snapshot (DUDO_BLESS=1 to accept):\n{}",
        stale.join("\n")
    );
}
