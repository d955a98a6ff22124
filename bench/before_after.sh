#!/usr/bin/env bash
# Two builds side by side on the same inputs, runs interleaved (median of RUNS, default 5): `count` and `inspect` on
# the long stream and `inspect` on the Sensor Logger parse input, pinned to one core and not.
# Usage: bench/before_after.sh BEFORE_BINARY AFTER_BINARY   (inputs from bench/run.sh and bench/parse_speed.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${RUNS:-5}
LONG=bench/out/oxford_long_5x.csv SL=bench/out/sensorlogger.csv
for f in "$LONG" "$SL"; do cat "$f" > /dev/null; done
run() {  # label binary args...
  local label=$1 bin=$2; shift 2
  /usr/bin/time -f "%e %U %S %M" -o bench/out/ba_time.txt "$bin" "$@" > /dev/null
  echo "$label $(cat bench/out/ba_time.txt)" >> bench/out/ba_runs.txt
}
: > bench/out/ba_runs.txt
for _ in $(seq "$RUNS"); do
  for which in before after; do
    bin=$BEFORE; [ "$which" = after ] && bin=$AFTER
    run "$which count-unpinned" "$bin" count "$LONG"
    run "$which count-one-core" taskset -c 0 "$bin" count "$LONG"
    run "$which inspect-unpinned" "$bin" inspect "$LONG"
    run "$which inspect-one-core" taskset -c 0 "$bin" inspect "$LONG"
    run "$which sensorlogger-one-core" taskset -c 0 "$bin" inspect "$SL"
  done
done
python3 - "$LONG" "$SL" <<'PY'
import os, statistics, sys, collections
size = {"count": os.path.getsize(sys.argv[1]), "inspect": os.path.getsize(sys.argv[1]), "sensorlogger": os.path.getsize(sys.argv[2])}
runs = collections.defaultdict(list)
for line in open("bench/out/ba_runs.txt"):
    which, what, wall, user, sys_, rss = line.split()
    runs[(what, which)].append((float(wall), float(user) + float(sys_), int(rss) / 1024))
print(f"{'':24} {'before wall':>11} {'after wall':>10} {'before MB/s':>11} {'after MB/s':>10} {'before RSS':>10} {'after RSS':>9}")
for what in ["count-unpinned", "count-one-core", "inspect-unpinned", "inspect-one-core", "sensorlogger-one-core"]:
    b, a = runs[(what, "before")], runs[(what, "after")]
    bw, aw = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
    mb = size[what.split("-")[0]] / 1e6
    print(f"{what:24} {bw:11.2f} {aw:10.2f} {mb / bw:11.0f} {mb / aw:10.0f} {max(x[2] for x in b):10.1f} {max(x[2] for x in a):9.1f}")
PY
