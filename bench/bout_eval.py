#!/usr/bin/env python3
"""The bout side of issue #47, counted by the real detector: every data set held out in turn and in sample.

Out of dataset, each data set of ../shared is counted with the model trained without it (`bench/leave_out/DATASET.json`,
what `steptweet eval --leave-out DATASET` reads; `scripts/train_walking.py` writes them); in sample, every recording
with the shipped model. `--set KEY=VALUE` (JSON values, dotted keys for the recognizer: `recognizer.enter=0.5`)
overrides detector parameters in both, to compare a setting without rebuilding. Prints the out-of-dataset table of
`scripts/train_walking.py` (same rows, same worst person), then the figures the bout side targets: timed-up-and-go
steps per run, gait with its least file, and the WISDM hand activities.

    swift build -c release --product steptweet
    python3 bench/bout_eval.py [--binary B] [--set minBoutSteps=6] > bench/bout_eval_result.md
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import numpy as np  # noqa: E402
from train_walking import DATASETS, dataset_of, gait_of, markdown, out_of_dataset  # noqa: E402


def entries(shared):
    out = []
    for name in ("steps", "activities"):
        manifest = os.path.join(shared, "data", name, "manifest.csv")
        for r in csv.DictReader(open(manifest)):
            r["manifest"] = manifest
            out.append(r)
    return out


def overridden(params, overrides):
    p = json.loads(json.dumps(params))
    for key, value in overrides:
        node = p
        *path, last = key.split(".")
        for k in path:
            node = node.setdefault(k, {})
        node[last] = value
    return p


def run_eval(binary, args):
    out = subprocess.run([binary, "eval", "--json"] + args, check=True, capture_output=True, text=True).stdout
    return {f["file"]: (f["counted"], f["duration_s"]) for f in json.loads(out)["files"]}


def out_of_dataset_counts(binary, es, models, overrides, work):
    counts = {}
    for d in DATASETS:
        params = overridden(json.load(open(os.path.join(models, f"{d}.json"))), overrides)
        json.dump(params, open(os.path.join(work, f"{d}.json"), "w"))
        for manifest in sorted({e["manifest"] for e in es if dataset_of(e) == d}):
            counts.update(run_eval(binary, ["--leave-out", d, "--models", work, manifest]))
    return counts


def in_sample_counts(binary, es, overrides, work):
    args = []
    if overrides:
        model = json.load(open(os.path.join(ROOT, "bench", "walking_model.json")))
        # The shipped gates (those of every model trained without a data set) around the shipped trees.
        gates = json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{DATASETS[0]}.json")))["recognizer"]
        base = {"recognizer": dict(gates, model=model["model"], enter=0.7, stay=model["stay"])}
        path = os.path.join(work, "in_sample.json")
        json.dump(overridden(base, overrides), open(path, "w"))
        args = ["--parameters", path]
    counts = {}
    for manifest in sorted({e["manifest"] for e in es}):
        counts.update(run_eval(binary, args + [manifest]))
    return counts


def bout_figures(es, counts):
    """TUG steps per run, gait steps per minute (median and least file), WISDM hand activities' false steps/h."""
    lines = []
    rate = lambda e: counts[e["file"]][0] / (counts[e["file"]][1] / 60)
    tug = [counts[e["file"]][0] for e in es if gait_of(e) == "tug"]
    lines.append(f"- TUG: median {np.median(tug):.1f} steps per run, {sum(n >= 6 for n in tug)} of {len(tug)} runs "
                 f">= 6, {sum(n == 0 for n in tug)} at 0")
    for d in ("wisdm_watch", "dsads_arm"):
        for g in ("walking", "running", "stairs"):
            gs = sorted((e for e in es if dataset_of(e) == d and gait_of(e) == g), key=rate)
            if gs:
                low = ", ".join(f"{os.path.basename(e['file'])[:-4]} {rate(e):.0f}" for e in gs[:3])
                lines.append(f"- {d} {g}: median {np.median([rate(e) for e in gs]):.1f}/min; least: {low}")
    per = collections.defaultdict(lambda: [0, 0.0])
    for e in es:
        if dataset_of(e) == "wisdm_watch" and e["truth_steps"] == "0":
            per[e["activity"]][0] += counts[e["file"]][0]
            per[e["activity"]][1] += counts[e["file"]][1] / 3600
    lines.append("- WISDM false steps/h: " + ", ".join(f"{a} {n / h:.0f}" for a, (n, h) in sorted(per.items()) if n))
    return "\n".join(lines)


def detector_arguments(ap, binary=True, overrides=True):
    """The options the detector's benches share: the release binary, ../shared, the leave-out models and `--set`."""
    if binary:
        ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--models", default=os.path.join(ROOT, "bench/leave_out"))
    if overrides:
        ap.add_argument("--set", action="append", default=[], help="KEY=JSON: a detector parameter to override")
    return ap


def overrides_of(args):
    """`--set KEY=JSON` as (key, value) pairs for `overridden`."""
    return [(k, json.loads(v)) for k, v in (s.split("=", 1) for s in args.set)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap)
    ap.add_argument("--counts", help="also write both count sets (JSON) here")
    args = ap.parse_args()
    overrides = overrides_of(args)
    es = entries(args.shared)
    with tempfile.TemporaryDirectory() as work:
        held_out = out_of_dataset_counts(args.binary, es, args.models, overrides, work)
        in_sample = in_sample_counts(args.binary, es, overrides, work)
    known = lambda counts: [e for e in es if e["file"] in counts]
    for title, counts in (("Out of dataset", held_out), ("In sample", in_sample)):
        print(f"## {title}" + (f" ({', '.join(args.set)})" if args.set else "") + "\n")
        print(markdown(*out_of_dataset(known(counts), counts)))
        print()
        print(bout_figures(known(counts), counts))
        print()
    if args.counts:
        json.dump({"out_of_dataset": held_out, "in_sample": in_sample}, open(args.counts, "w"))


if __name__ == "__main__":
    main()
