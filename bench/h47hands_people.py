#!/usr/bin/env python3
"""Who the WISDM folding-clothes and clapping false steps belong to out of dataset, and which gate is closest to
refusing each of them (issue #47, h47hands).

Traces WISDM folding-clothes, clapping and gait (walking, jogging, stairs) with the model trained without WISDM
(`bench/leave_out/wisdm_watch.json`) through fold_paths.py's tracer (the detector's own sources with taps that say why
each run counts). Each counted false step is described by the mean of the windows that contain it, as the walking gate
takes them, and set against each gate it passed:

- the repeat gate: max(`r_stride`, `along_step`) − `minGaitRepeat` (stride-to-stride repeat in |a|, or a repeat of
  the push along gravity a step later);
- the own-share gate: `along_own_share` − `recognizer.minAlongOwnShare` (gravity-aligned motion of its own, not the
  projection of a motion across gravity);
- the share gate: `along_share` − `recognizer.minAlongShare` (the moving energy along gravity; the arm swing and the
  step band can open it);
- the trees: their mean probability − `recognizer.enter`.

The gates' ramps are ±0.05, so a margin under 0.05 is inside a ramp. The "closest" gate is the one with the least
margin among the three gravity/repeat gates. Beside the margins, the properties of walking the step lacks, against
WISDM gait's own steps: how many of a person's counted steps fall under gait's 5th percentile of each.

    swift build -c release --product steptweet
    python3 bench/h47hands_people.py [--set KEY=JSON ...] > bench/h47hands_people_result.md
"""
import argparse, collections, csv, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import detector_arguments, overridden, overrides_of  # noqa: E402
from fold_paths import NAMES, build_tracer, run_traces, windows_over  # noqa: E402

GATES = {  # name: (feature or features (the larger counts), the parameter's standard value)
    "repeat": (("r_stride", "along_step"), 0.2),
    "own share": (("along_own_share",), 0.15),
    "share": (("along_share",), 0.3),
}
# What a walking body shows (feature, whether walking is high on it), compared with gait's own counted steps.
PROPERTIES = [
    ("r_stride", True, "repeat a stride later in |a|"),
    ("r_two_strides", True, "repeat two strides later in |a|"),
    ("along_step", True, "push along gravity that repeats a step later"),
    ("along_own_share", True, "motion along gravity of its own"),
    ("gravity_steadiness", True, "steady gravity"),
    ("stride_turn", False, "gravity steady over a stride (turn)"),
    ("arm_swing", True, "alternation (arm swing in gait)"),
    ("stride_cv", False, "even strides"),
]


def step_means(trace):
    """Per counted step: the mean of the windows over it (each feature), its cause."""
    out = []
    for (t, _), cause in zip(trace["steps"], trace["causes"]):
        ws = windows_over(trace, t)
        if not ws:
            continue
        m = {k: float(np.mean([w[NAMES.index(k)] for w in ws])) for k in NAMES[2:]}
        m["cause"] = cause
        out.append(m)
    return out


def margins(m, params):
    rec = params.get("recognizer", {})
    bars = {"repeat": params.get("minGaitRepeat", 0.2), "own share": rec.get("minAlongOwnShare", 0.15),
            "share": rec.get("minAlongShare", 0.3)}
    return {g: max(m[f] for f in feats) - bars[g] for g, (feats, _) in GATES.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap, binary=False)
    args = ap.parse_args()
    manifest = os.path.join(args.shared, "data", "activities", "manifest.csv")
    rows = [r for r in csv.DictReader(open(manifest)) if r["file"].startswith("wisdm_watch/")]
    hands = [r for r in rows if r["activity"] in ("folding-clothes", "clapping")]
    gait = [r for r in rows if r["activity"] in ("walking", "jogging", "stairs")]
    full = lambda r: os.path.join(os.path.dirname(manifest), r["file"])
    params = overridden(json.load(open(os.path.join(args.models, "wisdm_watch.json"))), overrides_of(args))
    with tempfile.TemporaryDirectory() as work:
        traces = run_traces(build_tracer(work), work, params, [full(r) for r in hands + gait])
    gait_steps = [m for r in gait for m in step_means(traces[full(r)])]
    low = {f: np.percentile([m[f] for m in gait_steps], 5 if high else 95) for f, high, _ in PROPERTIES}
    hours = collections.Counter()
    steps = collections.defaultdict(list)
    for r in hands:
        hours[r["activity"]] += float(r["duration_s"]) / 3600
        for m in step_means(traces[full(r)]):
            steps[(r["activity"], r["subject"])].append(m)
    print(f"# h47hands: WISDM folding-clothes and clapping false steps by person, out of dataset"
          f"{' (' + ', '.join(args.set) + ')' if args.set else ''}\n")
    print(f"WISDM gait's counted steps ({len(gait_steps)}, walking, jogging, stairs; the same model), the 5th "
          "percentile (95th for turn and stride spread) of each property: "
          + ", ".join(f"`{f}` {low[f]:.2f}" for f, _, _ in PROPERTIES) + ".\n")
    for activity in ("folding-clothes", "clapping"):
        people = sorted(((s, ms) for (a, s), ms in steps.items() if a == activity), key=lambda kv: -len(kv[1]))
        total = sum(len(ms) for _, ms in people)
        print(f"## {activity}: {total} false steps, {total / hours[activity]:.0f}/h, {len(people)} people\n")
        cum = np.cumsum([len(ms) for _, ms in people]) / max(total, 1)
        print("Share of the false steps in the worst 1 / 3 / 5 people: "
              + " / ".join(f"{cum[min(k, len(cum)) - 1]:.0%}" for k in (1, 3, 5)) + ".\n")
        print("| person | steps | trees | r_stride | r_two_strides | along_step | along_own_share | along_share | "
              "gravity_steadiness | stride_turn | arm_swing | repeat margin | own-share margin | closest gate "
              "(steps) | under gait's 5 % (share of steps) |")
        print("|---|---:|" + "---:|" * 11 + "---|---|")
        for person, ms in people + [("all", [m for _, v in people for m in v])]:
            med = lambda k: np.median([m[k] for m in ms])
            ms_margins = [margins(m, params) for m in ms]
            closest = collections.Counter(min(g, key=g.get) for g in ms_margins)
            lacks = []
            for f, high, _ in PROPERTIES:
                share = np.mean([(m[f] < low[f]) if high else (m[f] > low[f]) for m in ms])
                if share >= 0.25:
                    lacks.append(f"{f} {share:.0%}")
            print(f"| {person} | {len(ms)} | {med('trees'):.2f} | {med('r_stride'):.2f} | {med('r_two_strides'):.2f} | "
                  f"{med('along_step'):.2f} | {med('along_own_share'):.2f} | {med('along_share'):.2f} | "
                  f"{med('gravity_steadiness'):.2f} | {med('stride_turn'):.2f} | {med('arm_swing'):.2f} | "
                  f"{np.median([g['repeat'] for g in ms_margins]):+.2f} | "
                  f"{np.median([g['own share'] for g in ms_margins]):+.2f} | "
                  + ", ".join(f"{g} {n}" for g, n in closest.most_common()) + " | " + (", ".join(lacks) or "-") + " |")
        print()


if __name__ == "__main__":
    main()
