#!/usr/bin/env bash
# Whether a change to the detector changes any result at all: bench/detector_fingerprint.swift, built beside this
# tree's Sources/StepDetection and beside those of REV (default main; `git archive`), fingerprints every event of every
# recording of ../shared's two manifests to the bit (step times, bouts, each window's probability and features: `eval`
# prints features to 5 digits), one by one and in runs of 4096, and prints how many recordings differ (0: identical).
# `bench/detector_fingerprint.sh [REV]`; writes bench/out/detector_fingerprint/.
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:-main}
SHARED=$(cd "${SHARED:-../shared}/data" && pwd)
OUT=$(pwd)/bench/out/detector_fingerprint
rm -rf "$OUT/rev"
mkdir -p "$OUT/rev" "$OUT/tree" "$OUT/build-rev" "$OUT/build-tree"
git archive "$REV" Sources/StepDetection Sources/WallTimeCore | tar -x -C "$OUT/rev"
build() {  # build SOURCE_ROOT DIR: DIR/fingerprint
  cp bench/detector_fingerprint.swift "$2/main.swift"  # top-level code must live in main.swift
  swiftc -O -wmo -parse-as-library -module-name WallTimeCore -emit-module-path "$2/WallTimeCore.swiftmodule" \
    -c -o "$2/WallTimeCore.o" "$1"/Sources/WallTimeCore/*.swift
  swiftc -O -wmo -module-name DetectorFingerprint -I "$2" -o "$2/fingerprint" "$1"/Sources/StepDetection/*.swift \
    "$2/main.swift" bench/trace_samples.swift "$2/WallTimeCore.o"
}
build "$OUT/rev" "$OUT/build-rev"
build . "$OUT/build-tree"
(cd "$SHARED" && for m in activities steps; do tail -n +2 "$m/manifest.csv" | cut -d, -f1 | sed "s|^|$m/|"; done) \
  > "$OUT/files.txt"
for which in rev tree; do
  (cd "$SHARED" && xargs -a "$OUT/files.txt" "$OUT/build-$which/fingerprint") > "$OUT/$which.txt"
done
differ=$(diff "$OUT/rev.txt" "$OUT/tree.txt" | grep -c '^<' || true)
echo "detector_fingerprint: $differ of $(wc -l < "$OUT/rev.txt") recordings differ from $REV ($(git rev-parse --short "$REV"))"
