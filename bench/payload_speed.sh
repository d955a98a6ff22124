#!/usr/bin/env bash
# Parse speed of the pushed-payload parsers (issue 34): builds Ingestion in release as the package builds it, links
# bench/payload_speed.swift against its push apps and payload parsers (swiftc -O) and runs it, pinned to one core.
# Prints the date, the machine and the times; `bench/payload_speed.sh > bench/payload_speed_result.txt` is how the
# committed result was made.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out/payload_speed
mkdir -p "$OUT"
swift build -c release --target Ingestion 2>&1 | grep -E "error|Compiling|complete" | tail -1 >&2
BIN=.build/release
# The objects of the sources the targets hold now (a build folder keeps those of files since renamed or split).
objects() { find "Sources/$1" -name '*.swift' -exec basename {} \; | sed "s|^|$BIN/$1.build/|; s|$|.o|"; }
# Of Ingestion, only what parsing needs (its server, Store and GRDB are not linked).
ingestion() { find Sources/Ingestion/Apps Sources/Ingestion/Payloads Sources/Ingestion/Receiver/HTTPAnswer.swift -name '*.swift' -exec basename {} \; | sed "s|^|$BIN/Ingestion.build/|; s|$|.o|"; }
httptypes() { ls "$BIN"/HTTPTypes.build/*.o; }
swiftc -O -I "$BIN/Modules" -I Sources/CZlib -I fuzz/Shared/GRDBSQLite -module-name PayloadSpeed \
  -o "$OUT/payload_speed" bench/payload_speed.swift $(ingestion) $(httptypes) $(objects SensorInput) $(objects StepDetection) $(objects WallTime) \
  -lz -lsqlite3
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build: swift build -c release (Ingestion), $(swift --version 2>/dev/null | head -1)"
echo "run: taskset -c 0 $OUT/payload_speed (wall time of each PushApps.parse call, in process)"
taskset -c 0 "$OUT/payload_speed"
