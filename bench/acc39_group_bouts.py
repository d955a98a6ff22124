#!/usr/bin/env python3
"""acc39 (issue #47): the rhythm bouts of the spliced potter streams (several short bouts with pauses between them),
Bangle.js and WISDM (three axes), out of dataset: for each walk segment, its rhythm bouts in order with their steps,
whether credited, their own seconds' body measures (bench/bout_trace.swift: share along gravity, along-gravity repeat
a stride later, |a| motion) and what counted, to see why a group's bouts are lost.

    python3 bench/free_living_splice.py --binary B --keep /tmp/splice > /dev/null
    python3 bench/acc39_group_bouts.py --splice /tmp/splice [--set KEY=JSON ...] [--all]
"""
import argparse, collections, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402


def segments(placed, gap=1.9):
    """The placed reference steps split into bouts (a pause longer than `gap` s)."""
    out = [[placed[0]]]
    for t in placed[1:]:
        (out[-1].append(t) if t - out[-1][-1] <= gap else out.append([t]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splice", required=True)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--all", action="store_true", help="list every potter stream, not only those that lost steps")
    args = ap.parse_args()
    overrides = [(k, json.loads(v)) for k, v in (s.split("=", 1) for s in args.set)]
    rows = {r["name"]: r for r in json.load(open(os.path.join(args.splice, "rows.json")))}
    traces = {}
    with tempfile.TemporaryDirectory() as work:
        tracer = compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "bout_trace.swift"),
                                "BoutTrace", "bout_trace")
        for d in ("bangle_wrist", "wisdm_watch"):
            folder = os.path.join(args.splice, d)
            fs = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                        if "_p" in f and not f.endswith("_rest.csv"))
            traces.update(run(tracer, work, fs, d, overrides))
    lost = collections.Counter()
    for f, t in sorted(traces.items()):
        name = os.path.basename(f)[:-4]
        row = rows.get(name)
        if not row or row.get("kind") != "potter" or not row["placed"]:
            continue
        segs = segments(row["placed"])
        counted = [sum(s[0] - 0.5 <= c <= s[-1] + 0.5 for c in t["steps"]) for s in segs]
        missed = sum(max(len(s) - c, 0) for s, c in zip(segs, counted))
        if not args.all and missed == 0:
            continue
        print(f"\n{name} (cadence {row['cadence']:.0f}/min): reference {len(row['placed'])}, "
              f"counted {sum(counted)}, false outside {len(t['steps']) - sum(counted)}")
        for s, c in zip(segs, counted):
            bouts = [r for r in t["rhythm"] if r[1] >= s[0] - 0.5 and r[0] <= s[-1] + 0.5]
            desc = "; ".join(f"{int(r[2])}{'c' if r[3] else 'u'} {r[0]:.1f}-{r[1]:.1f} sh {r[5]:.2f} st {r[6]:.2f} "
                             f"mo {r[7]:.2f}" for r in bouts)
            print(f"  {s[0]:6.1f}-{s[-1]:6.1f} {len(s):2d} steps, counted {c:2d}: {desc or 'no rhythm bout'}")
            if c == 0:
                why = "no rhythm bout" if not bouts else "rhythm bout " + (
                    "credited" if any(r[3] for r in bouts) else "not credited")
                start = min((r[0] for r in bouts), default=s[0])
                after = any(start - 8 <= x < start for x in t["steps"])
                lost[f"{why}{', within 8 s after a counted step' if after else ''}"] += len(s)
    print("\nReference steps of whole bouts lost (potter streams, Bangle.js and WISDM, out of dataset):")
    for k, v in sorted(lost.items()):
        print(f"- {k}: {v}")


if __name__ == "__main__":
    main()
