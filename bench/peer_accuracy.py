#!/usr/bin/env python3
"""The peer (../shared/tools/peer_findpeaks.py, scipy find_peaks, d = 0.307 s, prominence 0.187 g) scored on every
shared set with the same measures as the walking recognizer's targets (`summarise` in scripts/train_walking.py:
walking MAPE over files with >= 100 true steps, false steps above the truth for files under 100, least steps per
minute for files without a count).

Usage: python3 bench/peer_accuracy.py [SHARED] > bench/peer_accuracy_result.txt     (default ../shared)
Also the worst WISDM subject and the subjects over 250 false steps per hour (issue #36).
"""
import csv, json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import train_walking  # noqa: E402  (the one scoring of the targets)

shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared")
peer = os.path.join(shared, "tools", "peer_findpeaks.py")
entries, counts = [], {}
for name in ("steps", "activities"):
    folder = os.path.join(shared, "data", name)
    manifest = os.path.join(folder, "manifest.csv")
    rows = list(csv.DictReader(open(manifest)))
    for r in rows:
        r["manifest"] = manifest
    entries += rows
    out = subprocess.run([sys.executable, peer, "count", "--d", "0.307", "--p", "0.187"]
                         + [os.path.join(folder, r["file"]) for r in rows],
                         check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            found[os.path.relpath(parts[0], folder)] = int(parts[1])
    for r in rows:
        counts[r["file"]] = (found[r["file"]], float(r["duration_s"]))
for key, value in train_walking.summarise(entries, counts).items():
    if isinstance(value, dict):
        value = {k: round(v, 1) for k, v in value.items()}
    print(f"{key}: {json.dumps(round(value, 2) if isinstance(value, float) else value)}")
for f in train_walking.LONG_WALKS:
    print(f"{f}: {counts[f][0]} steps")
# Issue #36's per-subject view: the worst WISDM subject, and how many are over 250 false steps per hour.
subjects = train_walking.by_subject(entries, counts)
print(f"wisdm_worst_subject: {subjects['wisdm_worst_subject']}")
print(f"wisdm_subjects_over_250_per_hour: {subjects['wisdm_subjects_over_250_per_hour']}")
# Issue #47's rows, scored exactly as `bench/bout_eval.py` scores the detector. The peer is not trained, so its out of
# dataset figures are these.
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import bout_figures  # noqa: E402

print()
print(train_walking.markdown(*train_walking.out_of_dataset(entries, counts)))
print()
print(bout_figures(entries, counts))
