#!/usr/bin/env python3
"""Whether alternation (the arm swing in gait) beside the own share along gravity tells clapping from every walk, out
of dataset (issue #47, h47hands; a pointer for a later gate, nothing shipped).

Clapping's false steps pass the own-share gate by a hair (`along_own_share` 0.17 against 0.15) and its hands do not
alternate (`arm_swing` −0.12: the motion across gravity repeats every clap instead of reversing half a stride later).
Each data set's windows are written by `steptweet eval --leave-out DATASET --features` (the model trained without it);
counted here are the windows with three axes and P ≥ 0.7 in gait recordings (a gait activity or a truth above 0) and
in WISDM clapping and folding-clothes recordings, and the share of each under both bars. `--paths` also traces every
gait recording (fold_paths.py's tracer, its data set's leave-out model) and counts the windows under both bars by
what makes them walking: a physical path (steady-stride or held-arm evidence ≥ 0.5), which a gate on the trees' part
alone spares as the repeat gate does, or the trees alone (≥ 0.7).

    swift build -c release --product steptweet
    python3 bench/h47hands_alternation.py [--binary B] [--paths] > bench/h47hands_alternation_result.md
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_walking import dataset_of, gait_of  # noqa: E402
from bout_eval import entries  # noqa: E402

DATASETS = ("bangle_wrist", "dsads_arm", "oxford_opt", "tug_wrist", "wisdm_watch")


def windows(binary, shared, work):
    """Every data set's windows, each counted by the model trained without it."""
    for ds in DATASETS:
        for m in ("steps", "activities"):
            out = os.path.join(work, f"{ds}-{m}")
            os.makedirs(out)
            run = subprocess.run([binary, "eval", "--leave-out", ds, "--features", out,
                                  os.path.join(shared, "data", m, "manifest.csv")], capture_output=True)
            if run.returncode == 0:
                yield from csv.DictReader(open(os.path.join(out, "windows.csv")))


def paths(shared, arm_swing=-0.1, own_share=0.25):
    """Per data set: gait windows with axes, those under both bars, and of them by physical path or by the trees."""
    from fold_paths import NAMES, build_tracer, run_traces
    gait = [e for e in entries(shared) if gait_of(e) is not None or e["truth_steps"] not in ("", "0")]
    full = lambda e: os.path.join(os.path.dirname(e["manifest"]), e["file"])
    print(f"\n## Gait windows under both bars (arm_swing < {arm_swing}, along_own_share < {own_share}), by what makes "
          "them walking\n")
    print("| data set | gait windows with axes | under both bars | by a physical path (≥ 0.5) | by the trees alone (≥ 0.7) |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as work:
        tracer = build_tracer(work)
        for ds in DATASETS:
            files = [full(e) for e in gait if dataset_of(e) == ds]
            params = json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{ds}.json")))
            c = collections.Counter()
            for trace in run_traces(tracer, work, params, files).values():
                for w in trace["windows"]:
                    d = dict(zip(NAMES, w))
                    if d["along_own_share"] == -9:
                        continue
                    c["all"] += 1
                    if d["arm_swing"] < arm_swing and d["along_own_share"] < own_share:
                        c["both"] += 1
                        path = max(d["steady"], d["held"])
                        c["path"] += path >= 0.5
                        c["trees"] += path < 0.5 and d["trees"] >= 0.7
            print(f"| {ds} | {c['all']} | {c['both']} | {c['path']} | {c['trees']} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--paths", action="store_true", help="also trace the gait windows under both bars (~1 min)")
    args = ap.parse_args()
    es = {e["file"]: e for e in entries(args.shared)}
    groups = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as work:
        for w in windows(args.binary, args.shared, work):
            e = es.get(w["file"])
            if e is None or w["has_axes"] != "1" or float(w["probability"]) < 0.7:
                continue
            if e.get("activity") in ("clapping", "folding-clothes") and dataset_of(e) == "wisdm_watch":
                group = e["activity"]
            elif gait_of(e) is not None or e["truth_steps"] not in ("", "0"):
                group = dataset_of(e)
            else:
                continue
            groups[group].append((float(w["arm_swing"]), float(w["along_own_share"])))
    names = [g for g in DATASETS if g in groups] + ["clapping", "folding-clothes"]
    print("# h47hands: alternation and the own share, gait against clapping, out of dataset\n")
    print("Share of windows (three axes, P ≥ 0.7) under both bars; gait: the walks, runs and climbs of each data set.\n")
    print("| rule | " + " | ".join(f"{g} ({len(groups[g])})" for g in names) + " |")
    print("|---" * (1 + len(names)) + "|")
    for a in (-0.05, -0.1):
        for b in (0.2, 0.25, 0.3):
            cells = [f"{np.mean([(s < a) and (o < b) for s, o in groups[g]]):.1%}" for g in names]
            print(f"| arm_swing < {a} and along_own_share < {b} | " + " | ".join(cells) + " |")
    print()
    for g in names:
        v = np.array(groups[g])
        print(f"- {g}: arm_swing 5th / 10th / 50th percentile "
              + " / ".join(f"{x:.2f}" for x in np.percentile(v[:, 0], [5, 10, 50]))
              + "; along_own_share 5th / 10th / 50th " + " / ".join(f"{x:.2f}" for x in np.percentile(v[:, 1], [5, 10, 50])))
    if args.paths:
        paths(args.shared)


if __name__ == "__main__":
    main()
