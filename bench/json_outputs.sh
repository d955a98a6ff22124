#!/usr/bin/env bash
# Every `--json` output of one build over fixed inputs, with what the machine decides masked (elapsed times, a fetch's
# end, `written_at`, pids, the output folder), so two builds' folders compare with `diff -r --exclude=work`:
# `inspect --json` and `count --json` on every file of fixtures/formats and fixtures/push and the two walks; then, for
# a since-last and an hourly window over fixtures/formats/steplog.jsonl with a file target posting charts, a dry run
# with `--image-dir`, four fetches and one before the last posted window, `status`, `history`, `outbox` and `steps`
# (`--json`), the posted lines, and the SHA-256 of every chart PNG.
# Usage: bench/json_outputs.sh BINARY OUTDIR   (then: diff -r --exclude=work BEFORE_DIR AFTER_DIR)
set -u
BIN=$(realpath "$1") OUT=$(realpath -m "$2") REPO=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$OUT"; mkdir -p "$OUT/work"
n=0
for f in "$REPO"/fixtures/formats/* "$REPO"/fixtures/formats/*/* "$REPO"/fixtures/push/*/* "$REPO"/fixtures/demo_walk_50hz.csv "$REPO"/fixtures/bangle_wrist_walk_150.csv; do
  [ -f "$f" ] || continue
  case "$f" in *.py|*.md) continue;; esac
  n=$((n+1)); name=$(echo "$f" | sed "s|$REPO/||; s|/|_|g")
  "$BIN" inspect --json "$f" > "$OUT/inspect_$name.json" 2>&1; echo "rc=$?" >> "$OUT/inspect_$name.json"
  "$BIN" count --json "$f" > "$OUT/count_$name.json" 2>&1; echo "rc=$?" >> "$OUT/count_$name.json"
done
W=$OUT/work
cp "$REPO/fixtures/formats/steplog.jsonl" "$W/steps.jsonl"
for window in since-last 1h; do
cat > "$W/config-$window.toml" <<TOML
[source]
path = "steps.jsonl"
[schedule]
window = "$window"
post_zero = true
[text]
time_zone = "Asia/Tokyo"
template = "{from} 〜 {to}: {steps} steps, {previous_steps} before, busiest {busiest}"
[[publish]]
kind = "file"
path = "posts-$window.jsonl"
image = "chart"
[state]
path = "state-$window.sqlite"
TOML
C="--config $W/config-$window.toml"
mkdir -p "$W/dry-$window"; "$BIN" fetch $C --dry-run --json --image-dir "$W/dry-$window" --now 2026-11-21T19:40:00+09:00 > "$OUT/flow-$window-0dry.json" 2>&1; (cd "$W/dry-$window" && sha256sum * > "$OUT/flow-$window-0dry.sha")
for t in 2026-11-21T19:10:00+09:00 2026-11-21T19:25:00+09:00 2026-11-21T20:00:00+09:00 2026-11-22T08:00:00+09:00; do
  "$BIN" fetch $C --json --now $t >> "$OUT/flow-$window-1fetch.json" 2>&1; echo "rc=$?" >> "$OUT/flow-$window-1fetch.json"
done
"$BIN" fetch $C --json --now 2026-11-21T19:00:00+09:00 >> "$OUT/flow-$window-1fetch.json" 2>&1
"$BIN" status $C --json > "$OUT/flow-$window-2status.json" 2>&1
"$BIN" history $C --json > "$OUT/flow-$window-3history.json" 2>&1
"$BIN" outbox $C --json > "$OUT/flow-$window-4outbox.json" 2>&1
"$BIN" steps $C --json --from 2026-11-21T19:00:00+09:00 --to 2026-11-21T19:40:00 > "$OUT/flow-$window-5steps.json" 2>&1
(cd "$W" && sha256sum *.png > "$OUT/flow-$window-7charts.sha" && rm -f *.png)
cp "$W/posts-$window.jsonl" "$OUT/flow-$window-6posts.jsonl" 2>/dev/null
done
# mask what the machine decides: elapsed times, the fetch's end, written_at, pids, paths
for f in "$OUT"/*.json "$OUT"/*.jsonl; do
  sed -i -E 's/"elapsed_ms":[0-9.]+/"elapsed_ms":X/g; s/"ended":"[^"]*"/"ended":"X"/g; s/"written_at":"[^"]*"/"written_at":"X"/g; s/"(agent_pid|pid)":[0-9]+/"\1":X/g; s|'"$OUT"'|OUT|g' "$f"
done
echo "$n files"
