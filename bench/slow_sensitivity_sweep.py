#!/usr/bin/env python3
"""`--sensitivity slow` (DetectorParameters.slowWalking) under parameter variations, every row bench/accuracy.md's
h47slow section states (issue #47). From ../shared only; numpy.

    swift build -c release --product steptweet
    python3 bench/slow_sensitivity_sweep.py '{}' '{"recognizer.enabled": false}' ... > bench/slow_sensitivity_sweep_result.txt

Each argument is a JSON object of parameters laid over the slow set (maxStepInterval 2.5, minBoutSteps 6, minSwing
and minSwingInWalk 1.5, maxMissedStepGap 1.2; the recognizer's gates as shipped around no trees: every window scores
`probability`, 0.875, before the gates). Dotted keys reach into the recognizer (`recognizer.enter`); `probability`
sets the trees' constant; `{"recognizer.enabled": false}` is the slow set before h47slow (the rhythm alone);
`{"trees": "out"}` / `{"trees": "in"}` put the trained trees back (out of dataset: each data set counted by the
model trained without it, as bench/bout_eval.py does; in sample: the shipped model), with their own `recognizer.enter`
if given. Without trees, out of dataset and in sample are the same counts. Per variant: the four `wrist_watch/` slow
walks (counted/true); false steps per hour over the activities manifest's rows with truth 0 (WISDM and DSADS
non-walking, 528 files, what `eval` reports) and over every 0-step row of both manifests; brushing teeth, clapping,
folding clothes and rowing; PC work and the Bangle.js `0_*` files (steps above the truth, summed with their sign: one
of those files has 66 true steps, so the sum can be negative); MAPE of the Oxford,
Bangle.js (13 walks of 100-150 steps) and wrist_watch walks; gait without a count: walking and running steps per
minute (median, least), TUG steps per run (median); then every non-walking activity's false steps per hour.
"""
import collections, json, math, os, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from train_walking import LONG_WALKS, gait_of  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bout_eval  # noqa: E402
from bout_eval import overridden  # noqa: E402

BINARY = os.environ.get("STEPTWEET", os.path.join(ROOT, ".build/release/steptweet"))
SHARED = os.path.join(ROOT, "../shared")
SLOW = {"maxStepInterval": 2.5, "minBoutSteps": 6, "minSwing": 1.5, "minSwingInWalk": 1.5, "maxMissedStepGap": 1.2}
PROBABILITY = 0.875


def constant_trees(probability):
    """`WalkingTrees.constant(probability:)`: no trees, every window scores `probability`."""
    return {"featureSet": 8, "depth": 1, "base": math.log(probability / (1 - probability)), "features": [],
            "thresholds": [], "leaves": []}


def slow_parameters(overrides):
    gates = json.load(open(os.path.join(ROOT, "bench", "leave_out", "wisdm_watch.json")))["recognizer"]
    overrides = dict(overrides)
    trees = constant_trees(overrides.pop("probability", PROBABILITY))
    return overridden(dict(SLOW, recognizer=dict(gates, model=trees)), overrides.items())


def counts_of(overrides):
    """Every recording's (counted, seconds) and the activities manifest's false steps per hour."""
    es = bout_eval.entries(SHARED)
    if "trees" in overrides:
        overrides = dict(overrides)
        where = overrides.pop("trees")
        pairs = list(SLOW.items()) + list(overrides.items())
        with tempfile.TemporaryDirectory() as work:
            counts = (bout_eval.out_of_dataset_counts(BINARY, es, os.path.join(ROOT, "bench", "leave_out"), pairs,
                                                      work) if where == "out" else
                      bout_eval.in_sample_counts(BINARY, es, pairs, work))
    else:
        counts = {}
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump(slow_parameters(overrides), f)
            f.flush()
            for manifest in sorted({e["manifest"] for e in es}):
                counts.update(bout_eval.run_eval(BINARY, ["--parameters", f.name, manifest]))
    activity = [e for e in es if e["manifest"].endswith(os.path.join("activities", "manifest.csv"))
                and e["truth_steps"] == "0"]
    false = sum(counts[e["file"]][0] for e in activity) / (sum(counts[e["file"]][1] for e in activity) / 3600)
    return counts, es, false


def run(overrides):
    counts, entries, activities_false = counts_of(overrides)
    n = lambda e: counts[e["file"]][0]
    hours = lambda es: sum(counts[e["file"]][1] for e in es) / 3600
    zero = [e for e in entries if e["truth_steps"] == "0"]
    per = collections.defaultdict(list)
    for e in zero:
        per[e.get("activity", "")].append(e)
    rate = lambda a: sum(map(n, per[a])) / hours(per[a]) if per[a] else 0

    def mape(prefix):
        walks = [e for e in entries if e["file"].startswith(prefix) and e["truth_steps"]
                 and int(e["truth_steps"]) >= 100 and e["file"] not in LONG_WALKS]
        return np.mean([abs(n(e) - int(e["truth_steps"])) / int(e["truth_steps"]) * 100 for e in walks])

    per_min = lambda g: [n(e) / (counts[e["file"]][1] / 60) for e in entries if gait_of(e) == g]
    above = lambda key: sum(n(e) - int(e["truth_steps"]) for e in entries if key(e["file"]))
    slow = " ".join(f"{n(e)}/{e['truth_steps']}" for e in entries if "slow-walking" in e["file"])
    walk, running = per_min("walking"), per_min("running")
    return (f"slow walks {slow}; false/h {activities_false:.0f} (528 activity files), "
            f"{sum(map(n, zero)) / hours(zero):.0f} (all {len(zero)} 0-step files); brushing/clapping/folding/rowing "
            f"{rate('brushing-teeth'):.0f}/{rate('clapping'):.0f}/{rate('folding-clothes'):.0f}/{rate('rowing'):.0f}; "
            f"PC work {above(lambda f: 'pc-working' in f)}, Bangle.js 0_* files net over truth "
            f"{above(lambda f: f.startswith('bangle_wrist/0'))}; MAPE Oxford {mape('oxford_opt/'):.2f} %, "
            f"Bangle.js {mape('bangle_wrist/'):.2f} %, wrist_watch {mape('wrist_watch/'):.2f} %; walking "
            f"{np.median(walk):.1f} (least {min(walk):.0f}), running {np.median(running):.1f} (least "
            f"{min(running):.0f}), TUG {np.median([n(e) for e in entries if gait_of(e) == 'tug']):.0f}; per activity "
            + ", ".join(f"{a} {rate(a):.0f}" for a in sorted(per) if a))


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["{}"]:
        print(f"{arg}: {run(json.loads(arg))}", flush=True)
