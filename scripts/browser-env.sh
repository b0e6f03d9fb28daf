#!/usr/bin/env bash
# Makes what the browser tests need: Debian's chromium (installed with apt-get when missing
# and this runs as root; Playwright's own browser download cannot work here) and
# tests/browser's locked npm packages (playwright-core). Prints the node to run them with.
# Safe to run again. Its output goes to standard error.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v node >/dev/null || { echo "no node on PATH" >&2; exit 1; }
chromium="${DUDO_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  # Tests run in parallel and apt-get takes one caller at a time: the others wait here, then
  # find chromium installed.
  exec 8>"${TMPDIR:-/tmp}/dudo-browser-env.lock"
  flock 8
  if [ ! -x "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium for the browser tests" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2; }
  fi
  [ -x "$chromium" ] || { echo "no chromium at $chromium (apt-get install chromium)" >&2; exit 1; }
fi
bash "$root/scripts/npm-ci.sh" "$root/tests/browser"
command -v node
