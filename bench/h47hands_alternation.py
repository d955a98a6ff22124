#!/usr/bin/env python3
"""Whether alternation (the arm swing in gait) beside the own share along gravity tells clapping from every walk, out
of dataset (issue #47, h47hands; a pointer for a later gate, nothing shipped).

Clapping's false steps pass the own-share gate by a hair (`along_own_share` 0.17 against 0.15) and its hands do not
alternate (`arm_swing` −0.12: the motion across gravity repeats every clap instead of reversing half a stride later).
Each data set's windows are written by `steptweet eval --leave-out DATASET --features` (the model trained without it);
counted here are the windows with three axes and P ≥ 0.7 in gait recordings (a gait activity or a truth above 0) and
in WISDM clapping and folding-clothes recordings, and the share of each under both bars.

    swift build -c release --product steptweet
    python3 bench/h47hands_alternation.py [--binary B] > bench/h47hands_alternation_result.md
"""
import argparse, collections, csv, os, subprocess, sys, tempfile

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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
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


if __name__ == "__main__":
    main()
