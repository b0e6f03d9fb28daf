#!/usr/bin/env bash
# Installs the npm packages of DIR (a folder of this repository with a package-lock.json) with
# `npm ci`, unless a marker named after its lock file says they already are. Used by
# node-env.sh and buf-env.sh. Its output goes to standard error.
set -euo pipefail
dir="$1"
command -v npm >/dev/null || { echo "no npm on PATH" >&2; exit 1; }
lock="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
marker="$dir/node_modules/.dudo-installed-$lock"
if [ ! -f "$marker" ]; then
  (cd "$dir" && npm ci --silent --no-audit --no-fund) >&2
  touch "$marker"
fi
