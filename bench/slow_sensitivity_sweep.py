#!/usr/bin/env python3
"""`--sensitivity slow` (DetectorParameters.slowWalking) under parameter variations, every row its README states
(issue #47). From ../shared only; numpy.

    swift build -c release --product steptweet
    python3 bench/slow_sensitivity_sweep.py '{}' '{"maxMissedStepGap": 1.2}' ... > bench/slow_sensitivity_sweep_result.txt

Each argument is a JSON object of parameters laid over the slow set (maxStepInterval 2.5, minBoutSteps 6, minSwing
and minSwingInWalk 1.5, no recognizer; `{}` is the slow set before `maxMissedStepGap`, whose standard value 0 fills
any gap). The slow set has no recognizer, so out of dataset and in sample are the same counts. Per variant: the four
`wrist_watch/` slow walks (counted/true); false steps per hour over the activities manifest's rows with truth 0 (WISDM
and DSADS non-walking, 528 files, what `eval` reports) and over every 0-step row of both manifests; brushing teeth,
clapping, folding clothes and rowing; PC work and the Bangle.js 0-step files (steps above the truth); MAPE of the
Oxford, Bangle.js (13 walks of 100-150 steps) and wrist_watch walks; gait without a count: walking and running steps
per minute (median, least), TUG steps per run (median).
"""
import collections, csv, json, os, subprocess, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from train_walking import LONG_WALKS, gait_of  # noqa: E402

BINARY = os.environ.get("STEPTWEET", os.path.join(ROOT, ".build/release/steptweet"))
SHARED = os.path.join(ROOT, "../shared")
SLOW = {"maxStepInterval": 2.5, "minBoutSteps": 6, "minSwing": 1.5, "minSwingInWalk": 1.5}


def slow_parameters(overrides):
    recognizer = json.load(open(os.path.join(ROOT, "bench", "leave_out", "wisdm_watch.json")))["recognizer"]
    return dict(SLOW, recognizer=dict(recognizer, enabled=False), **overrides)


def run(overrides):
    counts, entries, activities_false = {}, [], None
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(slow_parameters(overrides), f)
        f.flush()
        for name in ("steps", "activities"):
            manifest = os.path.join(SHARED, "data", name, "manifest.csv")
            out = json.loads(subprocess.run([BINARY, "eval", "--json", "--parameters", f.name, manifest],
                                            check=True, capture_output=True, text=True).stdout)
            counts.update({x["file"]: (x["counted"], x["duration_s"]) for x in out["files"]})
            entries += list(csv.DictReader(open(manifest)))
            if name == "activities":
                activities_false = out["summary"]["false_steps_per_hour"]
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
            f"PC work {above(lambda f: 'pc-working' in f)}, Bangle.js 0-step files "
            f"{above(lambda f: f.startswith('bangle_wrist/0'))}; MAPE Oxford {mape('oxford_opt/'):.2f} %, "
            f"Bangle.js {mape('bangle_wrist/'):.2f} %, wrist_watch {mape('wrist_watch/'):.2f} %; walking "
            f"{np.median(walk):.1f} (least {min(walk):.0f}), running {np.median(running):.1f} (least "
            f"{min(running):.0f}), TUG {np.median([n(e) for e in entries if gait_of(e) == 'tug']):.0f}")


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["{}"]:
        print(f"{arg}: {run(json.loads(arg))}", flush=True)
