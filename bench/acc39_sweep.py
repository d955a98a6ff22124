#!/usr/bin/env python3
"""acc39's sweep (issue #47): a bout of 4-6 steps in a group gives the group evidence from its own seconds
(`groupBoutBodyShare`, `groupBoutBodyStride`, ShortBoutBody.swift). For each setting, acc38_sweep.py's line
(`bench/bout_eval.py` out of dataset and `bench/free_living_splice.py`) with the potter streams' recall, every data
set's non-walking false steps, and the files whose count moved against a reference counts file (`bout_eval.py
--counts`, out of dataset and in sample: gait files down, truth-0 files up).

    python3 bench/acc39_sweep.py --reference-counts REF.json [--binary B] [--reference-binary R] \
        NAME=KEY=JSON[,KEY=JSON] ... > bench/acc39_sweep_result.md
"""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import acc38_sweep  # noqa: E402
from bout_eval import entries  # noqa: E402


def moved(reference, counts, truth):
    """Files whose count moved: (gait files down, gait files up, truth-0 files up), out of dataset | in sample."""
    out = []
    for part in ("out_of_dataset", "in_sample"):
        r, c = reference[part], counts[part]
        down = [f for f in r if f in c and truth.get(f) != "0" and c[f][0] < r[f][0]]
        up = [f for f in r if f in c and truth.get(f) != "0" and c[f][0] > r[f][0]]
        false_up = sum(c[f][0] - r[f][0] for f in r if f in c and truth.get(f) == "0")
        out.append(f"{len(down)}/{len(up)}/{false_up:+d}")
    return " \\| ".join(out)


def nonwalking(binary, sets, counts_path):
    extra = sum((["--set", s] for s in sets), [])
    ev = subprocess.run([sys.executable, os.path.join(ROOT, "bench/bout_eval.py"), "--binary", binary,
                         "--counts", counts_path] + extra, check=True, capture_output=True, text=True).stdout
    ood = ev.split("## In sample")[0]
    return "/".join(acc38_sweep.cell(ood, d, "non-walking, false steps/h")
                    for d in ("wisdm_watch", "dsads_arm", "bangle_wrist", "wrist_watch"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--reference-binary")
    ap.add_argument("--reference-counts", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("settings", nargs="+", help="NAME=KEY=JSON[,KEY=JSON]")
    args = ap.parse_args()
    reference = json.load(open(args.reference_counts))
    truth = {e["file"]: e["truth_steps"] for e in entries(args.shared)}
    header = None
    with tempfile.TemporaryDirectory() as work:
        for s in args.settings:
            name, _, rest = s.partition("=")
            sets = [x for x in rest.split(",") if x]
            f = acc38_sweep.figures(args.binary, args.reference_binary or args.binary, sets)
            path = os.path.join(work, "counts.json")
            f["WISDM/DSADS/Bangle/SW non-walking /h"] = nonwalking(args.binary, sets, path)
            f["gait down/up/false (ood \\| in sample)"] = moved(reference, json.load(open(path)), truth)
            fl = subprocess.run([sys.executable, os.path.join(ROOT, "bench/free_living_splice.py"), "--binary",
                                 args.binary, "--reference-binary", args.reference_binary or args.binary]
                                + sum((["--set", x] for x in sets), []), check=True, capture_output=True,
                                text=True).stdout.split("### In sample")[0]
            row = lambda *k: next((l.split("|")[-2].strip() for l in fl.splitlines()
                                   if [c.strip() for c in l.strip("|").split("|")][:4] == list(k)), "?")
            f["potter Bangle <100/>=100"] = row("bangle", "potter", "0", "< 100") + " / " + row(
                "bangle", "potter", "0", ">= 100")
            f["potter WISDM >=100"] = row("wisdm", "potter", "0", ">= 100")
            for k in ("Bangle MAPE", "PC/file", "WISDM walk least", "brushing"):
                f.pop(k, None)
            header = acc38_sweep.print_row(name, f, header)


if __name__ == "__main__":
    main()
