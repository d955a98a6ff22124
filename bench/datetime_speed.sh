#!/usr/bin/env bash
# Generic CSV with date-time times (MATLAB Mobile): `steptweet inspect` of two builds on the same inputs, runs
# interleaved and pinned to one core, file in page cache; median and best process CPU time (user + sys) of RUNS
# (default 5) and MB/s from the median. Inputs: bench/datetime_speed.py, ROWS rows (default 3,000,000) each.
# ZONE=Europe/London reads them with --time-zone ZONE (default: none, the machine's zone).
# Usage: bench/datetime_speed.sh BEFORE_BINARY AFTER_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=$1 AFTER=$2 RUNS=${RUNS:-5} ROWS=${ROWS:-3000000} ZONE=${ZONE:-}
zone_args=()
[ -n "$ZONE" ] && zone_args=(--time-zone "$ZONE")
[ -f bench/out/datetime_iso.csv ] && [ -f bench/out/datetime_matlab.csv ] || python3 bench/datetime_speed.py bench/out "$ROWS"
: > bench/out/dt_runs.txt
for f in datetime_iso.csv datetime_matlab.csv; do
  cat "bench/out/$f" > /dev/null
  for _ in $(seq "$RUNS"); do
    for which in before after; do
      bin=$BEFORE; [ "$which" = after ] && bin=$AFTER
      /usr/bin/time -f "%e %U %S %M" -o bench/out/dt_time.txt taskset -c 0 "$bin" inspect --json "${zone_args[@]}" "bench/out/$f" \
        > "bench/out/dt_$which.json"
      echo "$f $which $(cat bench/out/dt_time.txt)" >> bench/out/dt_runs.txt
    done
    cmp -s <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['samples'], d['skipped_lines'], d['start'], d['end'], d['rate_hz'])" bench/out/dt_before.json) \
      <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['samples'], d['skipped_lines'], d['start'], d['end'], d['rate_hz'])" bench/out/dt_after.json) \
      || { echo "before and after disagree on $f" >&2; exit 1; }
  done
done
python3 - <<'PY'
import collections, os, statistics
runs = collections.defaultdict(list)
for line in open("bench/out/dt_runs.txt"):
    f, which, wall, user, sys_, rss = line.split()
    runs[(f, which)].append((float(user) + float(sys_), float(wall), int(rss) / 1024))
print(f"{'input':20} {'MB':>6} {'build':6} {'cpu median':>10} {'cpu best':>8} {'MB/s':>6} {'wall median':>11} {'RSS MB':>6}")
for f in ["datetime_iso.csv", "datetime_matlab.csv"]:
    mb = os.path.getsize(f"bench/out/{f}") / 1e6
    for which in ["before", "after"]:
        r = runs[(f, which)]
        cpu = statistics.median(x[0] for x in r)
        print(f"{f:20} {mb:6.1f} {which:6} {cpu:10.2f} {min(x[0] for x in r):8.2f} {mb / cpu:6.0f} "
              f"{statistics.median(x[1] for x in r):11.2f} {max(x[2] for x in r):6.1f}")
PY
