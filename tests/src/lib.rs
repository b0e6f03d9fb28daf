//! Helpers shared by the end-to-end tests in `tests/e2e/`.
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// The path of a workspace binary (`dudo`, `dudo-server`) built next to this test.
///
/// `cargo test --workspace` builds them because their packages have integration tests;
/// this finds them in the same target directory as the running test executable.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/debug/deps/e2e-HASH -> target/debug/NAME
    let dir = exe.parent().and_then(|deps| deps.parent()).map(PathBuf::from).unwrap_or_default();
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is not built; run the tests with `cargo test --workspace`", path.display());
    path
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}
