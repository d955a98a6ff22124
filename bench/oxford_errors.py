#!/usr/bin/env python3
"""Where the Oxford phones' counting errors come from (issue #47), per file. From ../shared only; numpy, scipy (peer).

    swift build -c release --product steptweet
    python3 bench/oxford_errors.py [--binary B] [--shared ../shared] > bench/oxford_errors_result.md

Per recording: the truth; the count out of dataset (`eval --leave-out oxford_opt`), in sample and by the rhythm alone
(`--rhythm-only`); the peer (../shared/tools/peer_findpeaks.py, d 0.307 s, prominence 0.187 g). Then what the counted
steps are (`count --step-times`, in sample), matched to the peaks of a numpy copy of the detector's 3 Hz low-pass and
two hysteresis trackers (1.2 and 0.5 m/s², within 2 ms): strong peaks, weak peaks (`minSwingInWalk`), and steps at
no peak (missed steps filled in); strong peaks between the first and the last step that were not counted (under
`minStepInterval` after a step, mostly: a bag's bounce); strong peaks before the first step and after the last one
(bout start and end).
"""
import csv, os, subprocess, sys, tempfile
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector_study import ROOT, arguments, eval_counts, low_pass, magnitude, peaks  # noqa: E402


def counts_by_name(binary, manifest, args):
    """`steptweet eval`'s count of each recording of `manifest`, by file name."""
    return {os.path.basename(f): counted for f, counted in eval_counts(binary, args + [manifest]).items()}


def near(times, t):
    return len(times) > 0 and np.min(np.abs(times - t)) <= 2_000_000


def main():
    args = arguments(__doc__).parse_args()
    folder = os.path.join(args.shared, "data", "steps")
    rows = [r for r in csv.DictReader(open(os.path.join(folder, "manifest.csv"))) if r["file"].startswith("oxford_opt/")]
    with tempfile.TemporaryDirectory() as work:
        manifest = os.path.join(work, "oxford.csv")
        with open(manifest, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            for r in rows:
                w.writerow(dict(r, file=os.path.join(folder, r["file"])))
        models = os.path.join(ROOT, "bench", "leave_out")
        held_out = counts_by_name(args.binary, manifest, ["--leave-out", "oxford_opt", "--models", models])
        in_sample = counts_by_name(args.binary, manifest, [])
        rhythm = counts_by_name(args.binary, manifest, ["--rhythm-only"])
        peer_out = subprocess.run(
            [sys.executable, os.path.join(args.shared, "tools", "peer_findpeaks.py"), "count", "--d", "0.307", "--p",
             "0.187"] + [os.path.join(folder, r["file"]) for r in rows], check=True, capture_output=True, text=True).stdout
        peer = {os.path.basename(l.split("\t")[0]): int(l.split("\t")[1]) for l in peer_out.splitlines() if "\t" in l}
        print("| recording | truth | out of dataset | in sample | rhythm only | peer | strong | weak | filled | "
              "strong not counted | strong before first / after last |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        ape = {"out of dataset": [], "in sample": [], "rhythm only": [], "peer": []}
        for r in rows:
            name, truth = os.path.basename(r["file"]), int(r["truth_steps"])
            path = os.path.join(folder, r["file"])
            times = os.path.join(work, "steps.txt")
            subprocess.run([args.binary, "count", "--step-times", times, path], check=True, capture_output=True)
            steps = np.array([int(x) for x in open(times).read().split()], dtype=np.int64)
            t, m = magnitude(path)
            v = low_pass(t, m)
            strong, weak = peaks(t, v, 1.2), peaks(t, v, 0.5)
            at_strong = sum(near(strong, s) for s in steps)
            at_weak = sum(not near(strong, s) and near(weak, s) for s in steps)
            inside = strong[(strong >= steps[0]) & (strong <= steps[-1])] if len(steps) else strong
            missed = sum(not near(steps, p) for p in inside)
            before, after = (np.sum(strong < steps[0]), np.sum(strong > steps[-1])) if len(steps) else (0, 0)
            for key, counts in (("out of dataset", held_out), ("in sample", in_sample), ("rhythm only", rhythm),
                                ("peer", peer)):
                ape[key].append(abs(counts[name] - truth) / truth * 100)
            e = lambda n: f"{n} ({n - truth:+d})"
            print(f"| {name[:-4]} | {truth} | {e(held_out[name])} | {e(in_sample[name])} | {e(rhythm[name])} | "
                  f"{e(peer[name])} | {at_strong} | {at_weak} | {len(steps) - at_strong - at_weak} | {missed} | "
                  f"{before} / {after} |")
        print()
        print("MAPE: " + ", ".join(f"{k} {np.mean(v):.2f} %" for k, v in ape.items()))


if __name__ == "__main__":
    main()
