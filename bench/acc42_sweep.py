#!/usr/bin/env python3
"""acc42 (issue #47): the walk's end (`walkEndSeconds`, `walkEndShare`, `walkEndBelow`) swept out of dataset with
bout_eval.py; every file whose count moves against a reference counts.json (`--ref`, /work/ref40/counts.json) is
listed with its truth (0: a non-walking or unscored file; a walk losing its last steps shows as a lower count).

    python3 bench/acc42_sweep.py --binary B --ref REF_COUNTS 'walkEndSeconds=3 walkEndShare=0.2' ... > bench/acc42_sweep_result.md
"""
import argparse, csv, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def truths(shared):
    out = {}
    for folder in ("steps", "activities"):
        for r in csv.DictReader(open(os.path.join(shared, "data", folder, "manifest.csv"))):
            out[r["file"]] = r["truth_steps"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--ref", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("settings", nargs="+", help="space-separated KEY=JSON overrides per setting")
    args = ap.parse_args()
    ref = json.load(open(args.ref))["out_of_dataset"]
    truth = truths(args.shared)
    print("| setting | pooled false/h | WISDM hand /h | Oxford MAPE | Bangle MAPE | files moved | walking steps lost "
          "(files; truth > 0 or unscored) | largest loss on such a file |")
    print("|---|---|---|---|---|---|---|---|")
    details = []
    for setting in args.settings:
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            sets = [x for kv in setting.split() for x in ("--set", kv)]
            out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "bout_eval.py"), "--binary", args.binary,
                                  "--counts", f.name] + sets, check=True, capture_output=True, text=True).stdout
            got = json.load(open(f.name))["out_of_dataset"]
        oos = out.split("in sample")[0] if "in sample" in out else out
        pooled = re.search(r"false steps/h pooled \| ([\d.]+)", oos).group(1)
        oxford = re.search(r"oxford_opt \| walks, MAPE \| ([\d.]+ %)", oos).group(1)
        bangle = re.search(r"bangle_wrist \| walks, MAPE \| ([\d.]+ %)", oos).group(1)
        wisdm = re.search(r"WISDM false steps/h: (.*)", oos).group(1)
        moved = [(k, ref[k][0], got[k][0]) for k in ref if got.get(k, ref[k])[0] != ref[k][0]]
        walking = [(k, a, b) for k, a, b in moved if truth.get(k, "0") != "0"]  # empty truth: real, unscored steps
        lost = sum(a - b for k, a, b in walking if b < a)
        worst = max(walking, key=lambda m: (m[1] - m[2]) / max(m[1], 1), default=None)
        print(f"| `{setting}` | {pooled} | {wisdm} | {oxford} | {bangle} | {len(moved)} | {lost} ({len(walking)}) | "
              + (f"{worst[0]} {worst[1]} → {worst[2]} ({100 * (worst[2] - worst[1]) / max(worst[1], 1):+.1f} %)"
                 if worst else "-") + " |")
        details.append((setting, moved))
    for setting, moved in details:
        print(f"\n`{setting}`: {len(moved)} files moved" + (":" if moved else ""))
        for k, a, b in sorted(moved):
            print(f"- {k} (truth {truth.get(k, '?') or '-'}): {a} → {b}")


if __name__ == "__main__":
    main()
