#!/usr/bin/env bash
# Installs buf (npm's @bufbuild/buf, pinned by tests/tools/package-lock.json) for the test that
# runs the docs' `buf curl` session against a real server. Prints the buf to run. Safe to run
# again: a marker named after the lock file skips the install when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/tests/tools"
command -v npm >/dev/null || { echo "no npm on PATH" >&2; exit 1; }
lock="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
marker="$dir/node_modules/.dudo-installed-$lock"
if [ ! -f "$marker" ]; then
  (cd "$dir" && npm ci --silent --no-audit --no-fund) >&2
  touch "$marker"
fi
echo "$dir/node_modules/.bin/buf"
