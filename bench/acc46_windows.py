#!/usr/bin/env python3
"""acc46 (issue #47): the carried-arm features of every scored window with three axes over ../shared, as the detector
measures them (bench/bout_trace.swift, built with `swiftc -O` beside Sources/StepDetection: `vectorStride`,
`carriedStep`, `carriedJolt`), and how many windows of p3's two 15° rail walks and of the recordings whose truth is 0
each setting of the path's four bars would take (the window rule alone; steps: acc46_sweep.py). One parameter set
(the DSADS leave-out model's) for every file: the features do not depend on the trees, only on which windows the
rhythm makes the recognizer score.

    python3 bench/acc46_windows.py [--tracer T] [--cache F] > bench/acc46_windows_result.md
"""
import argparse, collections, csv, json, os, pickle, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from tracer_build import compile_tracer  # noqa: E402


def dump(tracer, shared, params):
    rows = []
    for folder in ("activities", "steps"):
        root = os.path.join(shared, "data", folder)
        for r in csv.DictReader(open(os.path.join(root, "manifest.csv"))):
            rows.append((os.path.join(root, r["file"]), r["file"], r["truth_steps"], r.get("activity") or ""))
    meta = {r[0]: r[1:] for r in rows}
    out = []
    for i in range(0, len(rows), 60):
        res = subprocess.run([tracer, params] + [r[0] for r in rows[i:i + 60]], capture_output=True, text=True,
                             check=True)
        for line in res.stdout.splitlines():
            t = json.loads(line)
            # start, end, path, hasAxes, held, carried, vectorStride, carriedStep, carriedJolt, bodySway, rStride
            out.append((t["file"], [w[:2] + w[5:6] + w[7:8] + w[11:18] for w in t["windows"]], len(t["steps"])))
    return out, meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tracer", help="a bout_trace binary built from this checkout (built when not given)")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--cache", help="pickle of the windows: read when it exists, else written")
    args = ap.parse_args()
    params = os.path.join(ROOT, "bench", "leave_out", "dsads_arm.json")
    if args.cache and os.path.exists(args.cache):
        out, meta = pickle.load(open(args.cache, "rb"))
    else:
        with tempfile.TemporaryDirectory() as work:
            tracer = args.tracer or compile_tracer(os.path.join(work, "tracer"),
                                                   os.path.join(ROOT, "bench", "bout_trace.swift"), "BoutTrace",
                                                   "bout_trace")
            out, meta = dump(tracer, args.shared, params)
        if args.cache:
            pickle.dump((out, meta), open(args.cache, "wb"))
    kinds = collections.defaultdict(list)
    for f, ws, _ in out:
        rel, truth, act = meta[f]
        kind = "rail" if "p3_walking-treadmill-4kmh-15deg" in rel else ("none" if truth == "0" else "walk")
        for w in ws:
            if w[3] == 1:
                kinds[kind].append((rel, act, w[6], w[7], w[8]))
    print(f"Windows with three axes: rail {len(kinds['rail'])}, truth 0 {len(kinds['none'])}, "
          f"other gait {len(kinds['walk'])}.\n")
    rail = sorted(r[3] for r in kinds["rail"] if r[2] >= 0.75 and r[2] - r[3] >= 0.3 and r[4] >= 0.2)
    if rail:
        print(f"Rail windows passing stride 0.75, contrast 0.3, jolt 0.2: carriedStep from {rail[0]:.2f} "
              f"(1st percentile {rail[len(rail) // 100]:.2f}) to {rail[-1]:.2f}.\n")

    def take(rows, s, c, fl, j):
        return [r for r in rows if r[2] >= s and r[2] - r[3] >= c and r[3] >= fl and r[4] >= j]

    print("| stride | contrast | step floor | jolt | rail windows | truth-0 windows (files: activities) |")
    print("|---|---|---|---|---|---|")
    for s in (0.7, 0.75, 0.8):
        for c in (0.2, 0.3, 0.4):
            for fl in (-0.3, -0.4, -0.5, None):
                for j in (0.1, 0.2, 0.3):
                    if (c != 0.3 and j != 0.2) or (fl not in (-0.4, None) and (c != 0.3 or j != 0.2)):
                        continue
                    r = take(kinds["rail"], s, c, -9 if fl is None else fl, j)
                    n = take(kinds["none"], s, c, -9 if fl is None else fl, j)
                    acts = collections.Counter((x[1] or x[0].split("/")[0]) for x in n)
                    print(f"| {s} | {c} | {'none' if fl is None else fl} | {j} | {len(r)} / {len(kinds['rail'])} | "
                          f"{len(n)} ({len(set(x[0] for x in n))}" + (": " if n else "")
                          + ", ".join(f"{a} {k}" for a, k in acts.most_common()) + ") |")


if __name__ == "__main__":
    main()
