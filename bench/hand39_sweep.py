#!/usr/bin/env python3
"""Settings of the detector against issue #47's hard constraints, out of dataset (hand39): `bench/bout_eval.py` at each
setting, its figures (pooled non-walking, WISDM clapping / folding / brushing, the least WISDM walk / jog / stairs, the
DSADS walking median, TUG runs >= 6, Bangle.js and Oxford MAPE) and, file by file against a reference counts file
(`bout_eval.py --counts`), every gait file that moved (a truth above 0, or a gait activity) and the steps every other
file lost or gained. A gait file losing more than 1 step/min (unrounded) breaks the constraint and is listed.

    python3 bench/bout_eval.py --binary /work/ref39/steptweet --counts REF.json
    python3 bench/hand39_sweep.py --binary B --reference REF.json [--out DIR] NAME=KEY=JSON[,KEY=JSON] ...

Each setting's bout_eval output and counts are kept under --out; a setting already there is read, not run again.
"""
import argparse, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_walking import gait_of  # noqa: E402
from bout_eval import entries  # noqa: E402

FIGURES = {  # name: pattern in the out-of-dataset half of bout_eval's output
    "pooled": r"pooled \| ([\d.]+)",
    "clapping": r"clapping, false steps/h \| (\d+)",
    "folding": r"folding-clothes, false steps/h \| (\d+)",
    "brushing": r"brushing-teeth, false steps/h \| (\d+)",
    "wisdm worst": r"wisdm_watch \| non-walking, false steps/h \| [^|]*\| (\d+: \d+)",
    "walk": r"wisdm_watch walking: median [\d.]+/min; least: \S+ (\d+)",
    "jog": r"wisdm_watch running: median [\d.]+/min; least: \S+ (\d+)",
    "stairs": r"wisdm_watch stairs: median [\d.]+/min; least: \S+ (\d+)",
    "dsads walking": r"dsads_arm walking: median ([\d.]+)",
    "tug >= 6": r"(\d+) of 205 runs",
    "bangle": r"bangle_wrist \| walks, MAPE \| ([\d.]+ %)",
    "oxford": r"oxford_opt \| walks, MAPE \| ([\d.]+ %)",
}


def run(binary, out, name, sets):
    md, counts = os.path.join(out, f"{name}.md"), os.path.join(out, f"{name}.json")
    if not os.path.exists(counts):
        args = [sys.executable, os.path.join(ROOT, "bench", "bout_eval.py"), "--binary", binary, "--counts", counts]
        for s in sets:
            args += ["--set", s]
        open(md, "w").write(subprocess.run(args, check=True, capture_output=True, text=True, cwd=ROOT).stdout)
    return open(md).read(), json.load(open(counts))


def figures(text):
    out = text.split("## In sample")[0]
    return {k: (re.search(p, out) or [None, "?"])[1] for k, p in FIGURES.items()}


def moved(rows, reference, counts):
    """(gait files that moved, other files that moved): (file, reference count, count, steps/min)."""
    gait, other = [], []
    for f, (n0, seconds) in reference["out_of_dataset"].items():
        n1 = counts["out_of_dataset"][f][0]
        if n1 == n0:
            continue
        e = rows.get(f)
        is_gait = e is not None and (e["truth_steps"] not in ("", "0") or gait_of(e) is not None)
        (gait if is_gait else other).append((f.split("/")[-1], n0, n1, (n1 - n0) / (seconds / 60)))
    return gait, other


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--reference", required=True, help="bout_eval.py --counts of the reference build")
    ap.add_argument("--out", default="/tmp/hand39_sweep")
    ap.add_argument("settings", nargs="+", help="NAME=KEY=JSON[,KEY=JSON] (NAME= alone: no override)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = {e["file"]: e for e in entries(os.path.join(ROOT, "..", "shared"))}
    reference = json.load(open(args.reference))
    print("| setting | " + " | ".join(FIGURES) + " | gait files moved (steps) | gait files over −1/min | "
          "other files' steps |\n|---" * 1 + "|---" * (len(FIGURES) + 3) + "|")
    for spec in args.settings:
        name, _, sets = spec.partition("=")
        text, counts = run(args.binary, args.out, name, [s for s in sets.split(",") if s])
        fig = figures(text)
        gait, other = moved(rows, reference, counts)
        over = ", ".join(f"{f} {n0}→{n1} ({d:+.3f}/min)" for f, n0, n1, d in gait if d < -1.0) or "none"
        print(f"| {name} `{sets or 'reference'}` | " + " | ".join(fig.values())
              + f" | {len(gait)} ({sum(n1 - n0 for _, n0, n1, _ in gait):+d}) | {over} | "
              + f"{sum(n1 - n0 for _, n0, n1, _ in other):+d} |")


if __name__ == "__main__":
    main()
