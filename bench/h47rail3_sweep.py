#!/usr/bin/env python3
"""Issue #47 (h47rail3): path continuity (`pathContinuitySeconds`) swept with bench/bout_eval.py's `--set`, every
figure the bout side targets, out of dataset first (each data set counted by the model trained without it).

Per value: the three DSADS level treadmill walks with a hand on the rail (p1 _1, _2, p2 _1; steps/min), the DSADS
walking files under 60 steps/min (p3's two 15° walks count 0 at any value: out of scope), the DSADS walking median,
pooled non-walking false steps/h, WISDM non-walking and brushing/clapping/folding false steps/h, TUG steps per run,
Bangle.js and Oxford walk MAPE (Oxford to three decimals from the counts), SensorWatch PC work false steps per file;
then in sample the pooled false steps/h and Oxford MAPE. 0 is the detector before (each window judged alone).

    swift build -c release --product steptweet
    python3 bench/h47rail3_sweep.py [--binary B] 0 2 3 4 5 6 7 8 10 15 20 > bench/h47rail3_sweep_result.md
"""
import argparse, csv, json, os, re, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAIL = ["p1_walking-treadmill-4kmh_1", "p1_walking-treadmill-4kmh_2", "p2_walking-treadmill-4kmh_1"]


def figure(text, pattern):
    m = re.search(pattern, text)
    return m.group(1).strip() if m else "?"


def oxford_mape(counts):
    manifest = os.path.join(ROOT, "../shared/data/steps/manifest.csv")
    truth = {r["file"]: float(r["truth_steps"]) for r in csv.DictReader(open(manifest))
             if r["file"].startswith("oxford_opt/") and r["truth_steps"]}
    return sum(abs(counts[f][0] - t) / t for f, t in truth.items()) / len(truth) * 100


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    parser.add_argument("values", nargs="+")
    args = parser.parse_args()
    print("| pathContinuitySeconds | rail p1_1 / p1_2 / p2_1 | DSADS walking < 60 | DSADS walking median | pooled "
          "false/h | WISDM false/h | brushing / clapping / folding | TUG | Bangle.js MAPE | Oxford MAPE | PC work | "
          "in sample pooled / Oxford |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "counts.json")
        for v in args.values:
            out = subprocess.run(["python3", os.path.join(ROOT, "bench/bout_eval.py"), "--binary", args.binary,
                                  "--set", f"pathContinuitySeconds={v}", "--counts", path],
                                 capture_output=True, text=True, check=True, cwd=ROOT).stdout
            counts = json.load(open(path))
            ood, ins = out.split("## In sample")
            c = counts["out_of_dataset"]
            rate = {f: n / s * 60 for f, (n, s) in c.items() if f.startswith("dsads_arm/")}
            rail = " / ".join(f"{rate[f'dsads_arm/{r}.csv']:.1f}" for r in RAIL)
            under = sorted(os.path.basename(f)[:-4] for f, r in rate.items() if "_walking" in f and r < 60)
            hands = " / ".join(figure(ood, rf"{a}, false steps/h \| (\d+)")
                               for a in ("brushing-teeth", "clapping", "folding-clothes"))
            print(f"| {v} | {rail} | {len(under)}: {', '.join(under)} | "
                  f"{figure(ood, r'dsads_arm [|] walking, steps/min [(]median[)] [|] ([0-9.]+)')} | "
                  f"{figure(ood, r'pooled [|] ([0-9.]+)')} | "
                  f"{figure(ood, r'wisdm_watch [|] non-walking, false steps/h [|] ([0-9.]+)')} | {hands} | "
                  f"{figure(ood, r'TUG steps per run [(]median[)] [|] ([^|]+)')} | "
                  f"{figure(ood, r'bangle_wrist [|] walks, MAPE [|] ([0-9.]+ %)')} | "
                  f"{oxford_mape(c):.3f} % | {figure(ood, r'PC work, false steps per file [|] ([0-9.]+)')} | "
                  f"{figure(ins, r'pooled [|] ([0-9.]+)')} / {oxford_mape(counts['in_sample']):.3f} % |", flush=True)


if __name__ == "__main__":
    main()
