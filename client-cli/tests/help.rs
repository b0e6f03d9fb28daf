//! The `dudo` binary answers `--help` for every command. (Its presence also makes
//! `cargo test` build the binary that the end-to-end tests in `tests/` drive.)

use std::process::Command;

#[test]
fn every_command_has_help_with_an_example() {
    let dudo = env!("CARGO_BIN_EXE_dudo");
    for cmd in ["play", "rules", "script", "simulate"] {
        let out = Command::new(dudo).args([cmd, "--help"]).output().expect("run dudo");
        assert!(out.status.success(), "dudo {cmd} --help failed");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage: dudo"), "{text}");
    }
    let out = Command::new(dudo).arg("--help").output().expect("run dudo");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Examples:") && text.contains("dudo play --bots 3"), "{text}");
}
