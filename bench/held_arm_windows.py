#!/usr/bin/env python3
"""Issue #47, the held-arm path: per-window distributions of `body_sway` and `r_stride` in the walks with a hand held
on a treadmill's rail or a stepper's handles (DSADS) against every hand-activity window of WISDM (36 people) and the
DSADS activities without steps, and the windows each setting of the path's two constants lets through.

Every window that holds a rhythm step, as `scripts/train_walking.py` dumps them (`steptweet eval --features`, every
window scored, the plain rhythm). A hand window the path takes makes steps only when it and its neighbours hold
`enter` on average over the ~10 windows that contain a step, so the longest run of consecutive windows taken in one
file is shown beside the count.

    swift build -c release --product steptweet
    python3 bench/held_arm_windows.py [--binary B] > bench/held_arm_windows_result.md
"""
import collections, csv, os, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector_study import arguments, eval_features  # noqa: E402

# The DSADS walks with a hand on the rail or the handles that count under 60 steps/min out of dataset on main c476e32
# (bench/held_arm_result.md), whatever limits them.
HELD = ("p1_walking-treadmill-4kmh_", "p2_walking-treadmill-4kmh_", "p1_walking-treadmill-4kmh-15deg",
        "p2_walking-treadmill-4kmh-15deg", "p3_walking-treadmill-4kmh-15deg", "p1_stepper", "p2_stepper",
        "p3_stepper", "p4_stepper", "p6_stepper")
DUMP = {"minSwingInWalk": 1e9, "shortLongGait": False, "fillStrideStart": False, "lookBackSeconds": 0,
        "shortBoutMinSteps": 0, "recognizer": {"enabled": True, "enter": 0.7, "stay": 0.1, "confident": 2}}
SWAYS = (0.05, 0.1, 0.15, 0.2, 0.25)
STRIDES = (0.65, 0.7, 0.75, 0.8, 0.85)


def windows(binary, shared, work):
    manifest = os.path.join(shared, "data", "activities", "manifest.csv")
    steps, scored = eval_features(binary, manifest, os.path.join(work, "features"), DUMP)
    meta = {r["file"]: r for r in csv.DictReader(open(manifest))}
    steps = {f: np.sort(v) for f, v in steps.items()}
    rows = []
    for w in scored:
        st = steps.get(w["file"])
        a, b = float(w["start_s"]), float(w["end_s"])
        if w["has_axes"] != "1" or st is None or np.searchsorted(st, b) == np.searchsorted(st, a):
            continue
        m = meta[w["file"]]
        rows.append({"file": w["file"], "start": a, "activity": m["activity"], "subject": m["subject"],
                     "truth": m["truth_steps"], "sway": float(w["body_sway"]), "stride": float(w["r_stride"])})
    return rows


def longest_run(rows, taken):
    """The longest run of consecutive windows (0.96 s apart) taken in one file."""
    best, run, last = 0, 0, {}
    for r, t in sorted(zip(rows, taken), key=lambda x: (x[0]["file"], x[0]["start"])):
        prev = last.get(r["file"])
        run = (run + 1 if prev is not None and abs(r["start"] - prev[0] - 0.96) < 0.01 and prev[1] else 1) if t else 0
        last[r["file"]] = (r["start"], t)
        best = max(best, run)
    return best


def main():
    args = arguments(__doc__).parse_args()
    with tempfile.TemporaryDirectory() as work:
        rows = windows(args.binary, args.shared, work)
    groups = {
        "held arm (DSADS rail walks, steppers)": [r for r in rows if r["file"].startswith("dsads")
                                                  and any(h in r["file"] for h in HELD)],
        "WISDM hand activity (truth 0, 36 people)": [r for r in rows if r["file"].startswith("wisdm")
                                                     and r["truth"] == "0"],
        "DSADS without steps (cycling, rowing, standing...)": [r for r in rows if r["file"].startswith("dsads")
                                                               and r["truth"] == "0"],
        "WISDM walking, jogging, stairs": [r for r in rows if r["file"].startswith("wisdm")
                                           and r["activity"] in ("walking", "jogging", "stairs")],
    }
    pct = (1, 5, 10, 50, 90, 95, 99, 100)
    print("## Per window (every window holding a rhythm step)\n")
    print("| windows | n | feature | " + " | ".join(f"{p}th" if p < 100 else "max" for p in pct) + " |")
    print("|---|---|---|" + "---|" * len(pct))
    for name, rs in groups.items():
        for k in ("sway", "stride"):
            v = np.percentile([r[k] for r in rs], pct)
            label = "body_sway" if k == "sway" else "r_stride"
            print(f"| {name} | {len(rs)} | {label} | " + " | ".join(f"{x:.2f}" for x in v) + " |")
    held, hands = groups["held arm (DSADS rail walks, steppers)"], groups["WISDM hand activity (truth 0, 36 people)"]
    quiet = groups["DSADS without steps (cycling, rowing, standing...)"]
    print("\n## Windows taken at each setting (both at or above it)\n")
    print("Held-arm windows taken (share); WISDM hand windows taken / longest run / people; DSADS windows without "
          "steps taken.\n")
    print("| body_sway \\ r_stride | " + " | ".join(str(s) for s in STRIDES) + " |")
    print("|---|" + "---|" * len(STRIDES))
    for sw in SWAYS:
        cells = []
        for st in STRIDES:
            take = lambda rs: [r["sway"] >= sw and r["stride"] >= st for r in rs]
            th = take(hands)
            people = len({r["subject"] for r, t in zip(hands, th) if t})
            cells.append(f"{np.mean(take(held)):.2f}; {sum(th)} / {longest_run(hands, th)} / {people}; "
                         f"{sum(take(quiet))}")
        print(f"| {sw} | " + " | ".join(cells) + " |")
    print("\n## Hand windows over body_sway 0.1 and r_stride 0.7 (the ramps' lower ends), by activity\n")
    taken = [r for r in hands if r["sway"] >= 0.1 and r["stride"] >= 0.7]
    counts = collections.Counter(r["activity"] for r in taken)
    print(", ".join(f"{a} {n}" for a, n in counts.most_common()) or "none")
    print("\n## Held-arm windows by file: median body_sway, r_stride, share taken at 0.15 / 0.75\n")
    by = collections.defaultdict(list)
    for r in held:
        by[os.path.basename(r["file"])[:-4]].append(r)
    print("| file | windows | body_sway | r_stride | taken |")
    print("|---|---|---|---|---|")
    for f, rs in sorted(by.items()):
        t = np.mean([r["sway"] >= 0.15 and r["stride"] >= 0.75 for r in rs])
        print(f"| {f} | {len(rs)} | {np.median([r['sway'] for r in rs]):.2f} | "
              f"{np.median([r['stride'] for r in rs]):.2f} | {t:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
