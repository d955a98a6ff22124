#!/usr/bin/env bash
# What sampling a live accelerometer costs the agent: `steptweet agent` polls a fake IIO accelerometer (a copy of
# ../shared/data/formats/iio_fake_sysfs without its step counter) at RATE Hz for SECONDS, and this prints the CPU time
# it used (utime + stime from /proc/PID/stat), its VmRSS, and how many samples it wrote.
# Usage: bench/sampler_cpu.sh [binary] [seconds] [rates...]   (defaults: .build/release/steptweet 20 50 200)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/steptweet}
SECONDS_EACH=${2:-20}
shift 2 2>/dev/null || true
RATES=("$@")
[ ${#RATES[@]} -eq 0 ] && RATES=(50 200)
TICKS=$(getconf CLK_TCK)
echo "sampler cost ($(date -u '+%Y-%m-%d %H:%M UTC'), $(basename "$BIN") $(dirname "$BIN"), ${SECONDS_EACH} s per rate, $(nproc) cores)"
for rate in "${RATES[@]}"; do
  work=$(mktemp -d)
  cp -r ../shared/data/formats/iio_fake_sysfs/sys "$work/sys"
  chmod -R u+w "$work/sys"
  rm "$work/sys/bus/iio/devices/iio:device0/in_steps_input"
  cat > "$work/config.toml" <<EOF
[source]
device = "iio:device0"
sys_root = "$work/sys"
sampling = "poll"
rate = $rate
[schedule]
interval = "1h"
[state]
path = "state/state.sqlite"
EOF
  "$BIN" agent --config "$work/config.toml" 2> "$work/agent.log" > /dev/null &
  pid=$!
  sleep 2
  read -r -a before < <(cut -d' ' -f14,15 "/proc/$pid/stat")
  lines_before=$(wc -l < "$work/state/device-iio_device0.accel.csv")
  sleep "$SECONDS_EACH"
  read -r -a after < <(cut -d' ' -f14,15 "/proc/$pid/stat")
  lines_after=$(wc -l < "$work/state/device-iio_device0.accel.csv")
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  kill -TERM "$pid"
  wait "$pid" || true
  used=$(( (after[0] + after[1]) - (before[0] + before[1]) ))
  awk -v r="$rate" -v t="$used" -v hz="$TICKS" -v s="$SECONDS_EACH" -v n=$((lines_after - lines_before)) -v rss="$rss" 'BEGIN {
    printf "  %4d Hz: CPU %.2f s over %d s (%.2f %% of one core), %d samples written (%.1f per s), VmRSS %.1f MB\n",
      r, t / hz, s, 100 * t / hz / s, n, n / s, rss / 1024 }'
  rm -rf "$work"
done
