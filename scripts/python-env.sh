#!/usr/bin/env bash
# Makes the Python environment the end-to-end tests use for a client in another language:
# a virtualenv with grpcio and grpcio-tools, under the target directory. Prints its python.
# Safe to run again: a marker file skips the install when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="$target/python-venv"
marker="$venv/.dudo-installed-grpcio-1.85.1"
if [ ! -f "$marker" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "grpcio==1.85.1" "grpcio-tools==1.85.1" >&2
  touch "$marker"
fi
echo "$venv/bin/python"
