"""The package's tests. `scripts/python-package.sh` builds the package and runs them; the
workspace's `cargo test` runs that script (python/tests/package.rs)."""
