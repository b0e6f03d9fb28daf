//! The Python package's own tests (python/tests/*.py, pytest), run by
//! `scripts/python-package.sh`, which builds the package with maturin and installs what the
//! tests need from PyPI. Without Python they say so and skip, unless `DUDO_REQUIRE_PYTHON=1`
//! (CI) makes that a failure.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_python_package_passes_its_tests() {
    let python = Command::new("python3").arg("--version").output();
    if !python.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var("DUDO_REQUIRE_PYTHON").is_err(),
            "Python is required (DUDO_REQUIRE_PYTHON) but python3 does not run"
        );
        // Past libtest's capture of a passing test's eprintln!, so the run shows it.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "\nnote: the_python_package_passes_its_tests SKIPPED: no python3 on PATH"
        );
        return;
    }
    // `cargo test --workspace` builds the dudo command and the server next to this test
    // (target/PROFILE/deps/package-HASH -> target/PROFILE): the scripts' test compares with
    // the one, and the trained bot plays the ladder on the other.
    let exe = std::env::current_exe().unwrap_or_default();
    let bins = exe.parent().and_then(|deps| deps.parent()).map(PathBuf::from).unwrap_or_default();
    let dudo = bins.join("dudo");
    let server = bins.join("dudo-server");
    let mut run = Command::new("bash");
    run.arg(root().join("scripts/python-package.sh"));
    if dudo.exists() && server.exists() {
        run.env("DUDO_BIN", &dudo).env("DUDO_SERVER_BIN", &server);
    }
    let out = run.output();
    let Ok(out) = out else { panic!("cannot run bash scripts/python-package.sh") };
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{report}");
    assert!(out.status.success(), "the Python package's tests failed:\n{report}");
    assert!(!report.contains(" skipped") || !dudo.exists(), "a package test skipped:\n{report}");
}
