#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each for FUZZ_SECONDS (default 60), one after another, at low priority.
# Usage: fuzz/run.sh [parser ...]   (default: all). New inputs go to fuzz/out/<parser>/ (git-ignored), crashes to
# fuzz/artifacts/<parser>/; the committed seeds in fuzz/corpus/<parser>/ are only read.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${FUZZ_SECONDS:-60}
parsers=("$@")
if [ ${#parsers[@]} -eq 0 ]; then parsers=($(ls corpus)); fi
swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld --scratch-path .build-fuzz 2>&1 \
  | grep -v "Cannot export local symbol" | tail -3
for p in "${parsers[@]}"; do
  mkdir -p "out/$p" "artifacts/$p"
  echo "== fuzz-$p for ${SECONDS_EACH}s"
  max_len=4096; [ "$p" = garmin-fit ] && max_len=8192  # the real FIT seeds are 5-6 KB
  [ "$p" = zip ] && max_len=12288  # the Gadgetbridge backup seed is 8.7 KB
  SWIFT_BACKTRACE=enable=no nice -n 10 ".build-fuzz/release/fuzz-$p" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 \
    -max_len=$max_len -artifact_prefix="artifacts/$p/" -print_final_stats=1 "out/$p" "corpus/$p" 2>&1 \
    | grep -E "^#[0-9]+ +DONE|stat::number_of_executed_units|ERROR|Test unit written|SUMMARY" || true
done
