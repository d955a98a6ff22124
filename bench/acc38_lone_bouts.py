#!/usr/bin/env python3
"""acc38 (issue #47): what a lone bout's own seconds show, walking against hand bursts. Every rhythm bout of 4-6
steps, traced by bench/bout_trace.swift (the detector's own `bodyStepping` at the bout's end): in the walk
segments of the spliced Bangle.js and WISDM streams (`free_living_splice.py --keep DIR`, reference steps in
DIR/rows.json) that counted nothing, and in every ../shared recording with a truth of 0 (three axes), each data set
with the model trained without it. Prints the percentiles of each measure and, for a grid of lone-bout body bars
(with the short-bout cadence 0.4-1.0 s and spread 0.3), how many bouts of each side would pass.

    python3 bench/free_living_splice.py --binary B --keep /tmp/splice > /dev/null
    python3 bench/acc38_lone_bouts.py --splice /tmp/splice [--set KEY=JSON ...]
"""
import argparse, collections, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import entries, overridden  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402


def run(tracer, work, files, dataset, overrides):
    p = os.path.join(work, f"params_{dataset}.json")
    json.dump(overridden(json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{dataset}.json"))), overrides),
              open(p, "w"))
    out = {}
    for i in range(0, len(files), 200):
        r = subprocess.run([tracer, p] + files[i:i + 200], check=True, capture_output=True, text=True)
        for line in r.stdout.splitlines():
            t = json.loads(line)
            out[t["file"]] = t
    return out


def features(t, r):
    a, b = r[0], r[1]
    steps = sorted(s for s in t["steps"] + t["refused"] if a - 1e-6 <= s <= b + 1e-6)
    iv = np.diff(steps) if len(steps) > 1 else np.array([0.0])
    return dict(steps=int(r[2]), credited=int(r[3]), share=r[5], stride=r[6], motion=r[7],
                counted=sum(a - 1e-6 <= s <= b + 1e-6 for s in t["steps"]), mean=float(iv.mean()),
                cv=float(iv.std() / iv.mean()) if iv.mean() > 0 else 9.0)


def passes(x, share, stride, motion):
    return (x["credited"] and x["share"] >= share and x["stride"] >= stride and x["motion"] >= motion
            and 0.4 <= x["mean"] <= 1.0 and x["cv"] <= 0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splice", required=True, help="a free_living_splice.py --keep folder")
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--set", action="append", default=[])
    args = ap.parse_args()
    overrides = [(k, json.loads(v)) for k, v in (s.split("=", 1) for s in args.set)]
    rows = {r["name"]: r for r in json.load(open(os.path.join(args.splice, "rows.json")))}
    with tempfile.TemporaryDirectory() as work:
        tracer = compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "bout_trace.swift"),
                                "BoutTrace", "bout_trace")
        by_set = collections.defaultdict(list)
        for e in entries(args.shared):
            if e["truth_steps"] == "0":
                by_set[e["file"].split("/")[0]].append(os.path.join(os.path.dirname(e["manifest"]), e["file"]))
        negative = {}
        for d, fs in sorted(by_set.items()):
            negative.update(run(tracer, work, fs, d, overrides))
        positive = {}
        for d in ("bangle_wrist", "wisdm_watch"):
            folder = os.path.join(args.splice, d)
            fs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if not f.endswith("_rest.csv"))
            positive.update(run(tracer, work, fs, d, overrides))
    walk, hands = [], []
    for f, t in positive.items():
        placed = rows.get(os.path.basename(f)[:-4], {}).get("placed", [])
        for r in t["rhythm"]:
            x = features(t, r)
            if 4 <= x["steps"] <= 6 and not x["counted"] and any(r[0] - 0.5 <= p <= r[1] + 0.5 for p in placed):
                walk.append(x)
    for f, t in negative.items():
        for r in t["rhythm"]:
            x = features(t, r)
            if 4 <= x["steps"] <= 6 and not x["counted"] and x["share"] >= 0:
                x["set"] = f.split("/")[-2]
                hands.append(x)
    print(f"Rhythm bouts of 4-6 steps that counted nothing: {len(walk)} in spliced walks (Bangle.js, WISDM), "
          f"{len(hands)} in ../shared's recordings with a truth of 0 (three axes).\n")
    print("| measure | side | 10th | 25th | median | 75th | 90th |\n|---|---|---|---|---|---|---|")
    for k in ("share", "stride", "motion", "mean", "cv"):
        for side, xs in (("walk", walk), ("no walk", hands)):
            q = np.percentile([x[k] for x in xs], [10, 25, 50, 75, 90])
            print(f"| {k} | {side} | " + " | ".join(f"{v:.2f}" for v in q) + " |")
    print("\n| share | stride | motion | walk bouts (steps) | no-walk bouts (steps) | no-walk by data set |")
    print("|---|---|---|---|---|---|")
    for share in (0.3, 0.35, 0.4, 0.45, 0.5):
        for stride in (0.4, 0.5, 0.6, 0.65, 0.7, 0.8):
            for motion in (0.8, 1.0, 1.2):
                w = [x for x in walk if passes(x, share, stride, motion)]
                h = [x for x in hands if passes(x, share, stride, motion)]
                by = collections.Counter(x["set"] for x in h)
                print(f"| {share} | {stride} | {motion} | {len(w)} ({sum(x['steps'] for x in w)}) | {len(h)} "
                      f"({sum(x['steps'] for x in h)}) | {', '.join(f'{k} {v}' for k, v in sorted(by.items()))} |")


if __name__ == "__main__":
    main()
