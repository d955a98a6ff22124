#!/usr/bin/env python3
"""The gate look-back's sweep (issue #47, h47start): `bench/bout_eval.py` at each setting, every row side by side, and
the steps each setting adds per data set against the look-back off (file by file, from `--counts`).

    swift build -c release --product steptweet   (the gate look-back is GateLookBack.swift since session 30)
    python3 bench/h47start_sweep.py [--binary B] [--out bench/out/h47start] NAME=KEY=JSON[,KEY=JSON] ... \
        > bench/h47start_sweep_result.md

The first setting is the reference (the look-back off: `off=startLookBackSeconds=0`; before session 30 it was off by default, `off=` with no key). Each setting's bout_eval output and counts
are kept under --out, and a setting already there is read, not run again. Added steps are split into walks (a truth
count above 0, or a gait activity) and files with a truth of 0 (false steps when added, what the pooled figure
counts); activities neither (DSADS basketball, jumping) are left out.
"""
import argparse, collections, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from train_walking import dataset_of, gait_of  # noqa: E402
from bout_eval import entries as manifest_entries  # noqa: E402


def run(binary, out, name, sets):
    md, counts = os.path.join(out, f"{name}.md"), os.path.join(out, f"{name}.json")
    if not (os.path.exists(md) and os.path.exists(counts)):
        args = [sys.executable, os.path.join(ROOT, "bench/bout_eval.py"), "--binary", binary, "--counts", counts]
        for s in sets:
            args += ["--set", s]
        text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        open(md, "w").write(text)
    return open(md).read(), json.load(open(counts))


def rows(text):
    """Section title -> ordered {row key: value} of bout_eval's table and bullet lines."""
    sections, current = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            current = "OOD" if line.startswith("## Out of dataset") else "IN"
            sections[current] = collections.OrderedDict()
        elif current and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) >= 3 and cells[0] != "held out":
                sections[current][f"{cells[0]} | {cells[1]}"] = " / ".join(cells[2:])
        elif current and line.startswith("- "):
            key = re.split(r":", line, maxsplit=1)[0]
            sections[current][key] = line.split(":", 1)[1].strip() if ":" in line else line
    return sections


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/out/h47start"))
    ap.add_argument("settings", nargs="+", help="NAME=KEY=JSON[,KEY=JSON]; the first is the reference")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    es = {e["file"]: e for e in manifest_entries(args.shared)}
    names, results = [], []
    for s in args.settings:
        name, _, rest = s.partition("=")
        sets = [x for x in rest.split(",") if x]
        names.append(name)
        results.append(run(args.binary, args.out, name, sets))
        print(f"ran {name}: {sets}", file=sys.stderr)
    print("settings: " + "; ".join(args.settings) + "\n")
    for section in ("OOD", "IN"):
        print(f"## {section}: " + " -> ".join(names) + "\n")
        tables = [rows(text)[section] for text, _ in results]
        for key in tables[0]:
            print(f"{key} | " + " -> ".join(t.get(key, "?") for t in tables))
        print()
    for section, which in (("OOD", "out_of_dataset"), ("IN", "in_sample")):
        print(f"## {section}: steps added against {names[0]}, per data set: walks (files) / no-step files (files)\n")
        print("| setting | " + " | ".join(sorted({dataset_of(e) for e in es.values()})) + " |")
        print("|---" * (1 + len({dataset_of(e) for e in es.values()})) + "|")
        reference = results[0][1][which]
        for name, (_, counts) in zip(names[1:], results[1:]):
            added = collections.defaultdict(lambda: [0, 0, 0, 0])
            for f, (n, _) in counts[which].items():
                e = es[f]
                delta = n - reference[f][0]
                if e["truth_steps"] == "" and gait_of(e) is None:
                    continue
                walk = e["truth_steps"] != "0"
                slot = added[dataset_of(e)]
                if delta:
                    slot[0 if walk else 2] += delta
                    slot[1 if walk else 3] += 1
            cols = sorted({dataset_of(e) for e in es.values()})
            cells = [(lambda a: f"{a[0]:+d} ({a[1]}) / {a[2]:+d} ({a[3]})")(added[d]) for d in cols]
            print(f"| {name} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
