#!/usr/bin/env bash
# Parse speed of the pushed-payload parsers (issue 34): builds Ingestion in release as the package builds it, compiles
# bench/payload_speed.swift with its push apps and payload parsers (swiftc -O) and runs it, pinned to one core.
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
# Ingestion's push apps and payload parsers are compiled into the bench itself (its server, Store and GRDB are not
# needed), as main.swift beside them; HTTPTypes (the apps' answers) is linked from the build.
httptypes() { ls "$BIN"/HTTPTypes.build/*.o; }
cp bench/payload_speed.swift "$OUT/main.swift"
# SensorInput's `package` members: SwiftPM names the package after the checkout's folder.
PACKAGE=$(basename "$PWD" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '_')
swiftc -O -I "$BIN/Modules" -I Sources/CZlib -I fuzz/Shared/GRDBSQLite -module-name PayloadSpeed -swift-version 6 \
  -package-name "$PACKAGE" \
  -o "$OUT/payload_speed" "$OUT/main.swift" $(find Sources/Ingestion/Apps Sources/Ingestion/Payloads -name '*.swift') \
  Sources/Ingestion/Receiver/HTTPAnswer.swift $(httptypes) $(objects SensorInput) $(objects StepDetection) $(objects WallTimeCore) $(objects WallTime) \
  -lz -lsqlite3
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "machine: $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build: swift build -c release (Ingestion), $(swift --version 2>/dev/null | head -1)"
echo "run: taskset -c 0 $OUT/payload_speed (wall time of each PushApps.parse call, in process)"
taskset -c 0 "$OUT/payload_speed"
