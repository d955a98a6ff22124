#!/usr/bin/env python3
"""Candidate gates against WISDM folding-clothes and clapping false steps (issue #47, h47fold35), screened on the
detector's own windows out of dataset before any is built into the gate.

Traces every recording of ../shared with the model trained without its data set (`bench/leave_out/DATASET.json`)
through fold_paths.py's tracer (`bench/fold_trace.swift`), which writes after each window's features the
candidates the traced copy of Sources/StepDetection computes (`WindowFeatures` fields outside `names`):
`vector_stride` (the 3-D moving vector's autocorrelation, best over strides of 8-20 ticks) and `along_stride` (the
component along gravity alone). (The vector at the candidates' own stride and the vectors across gravity alone were
screened too while they were fields; bench/h47fold35_result.md section 1.)

The replay reads the `gated` column (the trees after the gravity gates), not the decision's probability, so it
misjudges some runs (its "shipped" row loses TUG steps the detector keeps). A candidate gate multiplies a window's
trees (after the shipped gravity, repeat and hands gates) by a ramp of ±0.05 at
its bar, for becoming walking only, as the repeat gate does. A run that the hysteresis entered (cause `enter`) is kept
when any of its steps' windows still average `enter` (trees × factors, or a physical path's evidence); runs counted
by a short bout, a group or a lone bout are untouched. This is a screen (a refused run's later re-entry is not
modelled); what ships is measured with bench/bout_eval.py.

    swift build -c release --product steptweet
    python3 bench/h47fold35_candidates.py [--cache traces.json] > bench/h47fold35_candidates_result.md
"""
import argparse, collections, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bout_eval import entries  # noqa: E402
from fold_paths import NAMES as BASE, build_tracer, run_traces  # noqa: E402
from train_walking import DATASETS, dataset_of, gait_of  # noqa: E402

NAMES = BASE + ["vector_stride", "along_stride"]
IX = {k: i for i, k in enumerate(NAMES)}
ENTER, RAMP = 0.7, 0.05


def group_of(e):
    d = dataset_of(e)
    g = gait_of(e)
    if g:
        return f"{d} {g}"
    if e["truth_steps"] == "":
        return None  # DSADS play: neither scored nor trained on
    if int(e["truth_steps"]) > 0:
        return f"{d} walks"
    a = e.get("activity", "")
    if d == "wisdm_watch" and a in ("folding-clothes", "clapping"):
        return a
    return f"{d} non-walking"


def ramped(x):
    return min(1.0, max(0.0, (x + 1) / 2))


def shipped(w, p):
    """The repeat and hands gates as shipped (RepeatGate.swift); 1 without axes."""
    if w[IX["along_share"]] == -9:
        return 1.0
    rep = ramped((max(w[IX["r_stride"]], w[IX["along_step"]]) - 0.2) / RAMP)
    hands = ramped(max(w[IX["along_own_share"]] - p["handsMaxOwnShare"],
                       w[IX["arm_swing"]] - p["handsMaxArmSwing"]) / RAMP)
    return rep * hands


def kept(trace, factor, p):
    """The counted steps that stay counted when each window's trees are taken with `factor` to become walking."""
    runs = collections.defaultdict(list)
    for (t, entered), cause in zip(trace["steps"], trace["causes"]):
        runs[(entered, cause)].append(t)
    ws = trace["windows"]
    starts = np.array([w[0] for w in ws]) if ws else np.zeros(0)
    ends = np.array([w[1] for w in ws]) if ws else np.zeros(0)
    scores = np.array([max(w[IX["gated"]] * shipped(w, p) * factor(w), w[IX["steady"]], w[IX["held"]]) for w in ws])
    out = 0
    for (entered, cause), ts in runs.items():
        if cause != "enter":
            out += len(ts)
            continue
        ok = False
        for t in ts:
            over = (starts <= t) & (t < ends)
            if over.any() and scores[over].mean() >= ENTER - 1e-9:
                ok = True
                break
        out += len(ts) if ok else 0
    return out


def gate(key, bar):
    def f(w):
        v = w[IX[key]]
        return 1.0 if v == -9 else ramped((v - bar) / RAMP)
    return f


def either(bar, opens):
    """The vector gate at `bar`, passed (through the same ramp) by a window whose motion along gravity repeats a
    stride later at `opens` or more."""
    def f(w):
        v = w[IX["vector_stride"]]
        return 1.0 if v == -9 else ramped(max(v - bar, w[IX["along_stride"]] - opens) / RAMP)
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--cache", help="read the traces from here if it exists, else write them here")
    args = ap.parse_args()
    es = [e for e in entries(args.shared) if group_of(e)]
    full = lambda e: os.path.join(os.path.dirname(e["manifest"]), e["file"])
    params = {d: json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{d}.json"))) for d in DATASETS}
    if args.cache and os.path.exists(args.cache):
        traces = json.load(open(args.cache))
    else:
        traces = {}
        with tempfile.TemporaryDirectory() as work:
            tracer = build_tracer(work)
            for d in DATASETS:
                traces.update(run_traces(tracer, work, params[d], [full(e) for e in es if dataset_of(e) == d]))
        if args.cache:
            json.dump(traces, open(args.cache, "w"))
    groups = collections.defaultdict(list)
    for e in es:
        groups[group_of(e)].append((e, traces[full(e)]))
    # Per counted step: the mean of its windows' candidates.
    print("## Counted steps' windows (out of dataset, shipped gates): medians (1st-10th percentile)\n")
    keys = ["vector_stride", "along_stride", "r_stride", "along_step", "stride_cv"]
    print("| group | steps | " + " | ".join(keys) + " |\n|---|---:|" + "---|" * len(keys))
    for g in sorted(groups):
        vals = collections.defaultdict(list)
        n = 0
        for e, tr in groups[g]:
            ws = tr["windows"]
            for t, _ in tr["steps"]:
                n += 1
                over = [w for w in ws if w[0] <= t < w[1] and w[IX["along_share"]] != -9]
                for k in keys:
                    if over:
                        vals[k].append(np.mean([w[IX[k]] for w in over]))
        cells = [f"{np.median(vals[k]):.2f} ({np.percentile(vals[k], 1):.2f}-{np.percentile(vals[k], 10):.2f})"
                 if vals[k] else "-" for k in keys]
        print(f"| {g} | {n} | " + " | ".join(cells) + " |")
    print("\n## Screen: counted steps kept with each candidate gate (entering only), per group\n")
    rules = [("shipped", lambda w: 1.0)]
    for k, bars in (("vector_stride", (0.1, 0.15, 0.2, 0.25, 0.3)), ("along_stride", (0.2, 0.3))):
        rules += [(f"{k} {b}", gate(k, b)) for b in bars]
    for b in (0.15, 0.2, 0.25):
        for opens in (0.4, 0.5, 0.6):
            rules.append((f"vector_stride {b} unless along_stride >= {opens}", either(b, opens)))
    counted = {g: sum(len(tr["steps"]) for _, tr in v) for g, v in groups.items()}
    names = sorted(groups)
    print("| rule | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names))
    print("| counted (shipped) | " + " | ".join(str(counted[g]) for g in names) + " |")
    for label, f in rules:
        row = []
        for g in names:
            k = sum(kept(tr, f, params[dataset_of(e)]["recognizer"]) for e, tr in groups[g])
            row.append(f"{k}" + (f" ({100 * (k - counted[g]) / counted[g]:+.1f} %)" if counted[g] and k != counted[g] else ""))
        print(f"| {label} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
