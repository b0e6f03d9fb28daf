//! `dudo-server --help` works. (This file also makes `cargo test` build the binary that the
//! end-to-end tests in `tests/` start.)

#[test]
fn help_names_the_flags() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dudo-server")).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--listen") && text.contains("--log-format"), "{text}");
}
