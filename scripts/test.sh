#!/usr/bin/env bash
# The README's test command: every test of the workspace (`cargo test --profile tests --workspace`, with any
# arguments passed on; `scripts/test.sh -p dudo-rules` tests that package alone), then one last line that counts what passed, failed, was ignored and
# was skipped. A test without what it needs (PostgreSQL, Python, chromium, Go, Node.js) says
# "SKIPPED" and why as it runs, but libtest counts it as passed and cargo prints one result
# line per test binary, so "0 ignored" at the end of `cargo test` proves nothing: the skips
# are gathered here and named above the last line.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Every package, unless the arguments name some (`-p dudo-rules`): with --workspace, cargo
# would test them all anyway.
scope=(--workspace)
for arg in "$@"; do
  case "$arg" in
    -p | --package | --package=* | -p?*) scope=() ;;
    --) break ;;
  esac
done
# The tests' profile (Cargo.toml, [profile.tests]): dev with the engine optimised.
cargo test --profile tests "${scope[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo
awk -v status="$status" '
  /^test result:/ {
    results++
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^passed/) p += $(i-1)
      if ($i ~ /^failed/) f += $(i-1)
      if ($i ~ /^ignored/) g += $(i-1)
    }
  }
  / SKIPPED: / {
    line = $0
    sub(/^.*note: /, "", line)
    sub(/ SKIPPED: /, ": ", line)
    if (!(line in seen)) { seen[line] = 1; skips[++s] = line }
  }
  END {
    if (s > 0) {
      printf "skipped, each for want of what it needs (the README says how to have it):\n"
      for (i = 1; i <= s; i++) printf "  - %s\n", skips[i]
    }
    done = (status == 0) ? "" : sprintf("; cargo test exited with %d", status)
    if (results == 0) done = sprintf("; no test ran (cargo test exited with %d)", status)
    printf "tests: %d passed, %d failed, %d ignored, %d skipped%s\n", p, f, g, s, done
  }' "$log"
exit "$status"
