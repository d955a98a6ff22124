#!/usr/bin/env python3
"""What the walking recognizer sees where it refuses the 3 h Bangle.js walk's rhythm steps (issue #10).

    python3 bench/long_walk_windows.py [steptweet] > bench/long_walk_windows_result.txt

Runs `steptweet eval --features` (the shipped parameters) on both shared manifests and prints, per group, the median
of every window feature over the windows that hold at least one of the group's rhythm steps, with the windows'
median probability of walking. Groups: the 3 h walk's refused and counted steps, the 13 counted Bangle.js walks, the
Bangle.js recordings under 100 true steps (drives, train, desk work), WISDM's walking and its hand activities.
numpy only.
"""
import collections, csv, os, subprocess, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "data")
LONG_WALK = "bangle_wrist/10134.csv"


def dump(binary, manifest, out):
    subprocess.run([binary, "eval", "--features", out, "--json", manifest], check=True, capture_output=True)
    steps = collections.defaultdict(list)
    for r in csv.DictReader(open(os.path.join(out, "steps.csv"))):
        steps[r["file"]].append((float(r["t_s"]), r["counted"] == "1"))
    windows = collections.defaultdict(list)
    reader = csv.DictReader(open(os.path.join(out, "windows.csv")))
    names = reader.fieldnames[reader.fieldnames.index("has_axes") + 1:]
    for w in reader:
        windows[w["file"]].append((float(w["start_s"]), float(w["end_s"]),
                                   [float(w[k]) for k in names] + [float(w["probability"])]))
    return steps, windows, names


def group(files, steps, windows, keep=lambda counted: True):
    rows = []
    for f in files:
        times = np.array([t for t, counted in steps.get(f, []) if keep(counted)])
        if len(times) == 0:
            continue
        for start, end, values in windows[f]:
            if np.searchsorted(times, end, side="right") > np.searchsorted(times, start):
                rows.append(values)
    return np.array(rows)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/steptweet")
    with tempfile.TemporaryDirectory() as work:
        steps, windows, names = dump(binary, os.path.join(SHARED, "steps", "manifest.csv"), os.path.join(work, "s"))
        wsteps, wwindows, _ = dump(binary, os.path.join(SHARED, "activities", "manifest.csv"), os.path.join(work, "a"))
    key = lambda f: f.split("data/steps/")[-1].split("data/activities/")[-1]
    steps = {key(f): v for f, v in steps.items()}
    windows = {key(f): v for f, v in windows.items()}
    manifest = list(csv.DictReader(open(os.path.join(SHARED, "steps", "manifest.csv"))))
    bangle = [r for r in manifest if r["file"].startswith("bangle_wrist/") and r["file"] != LONG_WALK
              and r["file"] != "bangle_wrist/3058.csv"]
    walks = [r["file"] for r in bangle if int(r["truth_steps"]) >= 100]
    under = [r["file"] for r in bangle if int(r["truth_steps"]) < 100]
    activity = collections.defaultdict(list)
    for f in wsteps:
        activity[f.rsplit("_", 1)[-1][:-4]].append(f)
    columns = [("3h refused", group([LONG_WALK], steps, windows, lambda c: not c)),
               ("3h counted", group([LONG_WALK], steps, windows, lambda c: c)),
               ("Bangle walks", group(walks, steps, windows)),
               ("Bangle <100", group(under, steps, windows))]
    for a in ("walking", "clapping", "folding-clothes", "brushing-teeth", "drinking", "eating-sandwich"):
        columns.append(("WISDM " + a.split("-")[0], group(activity[a], wsteps, wwindows)))
    print("Median window features where the rhythm has steps (shipped model; "
          "Bangle <100: drives, train, desk work, static)")
    print(f"{'':22}" + "".join(f"{c:>15}" for c, _ in columns))
    print(f"{'windows':22}" + "".join(f"{len(v):>15}" for _, v in columns))
    for i, n in enumerate(names + ["P(walking)"]):
        print(f"{n:22}" + "".join(f"{np.median(v[:, i]):>15.2f}" for _, v in columns))


if __name__ == "__main__":
    main()
