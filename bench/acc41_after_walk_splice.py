#!/usr/bin/env python3
"""acc41 (issue #47): what a walk's end costs the hand motion right after it. ../shared holds no recording of a walk
followed within seconds by hand motion, so this splices one, out of dataset, from one person's own recordings (one
device, one rate), with `free_living_splice.py`'s `Stream` (each segment rotated so its first second's gravity matches
the last second before it, the offset faded over 1 s):

    the last 25 s of a real walk | gap s of the same person standing (0-8) | 30 s of a non-walking activity

- WISDM (20 Hz, watch): each person's walk, ending halfway between its 6th- and 5th-last reference steps (a WISDM walk
  does not end in its file), then that person's standing, then each of their truth-0 activities (brushing, clapping,
  folding, eating x4, drinking, typing, writing, sitting, standing).
- DSADS (25 Hz, arm unit): each person's two walks (ending as WISDM's), standing, each truth-0 activity (cycling x2,
  lying x2, rowing, sitting, standing, elevator standing still).
- Bangle.js (12.5 Hz, wrist): the 100- and 150-step walks at their real end (half an interval after their last
  reference step), standing (`0_HughB-static`), desk work (`0_HughB-work-0`), the same person.

A walk's reference steps are the detector's own steps over the whole walk (`free_living_splice.Walk`: Bangle.js only
where that count is within 15 % of the truth). Steps counted after the walk's last reference step + `--margin` s are
false; per hour of what follows the walk (gap + activity). Each stream has a twin with the walk replaced by 25 s of
the same person standing (the same gap and activity samples): its false steps are the activity's own, so the
difference is what the walk's end adds. Counted by the detector traced from this checkout's sources (bout_trace.swift,
each data set with the model trained without it, `--set` overrides); `--check B` also counts every stream with the
release binary B (`eval --leave-out`) and says how many files differ from the tracer.

`--splice DIR` (a `free_living_splice.py --keep` folder) adds the potter streams' recall of the bouts that start
within 8 s after a counted step (acc40_categories.py's `whole bout after a counted walk`, its segments and margin).

    python3 bench/acc41_after_walk_splice.py [--binary B] [--splice DIR] [--set KEY=JSON ...] > bench/acc41_after_walk_result.md
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from acc39_group_bouts import segments  # noqa: E402
from bout_eval import detector_arguments, overrides_of  # noqa: E402
from free_living_splice import Stream, Walk, read  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

WALK_S, HAND_S, GAPS = 25.0, 30.0, (0, 2, 4, 6, 8)
WISDM_ZERO = ("brushing-teeth", "clapping", "folding-clothes", "eating-chips", "eating-pasta", "eating-sandwich",
              "eating-soup", "drinking", "typing", "writing", "sitting", "standing")


def piece(tv, seconds, rng):
    t, v = tv
    start = rng.uniform(0, max(t[-1] - t[0] - seconds, 0)) + t[0]
    m = (t >= start) & (t < start + seconds)
    return t[m], v[m]


def walk_end(walk, real_end):
    """The last WALK_S s of a walk and its last reference step (None: no usable reference)."""
    s = walk.steps
    if s is None or len(s) < 40:
        return None
    k = len(s) - 1 if real_end else len(s) - 6
    end = s[k] + (s[k] - s[k - 1]) / 2 if real_end else (s[k] + s[k + 1]) / 2
    m = (walk.t >= end - WALK_S) & (walk.t < end)
    return walk.t[m], walk.v[m], s[k]


def sources(shared, binary):
    """(dataset, person, dt, walks [(name, t, v, last step)], standing (t, v), {activity: (t, v)})."""
    act_dir = os.path.join(shared, "data", "activities")
    acts = list(csv.DictReader(open(os.path.join(act_dir, "manifest.csv"))))
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in acts:
        by[(r["file"].split("/")[0], r["subject"])][r["activity"]].append(r["file"])
    for (dataset, person), files in sorted(by.items()):
        if dataset not in ("wisdm_watch", "dsads_arm") or "walking" not in files or "standing" not in files:
            continue
        truth = {r["file"]: r["truth_steps"] for r in acts}
        zero = [f for a, fs in files.items() for f in fs
                if (a in WISDM_ZERO if dataset == "wisdm_watch" else truth[f] == "0")]
        walks = []
        for f in files["walking"]:
            end = walk_end(Walk(binary, os.path.join(act_dir, f)), real_end=False)
            if end:
                walks.append((os.path.basename(f)[:-4], *end))
        activities = {os.path.basename(f)[:-4].split("_", 1)[1]: read(os.path.join(act_dir, f)) for f in zero}
        yield (dataset, person, 0.05 if dataset == "wisdm_watch" else 0.04, walks,
               read(os.path.join(act_dir, files["standing"][0])), activities)
    steps_dir = os.path.join(shared, "data", "steps")
    truth = {r["file"]: r for r in csv.DictReader(open(os.path.join(steps_dir, "manifest.csv")))}
    walks = []
    for f in sorted(f for f in truth if f.startswith("bangle_wrist/1") and int(truth[f]["truth_steps"]) in (100, 150)):
        end = walk_end(Walk(binary, os.path.join(steps_dir, f), int(truth[f]["truth_steps"])), real_end=True)
        if end:
            walks.append((os.path.basename(f)[:-4], *end))
    yield ("bangle_wrist", "HughB", 0.08, walks, read(os.path.join(steps_dir, "bangle_wrist", "0_HughB-static.csv")),
           {"desk-work": read(os.path.join(steps_dir, "bangle_wrist", "0_HughB-work-0.csv"))})


def build(shared, binary, work, rng):
    """Writes every stream and twin; returns their rows."""
    rows = []
    for dataset, person, dt, walks, standing, activities in sources(shared, binary):
        os.makedirs(os.path.join(work, dataset), exist_ok=True)
        for wname, wt, wv, last in walks:
            for activity, tv in sorted(activities.items()):
                hand = piece(tv, HAND_S, rng)
                prefix = piece(standing, WALK_S, rng)
                for gap in GAPS:
                    pause = piece(standing, gap, rng) if gap else None
                    for twin in (False, True):
                        s = Stream(dt)
                        start, _ = s.add(*(prefix if twin else (wt, wv)))
                        walk_last = start + last - wt[0]
                        if pause:
                            s.add(*pause)
                        hand_start, _ = s.add(*hand)
                        path = os.path.join(work, dataset, f"{wname}_{activity}_g{gap}{'_twin' if twin else ''}.csv")
                        duration = s.write(path)
                        rows.append(dict(file=path, dataset=dataset, person=person, walk=wname, activity=activity,
                                         gap=gap, twin=twin, last=walk_last, hand=hand_start, end=duration,
                                         label=activity.rstrip("_0123456789")))
    return rows


def streams(args, work, rng):
    """The streams' rows: built into `work`, or read from `--keep`'s rows.json when it is there."""
    saved = os.path.join(work, "rows.json")
    if args.keep and os.path.exists(saved):
        return json.load(open(saved))
    rows = build(args.shared, args.binary, work, rng)
    if args.keep:
        json.dump(rows, open(saved, "w"), default=float)
    return rows


def traced(tracer, work, rows, overrides):
    traces = {}
    for d in sorted({r["dataset"] for r in rows}):
        traces.update(run(tracer, work, [r["file"] for r in rows if r["dataset"] == d], d, overrides))
    return traces


def binary_check(binary, work, rows, traces, models):
    """Files whose release-binary count (eval --leave-out) differs from the tracer's."""
    differ = 0
    for d in sorted({r["dataset"] for r in rows}):
        manifest = os.path.join(work, f"{d}_manifest.csv")
        with open(manifest, "w") as f:
            f.write("file,truth_steps\n" + "".join(f"{r['file']},0\n" for r in rows if r["dataset"] == d))
        out = subprocess.run([binary, "eval", "--json", "--leave-out", d, "--models", models, manifest],
                             check=True, capture_output=True, text=True).stdout
        for x in json.loads(out)["files"]:
            path = x["file"] if os.path.isabs(x["file"]) else os.path.join(work, x["file"])
            differ += x["counted"] != len(traces[path]["steps"])
    return differ


def false_steps(rows, traces, margin):
    """Per row: the steps after the walk's last reference step + margin (a twin: after its prefix)."""
    for r in rows:
        steps = traces[r["file"]]["steps"]
        r["false"] = sum(x > r["last"] + margin for x in steps)
        r["hours"] = (r["end"] - r["last"]) / 3600


def table(rows, key, title):
    print(f"| {title} | streams | hours after the walk | false steps | per hour | twins' false steps | twins' per hour "
          "| the walk adds per hour |")
    print("|---|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(lambda: [0, 0.0, 0, 0])
    for r in rows:
        g = groups[key(r)]
        if r["twin"]:
            g[3] += r["false"]
        else:
            g[0], g[1], g[2] = g[0] + 1, g[1] + r["hours"], g[2] + r["false"]
    for k in sorted(groups, key=str):
        n, h, f, tf = groups[k]
        print(f"| {k} | {n} | {h:.2f} | {f} | {f / h:.1f} | {tf} | {tf / h:.1f} | {(f - tf) / h:+.1f} |")
    print()


def by_second(rows, traces, margin):
    """The false steps by whole seconds after the walk's last reference step, per gap (the walk's run going on)."""
    seconds = (1, 2, 3, 4, 6, 8, 12, 99)
    print("| gap | " + " | ".join(f"< {s} s" if s < 99 else ">= 12 s" for s in seconds) + " |")
    print("|---" * (len(seconds) + 1) + "|")
    for gap in GAPS:
        counts = [0] * len(seconds)
        for r in rows:
            if r["twin"] or r["gap"] != gap:
                continue
            for x in traces[r["file"]]["steps"]:
                d = x - r["last"]
                if d > margin:
                    counts[next(i for i, s in enumerate(seconds) if d < s)] += 1
        print(f"| {gap} s | " + " | ".join(str(c) for c in counts) + " |")
    print()


def potter_after_walk(tracer, work, splice, overrides):
    """Recall of the potter streams' bouts that start within 8 s after a counted step (by their first rhythm bout)."""
    rows = {r["name"]: r for r in json.load(open(os.path.join(splice, "rows.json")))}
    traces = {}
    for d in ("bangle_wrist", "wisdm_watch"):
        folder = os.path.join(splice, d)
        fs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if "_p" in f and not f.endswith("_rest.csv"))
        traces.update(run(tracer, work, fs, d, overrides))
    ref = got = bouts = lost_whole = 0
    for f, t in traces.items():
        row = rows.get(os.path.basename(f)[:-4])
        if not row or row.get("kind") != "potter" or not row["placed"]:
            continue
        for s in segments(row["placed"]):
            starts = [r[0] for r in t["rhythm"] if r[1] >= s[0] - 0.5 and r[0] <= s[-1] + 0.5]
            start = min(starts, default=s[0])
            if not any(start - 8 <= x < start for x in t["steps"]):
                continue
            c = sum(s[0] - 0.5 <= x <= s[-1] + 0.5 for x in t["steps"])
            ref, got, bouts, lost_whole = ref + len(s), got + min(c, len(s)), bouts + 1, lost_whole + (c == 0) * len(s)
    print(f"- potter bouts within 8 s after a counted step: {bouts} bouts, {ref} reference steps, {got} counted "
          f"({100 * got / max(ref, 1):.1f} %), {lost_whole} steps in bouts that counted nothing")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap)
    ap.add_argument("--tracer", help="a compiled bout_trace (default: built from this checkout)")
    ap.add_argument("--check", help="a release binary whose eval --leave-out counts are compared with the tracer's")
    ap.add_argument("--splice", help="a free_living_splice.py --keep folder: potter bouts after a walk")
    ap.add_argument("--keep", help="write the streams (and rows.json) here, or read them from here when it has them")
    ap.add_argument("--margin", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=41)
    args = ap.parse_args()
    overrides = overrides_of(args)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        tracer = args.tracer or compile_tracer(os.path.join(tmp, "tracer"), os.path.join(ROOT, "bench",
                                                                                         "bout_trace.swift"),
                                               "BoutTrace", "bout_trace")
        rows = streams(args, work, rng)
        traces = traced(tracer, tmp, rows, overrides)
        false_steps(rows, traces, args.margin)
        real = [r for r in rows if not r["twin"]]
        print(f"## A walk's end, then hand motion (seed {args.seed}, margin {args.margin} s"
              + (f"; {', '.join(args.set)}" if args.set else "") + f"): {len(real)} streams and their twins, "
              f"{sum(r['hours'] for r in real):.2f} h after the walks\n")
        if args.check:
            print(f"- files whose `{args.check} eval --leave-out` count differs from the tracer's: "
                  f"{binary_check(args.check, tmp, rows, traces, args.models)} of {len(rows)}\n")
        table(rows, lambda r: "all", "pooled")
        table(rows, lambda r: r["dataset"], "data set")
        table(rows, lambda r: f"gap {r['gap']} s", "gap")
        table(rows, lambda r: f"{r['dataset']} {r['label']}", "activity")
        print("False steps by seconds after the walk's last reference step:\n")
        by_second(rows, traces, args.margin)
        if args.splice:
            potter_after_walk(tracer, tmp, args.splice, overrides)


if __name__ == "__main__":
    main()
