#!/usr/bin/env bash
# Installs the Node.js example bot's packages (npm ci, from its lock file) for the end-to-end
# test that runs it against a real server. Prints the node to run it with. Safe to run again:
# a marker named after the lock file skips the install when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/bot-sdk/examples/node"
command -v node >/dev/null || { echo "no node on PATH" >&2; exit 1; }
command -v npm >/dev/null || { echo "no npm on PATH" >&2; exit 1; }
lock="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
marker="$dir/node_modules/.dudo-installed-$lock"
if [ ! -f "$marker" ]; then
  (cd "$dir" && npm ci --silent --no-audit --no-fund) >&2
  touch "$marker"
fi
command -v node
