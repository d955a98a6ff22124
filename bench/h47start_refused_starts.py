#!/usr/bin/env python3
"""What the walking gate refuses at a walk's start (issue #47, h47start): per data set, out of dataset, the steps a
gate look-back over any share would count (refused steps of a run's own rhythm bout within REACH seconds before its
first accepted step), in walks and in files with a truth of 0 (false steps if counted), and the share of the moving
energy along gravity over those steps' own seconds (step ± 0.3 s): per step, and per start (energy-weighted over its
steps). Then what two criteria would count at each share X: per step read backwards from the run, stopping at the
first step under X (what GateLookBack.swift does), and a start counted whole when its own share reaches X.

    python3 bench/h47start_refused_starts.py [--reach 6] > bench/h47start_refused_starts_result.md

Built like bench/bout_misses.py's tracer: `bench/h47start_refused_starts.swift` with Sources/StepDetection in one
module (needs swiftc), over a copy of it (the gate look-back, GateLookBack.swift, shipped in session 30). Each data set is counted with the model trained without it (`bench/leave_out/DATASET.json`).
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import numpy as np  # noqa: E402
from train_walking import DATASETS, dataset_of, gait_of  # noqa: E402
from bout_eval import detector_arguments  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

THRESHOLDS = (0.0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6)


def build(work):
    """The tracer, over the detector's sources (with the gate look-back, GateLookBack.swift)."""
    return compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "h47start_refused_starts.swift"),
                          "RefusedStarts", "refused_starts", parse_as_library=True)


def starts(steps):
    """Recovered steps grouped into starts (consecutive, under 2.5 s apart), each [(time, along, total)]."""
    out = []
    for s in steps:
        if out and s[0] - out[-1][-1][0] < 2.5:
            out[-1].append(s)
        else:
            out.append([s])
    return out


def run_after(start, steps_on, windows):
    """The run a start precedes: its counted steps (until a gap of 2.5 s), the best window over its first one, and
    the rhythm's continuity: the spread (CV) of the start's intervals and its mean interval over the run's median
    (its first 20 intervals)."""
    after = [t for t in steps_on if t > start[-1][0]]
    n, last, run = 0, start[-1][0], []
    for t in after:
        if t - last > 2.5:
            break
        n, last = n + 1, t
        run.append(t)
    first = after[0] if after else start[-1][0]
    p = max((w[2] for w in windows if w[0] <= first < w[1]), default=0.0)
    times = [s[0] for s in start] + run[:1]
    own = np.diff(times)
    run_intervals = np.diff(run[:21])
    cv = float(np.std(own) / np.mean(own)) if len(own) >= 2 else float("nan")
    ratio = float(np.mean(own) / np.median(run_intervals)) if len(own) and len(run_intervals) else float("nan")
    return n, p, cv, ratio


def share(steps):
    total = sum(s[2] for s in steps)
    return sum(s[1] for s in steps) / total if total > 0 else float("nan")


def per_step_count(start, x):
    n = 0
    for s in reversed(start):
        if s[2] > 0 and s[1] >= x * s[2]:
            n += 1
        else:
            break
    return n


def q(values):
    v = [x for x in values if x == x]
    return " / ".join(f"{np.percentile(v, p):.2f}" for p in (10, 50, 90)) if v else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap, binary=False, overrides=False)
    ap.add_argument("--reach", type=float, default=6)
    args = ap.parse_args()
    es = []
    for name in ("steps", "activities"):
        for r in csv.DictReader(open(os.path.join(args.shared, "data", name, "manifest.csv"))):
            r["path"] = os.path.join(args.shared, "data", name, r["file"])
            es.append(r)
    kind = lambda e: "walk" if e["truth_steps"] not in ("", "0") or gait_of(e) else (
        "zero" if e["truth_steps"] == "0" else None)
    results = collections.defaultdict(list)  # (dataset, kind) -> [start]
    counted = collections.defaultdict(list)  # (dataset, kind) -> shares of the steps counted without the look-back
    runs = collections.defaultdict(list)  # (dataset, kind) -> per start: (steps, run's steps, its first window's best p)
    files = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        binary = build(work)
        for d in DATASETS:
            params = json.load(open(os.path.join(args.models, f"{d}.json")))
            params["startLookBackSeconds"] = args.reach
            path = os.path.join(work, f"{d}.json")
            json.dump(params, open(path, "w"))
            mine = [e for e in es if dataset_of(e) == d and kind(e)]
            out = subprocess.run([binary, path] + [e["path"] for e in mine],
                                 check=True, capture_output=True, text=True).stdout
            for e, line in zip(mine, out.splitlines()):
                r = json.loads(line)
                files[(d, kind(e))] += 1
                results[(d, kind(e))] += starts(r["steps"])
                counted[(d, kind(e))] += r["countedShares"]
                for st in starts(r["steps"]):
                    runs[(d, kind(e))].append((len(st),) + run_after(st, r["stepsOn"], r["windows"]))
    print(f"# h47start: refused starts a gate look-back of {args.reach:g} s could count, out of dataset\n")
    print("Per data set, walks and files with a truth of 0: the refused steps of a run's start within the reach "
          "(any share), in how many starts; the share along gravity over their own seconds (10th / 50th / 90th "
          "percentile) per step and per start; beside them, the same share per step of the steps counted without the look-back.\n")
    print("| data set | files | kind | steps | starts | per-step share | per-start share | counted steps' share |")
    print("|---|---|---|---|---|---|---|---|")
    for (d, k), ss in sorted(results.items()):
        steps = [s for start in ss for s in start]
        print(f"| {d} | {files[(d, k)]} | {k} | {len(steps)} | {len(ss)} | {q([s[1] / s[2] if s[2] > 0 else float('nan') for s in steps])} | {q([share(st) for st in ss])} | {q(counted[(d, k)])} |")
    print("\n## The run each start precedes: its counted steps, and the best window over its first step\n")
    print("Rhythm continuity: the spread (CV) of the start's intervals (to the run's first step), and its mean interval"
          " over the run's median (10th / 50th / 90th percentiles).\n")
    print("| data set | kind | starts | run steps | best window | start's interval CV | start / run interval |")
    print("|---|---|---|---|---|---|---|")
    for (d, k), rs in sorted(runs.items()):
        if rs:
            print(f"| {d} | {k} | {len(rs)} | {q([r[1] for r in rs])} | {q([r[2] for r in rs])} | "
                  f"{q([r[3] for r in rs])} | {q([r[4] for r in rs])} |")
    print("\nPer start (steps, run steps, best window, interval CV, start / run interval): " + "; ".join(
        f"{d} {k}: " + ", ".join(f"{a}/{b}/{c:.2f}/{e:.2f}/{f:.2f}" for a, b, c, e, f in rs)
        for (d, k), rs in sorted(runs.items()) if rs))
    for title, count in (("per step, read backwards, stopping at the first under X (the rule of GateLookBack.swift)",
                          lambda st, x: per_step_count(st, x)),
                         ("a start whole when its own energy-weighted share reaches X",
                          lambda st, x: len(st) if share(st) >= x else 0)):
        print(f"\n## Steps counted {title}\n")
        print("| data set | kind | " + " | ".join(f"X {x:g}" for x in THRESHOLDS) + " |")
        print("|---|---|" + "---|" * len(THRESHOLDS))
        totals = collections.defaultdict(lambda: [0] * len(THRESHOLDS))
        for (d, k), ss in sorted(results.items()):
            row = [sum(count(st, x) for st in ss) for x in THRESHOLDS]
            totals[k] = [a + b for a, b in zip(totals[k], row)]
            print(f"| {d} | {k} | " + " | ".join(map(str, row)) + " |")
        for k, row in sorted(totals.items()):
            print(f"| all | {k} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
