#!/usr/bin/env bash
# Installs buf (npm's @bufbuild/buf, pinned by tests/tools/package-lock.json) for the test that
# runs the docs' `buf curl` session against a real server. Prints the buf to run. Safe to run
# again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/npm-ci.sh" "$root/tests/tools"
echo "$root/tests/tools/node_modules/.bin/buf"
