#!/usr/bin/env bash
# Parse speed of the pushed-payload parsers (issue 34): builds SensorInput in release as the package builds it, links
# bench/payload_speed.swift against it (swiftc -O) and runs it, pinned to one core. Prints the date, the machine and
# the times; `bench/payload_speed.sh > bench/payload_speed_result.txt` is how the committed result was made.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out/payload_speed
mkdir -p "$OUT"
swift build -c release --target SensorInput 2>&1 | grep -E "error|Compiling|complete" | tail -1 >&2
BIN=.build/release
# The objects of the sources the targets hold now (a build folder keeps those of files since renamed or split).
objects() { find "Sources/$1" -name '*.swift' -exec basename {} \; | sed "s|^|$BIN/$1.build/|; s|$|.o|"; }
swiftc -O -I "$BIN/Modules" -I Sources/CZlib -I fuzz/Shared/GRDBSQLite -module-name PayloadSpeed \
  -o "$OUT/payload_speed" bench/payload_speed.swift $(objects SensorInput) $(objects StepDetection) $(objects WallTime) \
  -lz -lsqlite3
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build: swift build -c release (SensorInput), $(swift --version 2>/dev/null | head -1)"
echo "run: taskset -c 0 $OUT/payload_speed (wall time of each PayloadFormats.parse call, in process)"
taskset -c 0 "$OUT/payload_speed"
