#!/usr/bin/env python3
"""acc46 (issue #47): the carried-arm path (`carriedArmStride`, `carriedArmContrast`, `carriedArmJolt`) swept out of
dataset with the real detector (bout_eval.py's leave-out models, out of dataset only, to save time); per setting:
p3's two 15° rail walks in steps/min, the pooled false steps/h of the files whose truth is 0, the WISDM hand rows,
Oxford and Bangle.js MAPE, and every file whose count moves against a reference counts.json (`--ref`) with its truth.

    python3 bench/acc46_sweep.py --binary B --ref /work/ref42/counts.json 'carriedArmStride=0.7' ... > out.md
"""
import argparse, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bout_eval import entries, out_of_dataset_counts, bout_figures  # noqa: E402
from train_walking import markdown, out_of_dataset  # noqa: E402

RAIL = ["dsads_arm/p3_walking-treadmill-4kmh-15deg_1.csv", "dsads_arm/p3_walking-treadmill-4kmh-15deg_2.csv"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--ref", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--models", default=os.path.join(ROOT, "bench/leave_out"))
    ap.add_argument("settings", nargs="+", help="space-separated KEY=JSON overrides per setting ('' for none)")
    args = ap.parse_args()
    ref = json.load(open(args.ref))["out_of_dataset"]
    es = entries(args.shared)
    truth = {e["file"]: e["truth_steps"] for e in es}
    print("| setting | p3 rail _1 / _2 (steps/min) | pooled false/h | WISDM hand /h | Oxford MAPE | Bangle MAPE | "
          "files moved | truth-0 files up (steps) | walking files down (steps) |")
    print("|---|---|---|---|---|---|---|---|---|")
    details = []
    for setting in args.settings:
        overrides = [(k, json.loads(v)) for k, v in (kv.split("=", 1) for kv in setting.split())]
        with tempfile.TemporaryDirectory() as work:
            got = out_of_dataset_counts(args.binary, es, args.models, overrides, work)
        known = [e for e in es if e["file"] in got]
        table = markdown(*out_of_dataset(known, got))
        figures = bout_figures(known, got)
        pooled = re.search(r"false steps/h pooled \| ([\d.]+)", table).group(1)
        oxford = re.search(r"oxford_opt \| walks, MAPE \| ([\d.]+ %)", table).group(1)
        bangle = re.search(r"bangle_wrist \| walks, MAPE \| ([\d.]+ %)", table).group(1)
        wisdm = re.search(r"WISDM false steps/h: (.*)", figures).group(1)
        rail = " / ".join(f"{got[f][0] / (got[f][1] / 60):.1f}" for f in RAIL)
        moved = [(k, ref[k][0], got[k][0]) for k in ref if k in got and got[k][0] != ref[k][0]]
        up = [(k, a, b) for k, a, b in moved if truth.get(k) == "0" and b > a]
        down = [(k, a, b) for k, a, b in moved if truth.get(k) != "0" and b < a]
        print(f"| `{setting or 'standard'}` | {rail} | {pooled} | {wisdm} | {oxford} | {bangle} | {len(moved)} | "
              f"{len(up)} (+{sum(b - a for _, a, b in up)}) | {len(down)} ({sum(b - a for _, a, b in down)}) |")
        sys.stdout.flush()
        details.append((setting, moved))
    for setting, moved in details:
        print(f"\n`{setting or 'standard'}`: {len(moved)} files moved" + (":" if moved else ""))
        for k, a, b in sorted(moved):
            print(f"- {k} (truth {truth.get(k, '?') or '-'}): {a} → {b}")


if __name__ == "__main__":
    main()
