#!/usr/bin/env bash
# Long-stream benchmark (issue 3). `make bench` builds release first, then runs this from the repository root.
#  1. builds bench/out/oxford_long_<REPS>x.csv: the 48 shared Oxford recordings REPS times (default 5) with one
#     continuous time axis and PAUSE seconds (default 300) of lying still between recordings: ~11.5 M samples, ~31 h;
#  2. times `steptweet count` on it with /usr/bin/time -v (3 runs, median wall; samples/s, MB/s, peak RSS);
#  3. runs the peer (../shared/tools/peer_findpeaks.py, scipy find_peaks) on the same file and prints the ratios;
#  4. checks the long-stream count against REPS x the sum of the per-file counts (target: within 1 %);
#  and times the detector alone on 10 M in-memory samples (swiftc -O, no file reading).
# Results go to bench/out/summary.txt (bench/out is git-ignored); bench/RESULTS.md records them by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release/steptweet
SHARED=${SHARED:-../shared}
MANIFEST=$SHARED/data/steps/manifest.csv
OUT=bench/out
REPS=${REPS:-5}
PAUSE=${PAUSE:-300}
RUNS=${RUNS:-3}
LONG=$OUT/oxford_long_${REPS}x.csv
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "bench: $BIN missing; run 'make bench' (it builds release first)" >&2; exit 1; }
[ -f "$MANIFEST" ] || { echo "bench: $MANIFEST missing" >&2; exit 1; }

if [ ! -s "$LONG" ] || [ bench/make_long_stream.py -nt "$LONG" ]; then
  python3 bench/make_long_stream.py "$MANIFEST" "$LONG" "$REPS" "$PAUSE"
fi
cat "$LONG" > /dev/null  # page-cache it, as the target assumes

echo "== steptweet count ($RUNS runs)"
for i in $(seq 1 "$RUNS"); do
  /usr/bin/time -v "$BIN" count --json "$LONG" > "$OUT/count.json" 2> "$OUT/count_time_$i.txt"
  grep -E "Elapsed|Maximum resident" "$OUT/count_time_$i.txt" | sed 's/^\s*/  /'
done

echo "== peer: peer_findpeaks.py --d 0.307 --p 0.187"
/usr/bin/time -v python3 "$SHARED/tools/peer_findpeaks.py" count --d 0.307 --p 0.187 "$LONG" \
  > "$OUT/peer.txt" 2> "$OUT/peer_time.txt"
grep -E "Elapsed|Maximum resident" "$OUT/peer_time.txt" | sed 's/^\s*/  /'

echo "== per-file counts"
# shellcheck disable=SC2046
"$BIN" count --json $(cat "$LONG.files") > "$OUT/per_file.json"

echo "== detector alone"
mkdir -p "$OUT/detector_speed_src"
cp bench/detector_speed.swift "$OUT/detector_speed_src/main.swift"  # top-level code must live in main.swift
swiftc -O -wmo -module-name DetectorSpeed -o "$OUT/detector_speed" Sources/StepDetection/*.swift "$OUT/detector_speed_src/main.swift"
"$OUT/detector_speed" > "$OUT/detector_speed.txt"
cat "$OUT/detector_speed.txt"

python3 - "$OUT" "$LONG" "$REPS" "$RUNS" <<'PY' | tee "$OUT/summary.txt"
import json, os, re, statistics, subprocess, sys, platform
out, long_path, reps, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def parse_time(path):
    text = open(path).read()
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    return wall, rss, user + sys_
ours = [parse_time(f"{out}/count_time_{i}.txt") for i in range(1, runs + 1)]
wall = statistics.median(w for w, _, _ in ours)
rss = max(r for _, r, _ in ours)
cpu = statistics.median(c for _, _, c in ours)
peer_wall, peer_rss, peer_cpu = parse_time(f"{out}/peer_time.txt")
result = json.loads(open(f"{out}/count.json").read())
samples, size = result["samples"], os.path.getsize(long_path)
per_file = [json.loads(l) for l in open(f"{out}/per_file.json") if l.strip()]
expected = reps * sum(r["steps"] for r in per_file)
long_steps = result["steps"]
peer_steps = sum(int(l.split("\t")[1]) for l in open(f"{out}/peer.txt") if "\t" in l)
diff = 100 * (long_steps - expected) / expected
load = open("/proc/loadavg").read().split()[:3]
cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
print(f"machine: {cpu_model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; load average {' '.join(load)}")
print(f"input: {long_path}: {samples} samples, {size / 1e6:.0f} MB, {result['duration_s'] / 3600:.1f} h")
print(f"steptweet count: {wall:.2f} s wall (median of {runs}), {cpu:.2f} s CPU, {samples / wall / 1e6:.1f} M samples/s, "
      f"{size / wall / 1e6:.0f} MB/s, peak RSS {rss:.1f} MB")
print(f"peer find_peaks: {peer_wall:.2f} s wall, {peer_cpu:.2f} s CPU, peak RSS {peer_rss:.0f} MB, {peer_steps} steps")
print(f"ratio peer/ours: time {peer_wall / wall:.1f}x, peak RSS {peer_rss / rss:.1f}x")
print(f"long stream: {long_steps} steps; {reps} x per-file sum = {expected}; difference {diff:+.3f}% "
      f"({'PASS' if abs(diff) <= 1 else 'FAIL'}: target within 1%)")
print(open(f"{out}/detector_speed.txt").read().strip())
PY
