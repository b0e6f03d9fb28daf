#!/usr/bin/env bash
# Builds the browser table from web/ into web/dist (which the server embeds), with web/'s
# locked npm packages: the TypeScript generated from proto/, the type check, the bundle.
# With --check, builds into a scratch folder and fails if web/dist differs (CI runs this, so
# the page the server embeds is always the one web/ makes). Its output goes to standard error.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
web="$root/web"
bash "$root/scripts/npm-ci.sh" "$web"
cd "$web"
./node_modules/.bin/buf generate ../proto --template buf.gen.yaml >&2
./node_modules/.bin/tsc --noEmit -p . >&2
if [ "${1:-}" = "--check" ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  DUDO_WEB_OUT="$scratch" node build.mjs >&2
  if ! diff -r "$scratch" dist >&2; then
    echo "web/dist is not what web/ builds: run scripts/web-build.sh and commit web/dist" >&2
    exit 1
  fi
  git -C "$root" diff --quiet -- web/src/gen || {
    echo "web/src/gen is not what proto/ generates: run scripts/web-build.sh and commit it" >&2
    exit 1
  }
  echo "web/dist is what web/ builds" >&2
else
  node build.mjs >&2
  echo "built web/dist" >&2
fi
