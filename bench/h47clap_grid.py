#!/usr/bin/env python3
"""The hands gate's grid (issue #47, h47clap): every bout_eval row of each setting `bench/h47start_sweep.py` kept under
--out, one line a setting, out of dataset and in sample, with the gait steps each setting loses per file against the
first (the gate off).

    python3 bench/h47start_sweep.py --binary B --out bench/out/h47clap off= NAME=KEY=JSON,KEY=JSON ...
    python3 bench/h47clap_grid.py [--out bench/out/h47clap] off NAME ... > bench/h47clap_sweep_result.md

DSADS walking: the files under 60/min and the step total are counted from the counts (`--counts`), walking files only.
"""
import argparse, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_walking import dataset_of, gait_of  # noqa: E402
from bout_eval import entries as manifest_entries  # noqa: E402
from h47start_sweep import rows  # noqa: E402

COLUMNS = [
    ("WISDM /h", "wisdm_watch | non-walking, false steps/h", r"^([\d.]+)"),
    ("brushing", "wisdm_watch | brushing-teeth, false steps/h", r"^(\d+)"),
    ("clapping", "wisdm_watch | clapping, false steps/h", r"^(\d+)"),
    ("folding", "wisdm_watch | folding-clothes, false steps/h", r"^(\d+)"),
    ("drinking", "- WISDM false steps/h", r"drinking (\d+)"),
    ("pooled", "every data set | non-walking, false steps/h pooled", r"^([\d.]+)"),
    ("Bangle 0-step /h", "bangle_wrist | non-walking, false steps/h", r"^([\d.]+ \(\d+)"),
    ("PC work", "wrist_watch | PC work, false steps per file", r"^([\d.]+)"),
    ("least walk", "- wisdm_watch walking", r"least: (\S+ \d+)"),
    ("least jog", "- wisdm_watch running", r"least: (\S+ \d+)"),
    ("least stairs", "- wisdm_watch stairs", r"least: (\S+ \d+)"),
    ("DSADS walk / run / stairs", None, None),
    ("TUG runs >= 6", "- TUG", r"(\d+) of 205"),
    ("Bangle MAPE", "bangle_wrist | walks, MAPE", r"^([\d.]+ %)"),
    ("Oxford MAPE", "oxford_opt | walks, MAPE", r"^([\d.]+ %)"),
]


def cell(table, key, pattern):
    m = re.search(pattern, table.get(key, ""))
    if not m:
        return "?"
    return m.group(1) + (")" if "(" in m.group(1) else "")


def dsads(table, counts, es):
    medians = [re.match(r"^([\d.]+)", table.get(f"dsads_arm | {g}, steps/min (median)", "?")) for g in
               ("walking", "running", "stairs")]
    walks = [(f, n, s) for f, (n, s) in counts.items() if dataset_of(es[f]) == "dsads_arm" and gait_of(es[f]) == "walking"]
    under = sum(1 for _, n, s in walks if s and 60 * n / s < 60)
    total = sum(n for _, n, _ in walks)
    return " / ".join(m.group(1) if m else "?" for m in medians) + f"; {under} < 60; {total} steps"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/out/h47clap"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("names", nargs="+", help="settings under --out; the first is the reference")
    args = ap.parse_args()
    es = {e["file"]: e for e in manifest_entries(args.shared)}
    loaded = {n: (open(os.path.join(args.out, f"{n}.md")).read(), json.load(open(os.path.join(args.out, f"{n}.json"))))
              for n in args.names}
    for section, which in (("OOD", "out_of_dataset"), ("IN", "in_sample")):
        title = "Out of dataset" if section == "OOD" else "In sample"
        print(f"## {title}\n")
        print("| setting | " + " | ".join(c[0] for c in COLUMNS) + " | gait files that moved |")
        print("|---" * (len(COLUMNS) + 2) + "|")
        reference = loaded[args.names[0]][1][which]
        for name in args.names:
            text, counts = loaded[name]
            table = rows(text)[section]
            cells = [dsads(table, counts[which], es) if key is None else cell(table, key, pat)
                     for _, key, pat in COLUMNS]
            moved = []
            for f, (n, _) in sorted(counts[which].items()):
                e = es[f]
                if n != reference[f][0] and e["truth_steps"] != "0" and (e["truth_steps"] or gait_of(e)):
                    moved.append(f"{f.split('/')[1].removesuffix('.csv')} {reference[f][0]}→{n}")
            print(f"| {name} | " + " | ".join(cells) + " | " + (", ".join(moved) or "none") + " |")
        print()


if __name__ == "__main__":
    main()
