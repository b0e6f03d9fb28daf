#!/usr/bin/env bash
# Builds the Python package (python/, `import dudo`) with maturin into a virtualenv under the
# target directory, with what its tests need from PyPI (maturin, numpy, pettingzoo, gymnasium,
# open_spiel, pytest), and runs its tests; arguments go to pytest. Prints pytest's report.
# Safe to run again: a marker file skips the install when nothing changed, and cargo rebuilds
# only what changed. The workspace's `cargo test` runs it (python/tests/package.rs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/python-package-venv"
marker="$venv/.dudo-installed-1"
if [ ! -f "$marker" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin==1.16.0" "numpy==2.4.6" "pettingzoo==1.27.0" "gymnasium==1.4.0" \
    "open_spiel==2.0.2" "pytest==9.2.0" >&2
  touch "$marker"
fi
# The release profile, as `pip install ./python` builds it: the package's speed is the engine's.
VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --release --quiet -m "$root/python/Cargo.toml" >&2
cd "$root/python"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
