#!/usr/bin/env bash
# The engine against OpenSpiel's own game loop, in one run (BENCHMARKS.md, issue 25):
# `dudo simulate --preset openspiel --bot random --threads 1` against `pyspiel.evaluate_bots`
# with two uniform random bots on `liars_dice` (two players, five dice each), each playing
# GAMES games (default 200,000), three times in turn; prints each run and the ratio.
#
# OpenSpiel comes from PyPI, into a virtualenv under the target directory (made once).
# `dudo` must be built first: cargo build --release -p dudo-cli.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
. "$root/scripts/venv.sh"
games="${1:-200000}"
dudo="$target/release/dudo"
if [ ! -x "$dudo" ]; then
  echo "no $dudo: build it first with cargo build --release -p dudo-cli" >&2
  exit 2
fi
venv openspiel-venv "open_spiel==2.0.2"

openspiel() {
  "$venv/bin/python" - "$games" <<'PY'
import sys, time
import pyspiel
games = int(sys.argv[1])
game = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 5})
bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(2)]
started = time.perf_counter()
for n in range(games):
    pyspiel.evaluate_bots(game.new_initial_state(), bots, n)
print(f"{games / (time.perf_counter() - started):.0f}")
PY
}

dudo_rate() {
  "$dudo" simulate --preset openspiel --bot random --threads 1 --games "$games" --seed 1 |
    sed -n 's/.* \([0-9][0-9]*\) games\/s.*/\1/p'
}

for run in 1 2 3; do
  ours="$(dudo_rate)"
  theirs="$(openspiel)"
  awk -v r="$run" -v a="$ours" -v b="$theirs" \
    'BEGIN { printf "run %d: dudo simulate %d games/s, OpenSpiel evaluate_bots %d games/s: %.2fx\n", r, a, b, a / b }'
done
