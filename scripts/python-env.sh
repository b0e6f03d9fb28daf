#!/usr/bin/env bash
# Makes the Python environment the end-to-end tests use for a client in another language:
# a virtualenv with grpcio and grpcio-tools, under the target directory. Prints its python.
# Safe to run again: a marker file skips the install when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/venv.sh"
venv python-venv "grpcio==1.85.1" "grpcio-tools==1.85.1"
echo "$venv/bin/python"
