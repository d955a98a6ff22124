#!/usr/bin/env bash
# Full-disk fault check (needs root for a 256 KiB tmpfs): a fetch on a full disk reports
# `Failed: ... disk full` (exit 75), and the next fetch after space is freed posts the whole window (nothing lost).
# Usage: sudo bench/exactly_once_full_disk.sh [path/to/steptweet]
set -euo pipefail
bin=$(realpath "${1:-.build/debug/steptweet}")
root=$(cd "$(dirname "$0")/.." && pwd)
mnt=$(mktemp -d /tmp/steptweet-full-XXXXXX)
cfg=$(mktemp /tmp/steptweet-full-XXXXXX.toml)
cleanup() { umount "$mnt" 2>/dev/null || true; rmdir "$mnt"; rm -f "$cfg"; }
trap cleanup EXIT
mount -t tmpfs -o size=256k tmpfs "$mnt"
cat > "$cfg" <<TOML
[source]
path = "$root/fixtures/demo_walk_50hz.csv"
start = "2026-11-21T10:02:00+09:00"
[text]
time_zone = "Asia/Tokyo"
[state]
path = "$mnt/state.sqlite"
TOML
"$bin" fetch --config "$cfg" --now 2026-11-21T10:00:00+09:00 | tail -1
dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null || true
set +e
"$bin" fetch --config "$cfg" --now 2026-11-21T10:10:00+09:00 | tail -1; echo "exit $?"
set -e
rm "$mnt/filler"
"$bin" fetch --config "$cfg" --now 2026-11-21T10:20:00+09:00 | tail -2
