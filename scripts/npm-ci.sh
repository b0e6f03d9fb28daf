#!/usr/bin/env bash
# Installs the npm packages of DIR (a folder of this repository with a package-lock.json) with
# `npm ci`, unless a marker named after its lock file says they already are. Used by
# node-env.sh, buf-env.sh and browser-env.sh. Its output goes to standard error.
#
# Tests run in parallel and each may call this: `npm ci` first deletes node_modules, so a
# second caller must wait for the first rather than read a half-made folder. A lock file
# beside the lock (flock) makes them take turns, and the marker is checked again inside it.
set -euo pipefail
dir="$1"
command -v npm >/dev/null || { echo "no npm on PATH" >&2; exit 1; }
lock="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
marker="$dir/node_modules/.dudo-installed-$lock"
[ -f "$marker" ] && exit 0
exec 9>"$dir/.npm-ci.lock"
flock 9
if [ ! -f "$marker" ]; then
  (cd "$dir" && npm ci --silent --no-audit --no-fund) >&2
  touch "$marker"
fi
