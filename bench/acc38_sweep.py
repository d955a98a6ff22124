#!/usr/bin/env python3
"""acc38's sweep (issue #47): a lone bout of 4-6 steps judged on its own seconds (`loneBoutBodyShare`,
`loneBoutBodyStride`, `loneBoutBodyMotion`, ShortBoutBody.swift). For each setting, `bench/bout_eval.py` (out of
dataset: pooled and worst non-walking false steps, WISDM hand activities, gait, TUG, MAPEs) and
`bench/free_living_splice.py` (the spliced short bouts, reference steps from `--reference-binary`) on one line.

    python3 bench/acc38_sweep.py [--binary B] [--reference-binary R] NAME=KEY=JSON[,KEY=JSON] ... \
        > bench/acc38_sweep_result.md
"""
import argparse, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cell(text, dataset, measure):
    for line in text.splitlines():
        c = [x.strip() for x in line.strip("|").split("|")]
        if len(c) >= 3 and c[0] == dataset and c[1].startswith(measure):
            return c[2].split()[0]
    return "?"


def figures(binary, reference, sets):
    extra = sum((["--set", s] for s in sets), [])
    ev = subprocess.run([sys.executable, os.path.join(ROOT, "bench/bout_eval.py"), "--binary", binary] + extra,
                        check=True, capture_output=True, text=True).stdout
    ood = ev.split("## In sample")[0]
    fl = subprocess.run([sys.executable, os.path.join(ROOT, "bench/free_living_splice.py"), "--binary", binary,
                         "--reference-binary", reference] + extra, check=True, capture_output=True, text=True).stdout
    fl = fl.split("### In sample")[0]
    rec = lambda *k: next((l.split("|")[-2].strip() for l in fl.splitlines()
                           if [c.strip() for c in l.strip("|").split("|")][:4] == list(k)), "?")
    worst = max(float(cell(ood, d, "non-walking, false steps/h")) for d in
                ("wisdm_watch", "dsads_arm", "bangle_wrist", "wrist_watch"))
    wisdm_acts = dict(re.findall(r"(\w[\w-]*) (\d+)", ood.split("- WISDM false steps/h:")[1].splitlines()[0]))
    tug = re.search(r"TUG: median ([\d.]+) steps per run, (\d+) of", ood)
    twins = re.search(r"false steps in the non-walking parts \(the twins\): (.*)", fl).group(1)
    return {
        "pooled/h": cell(ood, "every data set", "non-walking, false steps/h pooled"),
        "WISDM/h": cell(ood, "wisdm_watch", "non-walking, false steps/h"),
        "worst set/h": f"{worst:.1f}",
        "brushing": wisdm_acts.get("brushing-teeth", "0"),
        "WISDM walk least": re.search(r"wisdm_watch walking: .*?least: \S+ (\d+)", ood).group(1),
        "TUG median (>=6)": f"{tug.group(1)} ({tug.group(2)})",
        "Bangle MAPE": cell(ood, "bangle_wrist", "walks, MAPE"),
        "Oxford MAPE": cell(ood, "oxford_opt", "walks, MAPE"),
        "PC/file": cell(ood, "wrist_watch", "PC work"),
        "splice <100": rec("all", "any", "any", "< 100"),
        "splice >=100": rec("all", "any", "any", ">= 100"),
        "4-step <100/>=100": rec("all", "bout", "4", "< 100") + " / " + rec("all", "bout", "4", ">= 100"),
        "6-step <100/>=100": rec("all", "bout", "6", "< 100") + " / " + rec("all", "bout", "6", ">= 100"),
        "twins' false steps": re.sub(r" in [\d.]+ h", "", twins),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--reference-binary", help="whose whole-walk steps are the splice's reference (default --binary)")
    ap.add_argument("settings", nargs="+", help="NAME=KEY=JSON[,KEY=JSON]")
    args = ap.parse_args()
    header = None
    for s in args.settings:
        name, _, rest = s.partition("=")
        f = figures(args.binary, args.reference_binary or args.binary, [x for x in rest.split(",") if x])
        header = print_row(name, f, header)


def print_row(name, figures_, header):
    """Prints one setting's figures as a Markdown table row, first the header (the first row's keys) when `header` is
    None; returns the header the next rows use."""
    if header is None:
        header = list(figures_)
        print("| setting | " + " | ".join(header) + " |")
        print("|---" * (len(header) + 1) + "|")
    print(f"| {name} | " + " | ".join(figures_[k] for k in header) + " |", flush=True)
    return header


if __name__ == "__main__":
    main()
