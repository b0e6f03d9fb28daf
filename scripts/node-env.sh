#!/usr/bin/env bash
# Installs the Node.js example bot's packages (npm ci, from its lock file) for the end-to-end
# test that runs it against a real server. Prints the node to run it with. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v node >/dev/null || { echo "no node on PATH" >&2; exit 1; }
bash "$root/scripts/npm-ci.sh" "$root/bot-sdk/examples/node"
command -v node
