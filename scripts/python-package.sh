#!/usr/bin/env bash
# Builds the Python package (python/, `import dudo`) with maturin into a virtualenv under the
# target directory, with what its tests need from PyPI (maturin, numpy, pettingzoo, gymnasium,
# open_spiel, pytest, and grpcio for the trained bot that plays a server's ladder), and runs its tests; arguments go to pytest. Prints pytest's report.
# Safe to run again: the install is made once (scripts/venv.sh), and cargo rebuilds only what
# changed. The workspace's `cargo test` runs it (python/tests/package.rs).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/venv.sh"
venv python-package-venv "maturin==1.16.0" "numpy==2.4.6" "pettingzoo==1.27.0" "gymnasium==1.4.0" \
  "open_spiel==2.0.2" "pytest==9.2.0" "grpcio==1.85.1" "grpcio-tools==1.85.1"
# The profile pyproject.toml names, as `pip install ./python` builds it.
VIRTUAL_ENV="$venv" "$venv/bin/maturin" develop --quiet -m "$root/python/Cargo.toml" >&2
cd "$root/python"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
