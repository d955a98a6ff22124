#!/usr/bin/env python3
"""acc41b (issue #47): where a short bout locked at the stride sits, walking against hand motion. Every rhythm bout of
3-9 steps whose mean interval is a stride lock's (0.8-1.4 s, `StepDetector.armStrideIntervals`), traced by
bench/bout_trace.swift with the rule off (`boutEndArmAlong` 2) and each data set counted by the model trained without
it: in the walk segments of the spliced Bangle.js and WISDM streams (`free_living_splice.py --keep DIR`, reference
steps in DIR/rows.json), in every ../shared recording with a truth of 0 (three axes: hand activities, drives) and in every other ../shared
recording (gait, and DSADS's recordings without a truth, whose steps are real: a bout there halved wrongly doubles a
real walk).
For each: its own seconds' arm repeats (bout_trace.swift `arm`: the vector across gravity at half the interval, the
motion along gravity at the interval and at half of it) and body (share along gravity, along repeat a stride later,
|a| motion). Prints percentiles and, for a grid of the two bars, how many bouts (steps) of each side would be halved.

    python3 bench/free_living_splice.py --binary B --keep /tmp/splice > /dev/null
    python3 bench/acc41b_stride_lock.py --splice /tmp/splice > bench/acc41b_stride_lock_result.md
"""
import argparse, collections, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from bout_eval import entries  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

MEASURES = (("across at half", 8), ("along at interval", 9), ("along at half", 10), ("share", 5), ("along stride", 6),
            ("motion", 7))


def stride_bouts(t, keep=lambda r: True):
    out = []
    for r in t["rhythm"]:
        iv = (r[1] - r[0]) / (r[2] - 1) if r[2] > 1 else 0
        if 3 <= r[2] <= 9 and 0.8 <= iv <= 1.4 and r[5] >= 0 and keep(r):
            out.append(r)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splice", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    args = ap.parse_args()
    off = [("boutEndArmAlong", 2)]
    rows = {r["name"]: r for r in json.load(open(os.path.join(args.splice, "rows.json")))}
    sides = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as work:
        tracer = compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "bout_trace.swift"),
                                "BoutTrace", "bout_trace")
        by_set = collections.defaultdict(lambda: collections.defaultdict(list))
        for e in entries(args.shared):
            side = "no walk (truth 0)" if e["truth_steps"] == "0" else "gait recordings"
            by_set[e["file"].split("/")[0]][side].append(os.path.join(os.path.dirname(e["manifest"]), e["file"]))
        for d, files in sorted(by_set.items()):
            for side, fs in files.items():
                for f, t in run(tracer, work, fs, d, off).items():
                    sides[side] += [(d, r) for r in stride_bouts(t)]
        for d in ("bangle_wrist", "wisdm_watch"):
            folder = os.path.join(args.splice, d)
            fs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if not f.endswith("_rest.csv"))
            for f, t in run(tracer, work, fs, d, off).items():
                placed = rows.get(os.path.basename(f)[:-4], {}).get("placed", [])
                inside = lambda r: any(r[0] - 0.5 <= p <= r[1] + 0.5 for p in placed)
                sides["spliced walks"] += [(d, r) for r in stride_bouts(t, inside)]
    print("Rhythm bouts of 3-9 steps at a mean interval of 0.8-1.4 s (rule off): "
          + ", ".join(f"{len(v)} in {k}" for k, v in sides.items()) + ".\n")
    print("| measure | side | 10th | 25th | median | 75th | 90th |\n|---|---|---|---|---|---|---|")
    for name, k in MEASURES:
        for side, bouts in sides.items():
            if bouts:
                q = np.percentile([r[k] for _, r in bouts], [10, 25, 50, 75, 90])
                print(f"| {name} | {side} | " + " | ".join(f"{v:+.2f}" for v in q) + " |")
    print("\nBouts (steps) that the rule would halve, by bars (across at half at most, along at interval at least):\n")
    print("| across | along | " + " | ".join(sides) + " | no walk by data set |\n|---|---|" + "---|" * (len(sides) + 1))
    for across in (-0.3, -0.4, -0.5, -0.6, -0.7, -0.8):
        for along in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
            cells, by = [], collections.Counter()
            for side, bouts in sides.items():
                hit = [(d, r) for d, r in bouts if r[8] <= across and r[9] >= along]
                cells.append(f"{len(hit)} ({int(sum(r[2] for _, r in hit))})")
                if side.startswith("no walk"):
                    by.update(d for d, _ in hit)
            print(f"| {across} | {along} | " + " | ".join(cells) + " | "
                  + ", ".join(f"{k} {v}" for k, v in sorted(by.items())) + " |")


if __name__ == "__main__":
    main()
