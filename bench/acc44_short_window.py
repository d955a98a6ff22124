#!/usr/bin/env python3
"""acc44 (issue #47): does a short window over the newest seconds tell the walk's rhythm bout running on into the
hand's peaks (acc42: 56 % of the false steps after a walk) from the steps of real walks?

bench/acc44_trace.swift (built here with the checkout's detector sources, each data set counted with the model trained
without it) measures, at the sample where the rhythm credits a step, the recognizer's features over the newest ticks
alone (`scoreWindow(ticks: n)`: n = 25 ticks, 2.0 s, and 38, 3.04 s; the ring's newest tick is the crediting sample,
a few ticks after the step), `bodyStepping` over the step's last 2 and 3 s (+ 0.3 s) at its interval, and
`armRepeats` over the newest 3 s. Each counted step is then put in a group:
- after-walk streams (acc41_after_walk_splice.py `--keep` folder, not the twins): **run-on** = the walk's bout's
  counted steps after the walk's last reference step + 0.5 s (acc42's class); **walk's own** = the same bouts' counted
  steps before the walk's last reference step; **new bout after the walk** = the rest of the false steps;
- real gait (every counted step): WISDM walking (1609_walking's 81-122 s apart), jogging, stairs; DSADS walking,
  treadmill, stepper, stairs, running; TUG runs; Bangle.js walks; Oxford phones; wrist_watch walks.
A rule that ends a walking run at a flagged step is judged by the share of run-on steps at or after the first flagged
run-on step of each stream (an upper bound of what it removes) against the share of each walk's steps flagged and the
number of walking files with any flag (each flag ends a walk's run: its next steps wait ~10 s for `enter`).

    python3 bench/acc44_short_window.py --streams DIR [--tracer T] [--dump F] > bench/acc44_short_window_result.md
    python3 bench/acc44_short_window.py --load F > ...    (the same tables from a --dump, without tracing again)
"""
import argparse, collections, csv, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

MARGIN = 0.5
# Columns of a credited row (acc44_trace.swift): time, newest tick, interval, then per short window 13 values.
SHORT = ["p_trees", "p_gated", "log_std", "r_step", "along_share", "own_share", "along_step", "arm_swing",
         "gravity_steadiness", "stride_turn", "along_stride", "vector_stride", "direction_steadiness"]
COLS = {"interval": 2}
for base, n in ((3, "2s"), (16, "3s")):
    for i, name in enumerate(SHORT):
        COLS[f"{name}_{n}"] = base + i
for base, w in ((29, "2s"), (32, "3s")):
    for i, name in enumerate(("body_share", "body_stride", "body_motion")):
        COLS[f"{name}_{w}"] = base + i
COLS["arm_across_half"] = 35
COLS["arm_along"] = 36
GAIT = {"walking", "walking-treadmill-4kmh", "walking-treadmill-4kmh-15deg", "stepper", "stairs-up", "stairs-down",
        "stairs", "jogging", "running-treadmill-8kmh", "timed-up-and-go"}


def mean_p(windows, x):
    ps = [w[2] for w in windows if w[0] <= x < w[1]]
    return sum(ps) / len(ps) if ps else 1.0


def rows_of(trace, xs):
    """The credited row and windows' mean P of each counted step in `xs` (None: not credited by the rhythm)."""
    by_time = {round(c[0], 6): c for c in trace["credited"]}
    out = []
    for x in xs:
        c = by_time.get(round(x, 6))
        if c is not None:
            out.append(dict(t=x, row=c, p=mean_p(trace["windows"], x)))
    return out


def after_walk(tracer, streams, work):
    rows = [r for r in json.load(open(os.path.join(streams, "rows.json"))) if not r["twin"]]
    traces = {}
    for d in sorted({r["dataset"] for r in rows}):
        traces.update(run(tracer, work, [r["file"] for r in rows if r["dataset"] == d], d, []))
    groups = collections.defaultdict(list)
    seqs = []
    for r in rows:
        t, last = traces[r["file"]], r["last"]
        seq = []
        for x in t["steps"]:
            bout = next((b for b in t["rhythm"] if b[0] - 1e-6 <= x <= b[1] + 1e-6), None)
            if x <= last and bout is not None:
                key = "after-walk: the walk's own steps (before its end)"
            elif x > last + MARGIN and bout is not None and bout[0] <= last + MARGIN:
                key = "after-walk: run-on steps"
            elif x > last + MARGIN:
                key = "after-walk: other false steps (new bouts)"
            else:
                continue
            for s in rows_of(t, [x]):
                s.update(file=r["file"], since_end=x - last, label=r["label"])
                groups[key].append(s)
                if key.endswith("run-on steps"):
                    seq.append(s)
        seqs.append(seq)
    return groups, seqs


def t0_of(path):
    with open(path) as f:
        next(f)
        return float(next(f).split(",")[0]) / 1000


def gait(tracer, shared, work):
    """Counted steps of every gait recording, by group; and 1609_walking's steps by time from its start."""
    files = []
    for r in csv.DictReader(open(os.path.join(shared, "data", "activities", "manifest.csv"))):
        if r["activity"] in GAIT:
            d = r["file"].split("/")[0]
            name = {"wisdm_watch": "WISDM", "dsads_arm": "DSADS", "tug_wrist": "TUG"}[d] + " " + r["activity"]
            files.append((d, os.path.join(shared, "data", "activities", r["file"]), name))
    for r in csv.DictReader(open(os.path.join(shared, "data", "steps", "manifest.csv"))):
        d = r["file"].split("/")[0]
        if int(r["truth_steps"]) > 0:
            name = {"bangle_wrist": "Bangle.js walks", "oxford_opt": "Oxford phones",
                    "wrist_watch": "wrist_watch walks"}
            files.append((d, os.path.join(shared, "data", "steps", r["file"]), name[d]))
    traces = {}
    for d in sorted({f[0] for f in files}):
        traces.update(run(tracer, work, [f[1] for f in files if f[0] == d], d, []))
    groups = collections.defaultdict(list)
    slow = []
    for d, path, name in files:
        t = traces[path]
        t0 = t0_of(path)
        for s in rows_of(t, t["steps"]):
            s["file"] = os.path.relpath(path, os.path.join(shared, "data"))
            key = name
            if path.endswith("1609_walking.csv"):
                slow.append(dict(s, since=s["t"] - t0))
                if 81 <= s["t"] - t0 <= 122:
                    key = "WISDM 1609_walking 81-122 s"
            groups[key].append(s)
    return groups, slow


def value(s, name):
    return s["row"][COLS[name]]


FEATURES = ["p_trees_2s", "p_gated_2s", "along_share_2s", "own_share_2s", "along_step_2s", "arm_swing_2s",
            "along_stride_3s", "vector_stride_3s", "gravity_steadiness_2s", "stride_turn_3s", "log_std_2s",
            "r_step_2s", "p_trees_3s", "p_gated_3s", "along_share_3s", "along_step_3s", "arm_swing_3s",
            "body_share_2s", "body_stride_3s", "body_motion_2s", "arm_across_half", "arm_along"]


def describe(groups, order):
    """Median (p5-p95) of each feature per group."""
    for chunk in (FEATURES[:8], FEATURES[8:15], FEATURES[15:]):
        print("| steps | n | " + " | ".join(chunk) + " |")
        print("|---|---|" + "---|" * len(chunk))
        for g in order:
            xs = groups.get(g, [])
            if not xs:
                continue
            cells = []
            for f in chunk:
                v = np.array([value(s, f) for s in xs])
                v = v[v > -8.9]
                cells.append("-" if len(v) == 0 else
                             f"{np.median(v):.2f} ({np.percentile(v, 5):.2f}-{np.percentile(v, 95):.2f})")
            print(f"| {g} | {len(xs)} | " + " | ".join(cells) + " |")
        print()


def rules():
    """(name, flag(step)) candidates: a feature under a bar, alone or with the windows' mean P under 0.5."""
    out = []
    for f, bars in (("along_share_2s", (0.1, 0.15, 0.2)), ("along_share_3s", (0.1, 0.15, 0.2)),
                    ("own_share_2s", (0.0, 0.05, 0.1)), ("along_step_2s", (0.0, 0.2)),
                    ("p_gated_2s", (0.05, 0.1)), ("p_trees_2s", (0.05, 0.1)), ("p_gated_3s", (0.05, 0.1)),
                    ("along_stride_3s", (-0.2, 0.0)), ("vector_stride_3s", (-0.2, 0.0)),
                    ("body_share_2s", (0.1, 0.15)), ("body_stride_3s", (-0.2, 0.0)),
                    ("arm_swing_2s", (-0.5, -0.3))):
        for b in bars:
            out.append((f"{f} < {b}", lambda s, f=f, b=b: -8.9 < value(s, f) < b))
    pairs = [
        ("along_share_2s < 0.15 and along_step_2s < 0.2",
         lambda s: -8.9 < value(s, "along_share_2s") < 0.15 and value(s, "along_step_2s") < 0.2),
        ("along_share_3s < 0.15 and along_stride_3s < 0",
         lambda s: -8.9 < value(s, "along_share_3s") < 0.15 and value(s, "along_stride_3s") < 0),
        ("along_share_2s < 0.15 and arm_swing_2s < 0",
         lambda s: -8.9 < value(s, "along_share_2s") < 0.15 and value(s, "arm_swing_2s") < 0),
        ("p_gated_2s < 0.05 and p_gated_3s < 0.05",
         lambda s: -8.9 < value(s, "p_gated_2s") < 0.05 and -8.9 < value(s, "p_gated_3s") < 0.05),
        ("own_share_2s < 0.05 and along_share_3s < 0.2",
         lambda s: -8.9 < value(s, "own_share_2s") < 0.05 and -8.9 < value(s, "along_share_3s") < 0.2),
    ]
    out += pairs
    with_p = []
    for name, flag in out:
        for bar in (0.5, 0.3):
            with_p.append((f"{name}, windows' P < {bar}", lambda s, flag=flag, bar=bar: s["p"] < bar and flag(s)))
    return out + with_p


def sweep(groups, seqs, walks):
    total = sum(len(q) for q in seqs)
    names = ["after-walk: the walk's own steps (before its end)", "WISDM 1609_walking 81-122 s", "WISDM walking",
             "DSADS walking", "DSADS stepper", "DSADS stairs-up", "TUG timed-up-and-go", "Bangle.js walks",
             "Oxford phones"]
    short = ["walk's own", "1609 81-122 s", "WISDM walking", "DSADS walking", "DSADS stepper", "DSADS stairs up",
             "TUG", "Bangle.js", "Oxford"]
    print("| rule (ends the run at the first flagged step) | run-on removed (of " + str(total) + ") | first run-on "
          "step flagged | " + " | ".join(short) + " | all gait steps | gait files with a flag |")
    print("|---|---|---|" + "---|" * len(names) + "---|---|")
    for name, flag in rules():
        removed = 0
        firsts = []
        for q in seqs:
            i = next((i for i, s in enumerate(q) if flag(s)), None)
            removed += 0 if i is None else len(q) - i
            if q:
                firsts.append(flag(q[0]))
        rate = lambda xs: f"{100 * np.mean([flag(s) for s in xs]):.1f} %" if xs else "-"  # noqa: E731
        gait_steps = [s for g in walks for s in groups[g]]
        files = {s["file"] for s in gait_steps if flag(s)}
        nfiles = len({s["file"] for s in gait_steps})
        print(f"| {name} | {removed} ({100 * removed / total:.0f} %) | {100 * np.mean(firsts):.1f} % | "
              + " | ".join(rate(groups.get(n, [])) for n in names)
              + f" | {rate(gait_steps)} | {len(files)} of {nfiles} |")
    print()


def slow_walk(slow):
    """1609_walking by 4-second stretches: steps, windows' mean P and the short window's physics."""
    print("| 1609_walking, s from its start | counted steps | windows' mean P | along_share 2 s | own_share 2 s | "
          "along_step 2 s | arm_swing 2 s | along_stride 3 s | log_std 2 s (amplitude of the magnitude) | "
          "p_trees 2 s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    by = collections.defaultdict(list)
    for s in slow:
        by[int(s["since"] // 4) * 4].append(s)
    for k in sorted(by):
        xs = by[k]
        med = lambda f: np.median([value(s, f) for s in xs])  # noqa: E731
        print(f"| {k}-{k + 4} | {len(xs)} | {np.mean([s['p'] for s in xs]):.2f} | {med('along_share_2s'):.2f} | "
              f"{med('own_share_2s'):.2f} | {med('along_step_2s'):.2f} | {med('arm_swing_2s'):.2f} | "
              f"{med('along_stride_3s'):.2f} | {med('log_std_2s'):.2f} | {med('p_trees_2s'):.2f} |")
    print()


def by_time_and_activity(groups):
    """The run-on steps by seconds after the walk's last reference step and by the activity after it."""
    rows = groups["after-walk: run-on steps"]
    by = collections.defaultdict(list)
    for s in rows:
        dt = s["since_end"]
        by["< 2 s after the walk" if dt < 2 else "2-4 s after" if dt < 4 else ">= 4 s after"].append(s)
    for s in rows:
        by[s["label"]].append(s)
    fs = ["along_share_2s", "own_share_2s", "along_step_2s", "vector_stride_3s", "along_stride_3s", "arm_swing_2s",
          "p_gated_2s"]
    print("| run-on steps | n | windows' mean P | " + " | ".join(fs) + " |")
    print("|---|---|---|" + "---|" * len(fs))
    for k in ["< 2 s after the walk", "2-4 s after", ">= 4 s after"] + sorted(k for k in by if "after" not in k):
        xs = by[k]
        cells = []
        for f in fs:
            v = np.array([value(s, f) for s in xs])
            v = v[v > -8.9]
            cells.append(f"{np.median(v):.2f}" if len(v) else "-")
        print(f"| {k} | {len(xs)} | {np.mean([s['p'] for s in xs]):.2f} | " + " | ".join(cells) + " |")
    print()


SEARCH = ["along_share_2s", "along_share_3s", "own_share_2s", "own_share_3s", "body_share_2s", "vector_stride_2s",
          "vector_stride_3s", "along_stride_3s", "body_stride_3s", "arm_swing_2s", "along_step_2s", "p_trees_2s",
          "p_gated_2s", "p_gated_3s", "r_step_2s", "arm_along"]


def best_rules(groups, seqs, walks, most_files=8, below=0.5):
    """The rules (windows' P < `below` and one feature, or two, under a bar; or one flagged on `k` consecutive steps)
    that remove the most run-on steps while flagging at most `most_files` gait files."""
    gait_steps = [s for g in walks for s in groups[g]]
    by_file = collections.defaultdict(list)
    for s in gait_steps:
        by_file[s["file"]].append(s)
    for xs in by_file.values():
        xs.sort(key=lambda s: s["t"])
    slow = groups["WISDM 1609_walking 81-122 s"]
    own = groups["after-walk: the walk's own steps (before its end)"]

    def first(q, flag, k=1):
        run = 0
        for i, s in enumerate(q):
            run = run + 1 if flag(s) else 0
            if run >= k:
                return len(q) - i
        return 0

    found = []
    bars = [round(float(b), 2) + 0.0 for b in np.arange(-0.3, 0.55, 0.05)]
    singles = [((f, b),) for f in SEARCH for b in bars]
    pairs = [((f1, b1), (f2, b2)) for i, f1 in enumerate(SEARCH) for f2 in SEARCH[i + 1:]
             for b1 in bars[::2] for b2 in bars[::2]]
    for k, terms in [(1, t) for t in singles + pairs] + [(k, t) for k in (2, 3) for t in singles]:
        def flag(s, terms=terms):
            return s["p"] < below and all(-8.9 < value(s, f) < b for f, b in terms)
        files = [f for f, xs in by_file.items() if first(xs, flag, k)]
        if len(files) > most_files:
            continue
        removed = sum(first(q, flag, k) for q in seqs)
        if removed:
            found.append((removed, k, terms, files, sum(flag(s) for s in slow), np.mean([flag(s) for s in own])))
    found.sort(key=lambda x: -x[0])
    total = sum(len(q) for q in seqs)
    print(f"Windows' mean P < {below}; at most {most_files} of {len(by_file)} gait files with a flag (k: the flag on k "
          "consecutive steps of a file or a stream's run-on); the 15 that remove the most:\n")
    print("| rule | k | run-on removed (of " + str(total) + ") | 1609 81-122 s flagged | walk's own steps flagged | "
          "gait files with a flag |")
    print("|---|---|---|---|---|---|")
    for removed, k, terms, files, slow_flags, own_rate in found[:15]:
        rule = " and ".join(f"{f} < {b + 0.0:g}" for f, b in terms)
        names = ", ".join(sorted(os.path.basename(f)[:-4] for f in files))
        print(f"| {rule} | {k} | {removed} ({100 * removed / total:.0f} %) | {slow_flags} of {len(slow)} | "
              f"{100 * own_rate:.2f} % | {len(files)}: {names} |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tracer")
    ap.add_argument("--streams", help="an acc41_after_walk_splice.py --keep folder (not with --load)")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--dump", help="also write every step's group, file, windows' P and row here (JSON)")
    ap.add_argument("--load", help="read a --dump instead of tracing")
    args = ap.parse_args()
    if args.load:
        d = json.load(open(args.load))
        aw = {k: v for k, v in d["groups"].items() if k.startswith("after-walk")}
        real = {k: v for k, v in d["groups"].items() if not k.startswith("after-walk")}
        seqs, slow = d["seqs"], d["slow"]
    else:
        with tempfile.TemporaryDirectory() as work:
            tracer = args.tracer or compile_tracer(os.path.join(work, "tracer"), os.path.join(
                ROOT, "bench", "acc44_trace.swift"), "BoutTrace", "acc44_trace")
            aw, seqs = after_walk(tracer, args.streams, work)
            real, slow = gait(tracer, args.shared, work)
    groups = dict(aw)
    groups.update(real)
    order = sorted(aw) + sorted(real)
    walks = sorted(real)
    if args.dump:
        json.dump(dict(groups=groups, seqs=seqs, slow=slow), open(args.dump, "w"))
    print(f"## Short-window features at each counted step ({sum(len(q) for q in seqs)} run-on steps in "
          f"{sum(1 for q in seqs if q)} of {len(seqs)} streams)\n")
    print("Median (5th-95th percentile) over the counted steps; -9 (no axes or no stride in the span) left out.\n")
    describe(groups, order)
    print("## The run-on steps by time after the walk and by activity (medians)\n")
    by_time_and_activity(groups)
    print("## Rules that would end a walking run at a flagged step\n")
    sweep(groups, seqs, walks)
    print("## The best rules that flag few gait files\n")
    best_rules(groups, seqs, walks)
    print("## WISDM 1609_walking by 4 s\n")
    slow_walk(slow)


if __name__ == "__main__":
    main()
