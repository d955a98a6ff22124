#!/usr/bin/env python3
"""acc40 (issue #47): the potter streams' lost steps (Bangle.js and WISDM, three axes, out of dataset; the streams of
`free_living_splice.py --keep`) by category, for one or more settings side by side. A walk segment's missed steps
(its reference steps minus those counted within 0.5 s of it; acc39_group_bouts.py's segments and tracer) go to the
first category that fits:
- `merged across a pause`: a rhythm bout over the segment also reaches into the next or the previous segment;
- `stride-lock`: a credited rhythm bout over the segment holds at most 0.65 of its reference steps at 1.5 times or
  more the reference interval (a rhythm locked on every second step);
- `3-step bout`: its only rhythm bouts have 3 steps or fewer;
- `whole bout after a counted walk`: nothing counted in it, a step counted in the 8 s before its first rhythm bout;
- `whole bout, other`: nothing counted in it otherwise (refused, not credited, no rhythm bout);
- `partial`: some steps counted, fewer than the reference.

    python3 bench/free_living_splice.py --binary B --keep /tmp/splice > /dev/null
    python3 bench/acc40_categories.py --splice /tmp/splice NAME=[KEY=JSON[,KEY=JSON]] ... > bench/acc40_categories_result.md
"""
import argparse, collections, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from acc39_group_bouts import segments  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

ORDER = ("merged across a pause", "stride-lock", "3-step bout", "whole bout after a counted walk",
         "whole bout, other", "partial")


def category(t, segs, i, c):
    s = segs[i]
    bouts = [r for r in t["rhythm"] if r[1] >= s[0] - 0.5 and r[0] <= s[-1] + 0.5]
    others = [x for j, x in enumerate(segs) if j != i]
    if any(r[1] >= o[0] - 0.5 and r[0] <= o[-1] + 0.5 for r in bouts for o in others):
        return ORDER[0]
    interval = (s[-1] - s[0]) / max(len(s) - 1, 1)
    for r in bouts:
        if r[3] and r[2] > 1 and r[2] <= 0.65 * len(s) and (r[1] - r[0]) / (r[2] - 1) >= 1.5 * interval:
            return ORDER[1]
    if bouts and all(r[2] <= 3 for r in bouts):
        return ORDER[2]
    if c == 0:
        start = min((r[0] for r in bouts), default=s[0])
        return ORDER[3] if any(start - 8 <= x < start for x in t["steps"]) else ORDER[4]
    return ORDER[5]


def window_summary(t, a, b):
    """The windows over a span: the best decision P, the trees' alone, after the gates, and the mean share."""
    ws = [w for w in t["windows"] if w[0] <= b and a < w[1]]
    if not ws:
        return "no window"
    best = max(ws, key=lambda w: w[2])
    return (f"{len(ws)} windows, best P {best[2]:.2f} (trees {best[3]:.2f}, gated {best[4]:.2f}, path {best[5]:.2f}, "
            f"share {best[8]:.2f}, own {best[9]:.2f}, arm {best[10]:.2f})")


def bout_text(t, r):
    """A rhythm bout: steps, credited, mean interval, its own seconds' body (share, along stride, motion) and arm
    repeats (across at half the interval, along at it, along at half of it: bout_trace.swift `arm`)."""
    iv = (r[1] - r[0]) / (r[2] - 1) if r[2] > 1 else 0
    steps = sorted(x for x in t["steps"] + t["refused"] if r[0] - 1e-6 <= x <= r[1] + 1e-6)
    d = np.diff(steps)
    cv = float(d.std() / d.mean()) if len(d) > 1 and d.mean() > 0 else 0.0
    arm = (f" arm x½ {r[8]:+.2f} z1 {r[9]:+.2f} z½ {r[10]:+.2f}" if len(r) > 10 else "")
    return (f"{int(r[2])}{'c' if r[3] else 'u'} {r[0]:.1f}-{r[1]:.1f} iv {iv:.2f} cv {cv:.2f} sh {r[5]:.2f} "
            f"st {r[6]:.2f} mo {r[7]:.2f}{arm}")


def detail(t, segs, i, c, name, row):
    s = segs[i]
    bouts = [r for r in t["rhythm"] if r[1] >= s[0] - 0.5 and r[0] <= s[-1] + 0.5]
    strong = [p for p in t["strong"] if s[0] - 0.5 <= p[0] <= s[-1] + 0.5]
    refused = sum(s[0] - 0.5 <= x <= s[-1] + 0.5 for x in t["refused"])
    iv = (s[-1] - s[0]) / max(len(s) - 1, 1)
    head = (f"{name} {s[0]:.1f}-{s[-1]:.1f}: {len(s)} steps at {iv:.2f} s, counted {c}, refused {refused}, "
            f"{len(strong)} strong peaks; {window_summary(t, s[0] - 0.5, s[-1] + 0.5)}")
    return [head] + ["    " + bout_text(t, r) for r in bouts]


def lost(tracer, work, splice, rows, overrides, details=()):
    traces = {}
    for d in ("bangle_wrist", "wisdm_watch"):
        folder = os.path.join(splice, d)
        fs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if "_p" in f and not f.endswith("_rest.csv"))
        traces.update(run(tracer, work, fs, d, overrides))
    out = collections.Counter()
    for f, t in traces.items():
        row = rows.get(os.path.basename(f)[:-4])
        if not row or row.get("kind") != "potter" or not row["placed"]:
            continue
        segs = segments(row["placed"])
        for i, s in enumerate(segs):
            c = sum(s[0] - 0.5 <= x <= s[-1] + 0.5 for x in t["steps"])
            out["reference"] += len(s)
            if c < len(s):
                k = category(t, segs, i, c)
                out[k] += len(s) - c
                if k in details:
                    out.setdefault("details", {}).setdefault(k, []).extend(
                        detail(t, segs, i, c, os.path.basename(f)[:-4], row))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splice", required=True)
    ap.add_argument("settings", nargs="+", help="NAME=[KEY=JSON[,KEY=JSON]]")
    ap.add_argument("--detail", action="append", default=[], help="list each lost segment of this category (acc41b)")
    args = ap.parse_args()
    rows = {r["name"]: r for r in json.load(open(os.path.join(args.splice, "rows.json")))}
    results = []
    with tempfile.TemporaryDirectory() as work:
        tracer = compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "bout_trace.swift"),
                                "BoutTrace", "bout_trace")
        for s in args.settings:
            name, _, rest = s.partition("=")
            overrides = [(k, json.loads(v)) for k, v in (x.split("=", 1) for x in rest.split(",") if x)]
            results.append((name, lost(tracer, work, args.splice, rows, overrides, args.detail)))
    print("Potter streams' steps lost (Bangle.js and WISDM, out of dataset), by category:\n")
    print("| category | " + " | ".join(n for n, _ in results) + " |")
    print("|---" * (len(results) + 1) + "|")
    for k in ORDER:
        print(f"| {k} | " + " | ".join(str(r[k]) for _, r in results) + " |")
    print("| all lost | " + " | ".join(str(sum(r[k] for k in ORDER)) for _, r in results) + " |")
    print("| reference steps | " + " | ".join(str(r["reference"]) for _, r in results) + " |")
    for name, r in results:
        for k, lines in r.get("details", {}).items():
            print(f"\n{name}, {k}: each lost segment and its rhythm bouts\n\n```")
            print("\n".join(lines))
            print("```")


if __name__ == "__main__":
    main()
