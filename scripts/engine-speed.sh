#!/usr/bin/env bash
# The engine's speed through `dudo simulate` on one thread, for comparing builds of dudo
# (release profiles, say): each binary runs a six-player fibbing game of odds bots and a
# two-player openspiel round of random bots, in turn, RUNS times; the best of each is
# printed in games/s. Best-of, interleaved: this machine's speed drifts between runs.
#
#   scripts/engine-speed.sh target/release/dudo /tmp/dudo-before
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DUDO_BINARY..." >&2; exit 2; }
runs=${RUNS:-5}
speed() { "$@" 2>&1 | grep -o '[0-9,]* games/s' | tr -d ', games/s'; }
declare -A fibbing openspiel
for _ in $(seq "$runs"); do
  for bin in "$@"; do
    f=$(speed "$bin" simulate --threads 1 --preset fibbing --players 6 --games 20000 --bot odds --seed 1)
    o=$(speed "$bin" simulate --threads 1 --preset openspiel --players 2 --games 300000 --bot random --seed 1)
    (( f > ${fibbing[$bin]:-0} )) && fibbing[$bin]=$f
    (( o > ${openspiel[$bin]:-0} )) && openspiel[$bin]=$o
  done
done
for bin in "$@"; do
  echo "$bin: fibbing 6p odds ${fibbing[$bin]} games/s, openspiel 2p random ${openspiel[$bin]} games/s (best of $runs)"
done
