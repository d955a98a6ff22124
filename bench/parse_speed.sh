#!/usr/bin/env bash
# Parsing speed of the generic CSV and Sensor Logger readers, one core, file in page cache.
# Builds release, writes ~SIZE_MB (default 300) inputs under bench/out/ (git-ignored) once, then times
# `steptweet inspect` (read + parse + validate every sample, no detection work) RUNS times and prints MB/s from the
# best process CPU time (user + sys, so that other work on a shared machine does not count) and from wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-300}
RUNS=${RUNS:-5}
swift build -c release --product steptweet 2>&1 | tail -1
[ -f bench/out/generic.csv ] && [ -f bench/out/sensorlogger.csv ] || python3 bench/parse_speed.py bench/out "$SIZE_MB"
cat bench/out/generic.csv bench/out/sensorlogger.csv > /dev/null  # warm the page cache
for f in generic.csv sensorlogger.csv; do
  path="bench/out/$f"
  bytes=$(stat -c %s "$path")
  best=""; bestwall=""
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%U %S %e" -o bench/out/time.txt taskset -c 0 .build/release/steptweet inspect --json "$path" > bench/out/last.json
    read -r user sys wall < bench/out/time.txt
    t=$(echo "$user + $sys" | bc -l)
    if [ -z "$best" ] || (( $(echo "$t < $best" | bc -l) )); then best=$t; fi
    if [ -z "$bestwall" ] || (( $(echo "$wall < $bestwall" | bc -l) )); then bestwall=$wall; fi
  done
  samples=$(python3 -c "import json; print(json.load(open('bench/out/last.json'))['samples'])")
  printf '%-18s %6.1f MB  %9d samples  best of %d: cpu %.2f s = %4.0f MB/s, wall %.2f s = %4.0f MB/s\n' "$f" \
    "$(echo "$bytes/1000000" | bc -l)" "$samples" "$RUNS" "$best" "$(echo "$bytes/1000000/$best" | bc -l)" \
    "$bestwall" "$(echo "$bytes/1000000/$bestwall" | bc -l)"
done
