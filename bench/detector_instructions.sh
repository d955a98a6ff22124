#!/usr/bin/env bash
# Instructions per sample of the detector alone, counted by callgrind: a measure that the VM's ±20 % timing noise does
# not move, for before/after comparisons of detector changes (`make bench` times it; this counts it). Needs valgrind
# (apt-get install valgrind). Builds bench/detector_speed.swift with the detector's sources, runs one pass over N
# samples (default 1 M, 200 Hz, walking and standing by turns) per configuration under callgrind, counting only
# `runOnce`, and prints instructions per sample with the walking recognizer (samples pushed one by one, and in runs of
# 4096 as `count` pushes a CSV) and with the rhythm alone, and the functions that take most of them. Writes bench/out/detector_instructions/.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000000}
OUT=bench/out/detector_instructions
command -v valgrind > /dev/null || { echo "detector_instructions: valgrind missing (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$OUT/src"
cp bench/detector_speed.swift "$OUT/src/main.swift"  # top-level code must live in main.swift
# WallTimeCore (`Instant`) is a module of its own, as in the package: what crossing into it costs is counted.
swiftc -O -wmo -g -parse-as-library -module-name WallTimeCore -emit-module-path "$OUT/src/WallTimeCore.swiftmodule" \
  -c -o "$OUT/WallTimeCore.o" Sources/WallTimeCore/*.swift
swiftc -O -wmo -g -module-name DetectorSpeed -I "$OUT/src" -o "$OUT/detector" Sources/StepDetection/*.swift \
  "$OUT/src/main.swift" "$OUT/WallTimeCore.o"
for config in recognizer recognizer-runs rhythm; do
  # Everything is collected; the pass is `runOnce`'s inclusive count (the largest of its entries, one per source file
  # its inlined code came from). Toggling collection on `runOnce` alone would stop inside the detector's functions
  # specialised for it, whose names contain `runOnce` too.
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$config" \
    "$OUT/detector" --once "$config" "$N" > "$OUT/run.$config.txt" 2> "$OUT/valgrind.$config.txt"
  total=$(callgrind_annotate --inclusive=yes "$OUT/callgrind.$config" 2> /dev/null \
    | awk '/:\$s13DetectorSpeed7runOnce/ && !/=>/ { c=$1; gsub(",", "", c); if (c + 0 > max) max = c + 0 } END { print max }')
  printf '%-15s %6.1f instructions per sample (%s samples, %s)\n' "$config" "$(echo "$total / $N" | bc -l)" "$N" \
    "$(cat "$OUT/run.$config.txt")"
  # The detector's functions with the most (self) instructions, summed over their source files, demangled (the test
  # signal's making, in main.swift and libm, left out).
  callgrind_annotate --auto=no --inclusive=no "$OUT/callgrind.$config" 2> /dev/null \
    | awk '/^ *[0-9,]+ +\(/ && !/PROGRAM TOTALS/ && /Sources\/StepDetection|\?\?\?:\$s13DetectorSpeed/ && !/main\.swift/ {
        c=$1; gsub(",", "", c); sub(/^ *[0-9,]+ +\([^)]*\) +/, "");
        sub(/ \[.*$/, ""); sub(/^.*:/, ""); sum[$0] += c } END { for (f in sum) print sum[f] "\t" f }' \
    | sort -rn | head -6 \
    | while IFS=$'\t' read -r c name; do
        printf '    %6.1f  %s\n' "$(echo "$c / $N" | bc -l)" "$(swift demangle --simplified --compact "$name" | cut -c1-100)"
      done
done
