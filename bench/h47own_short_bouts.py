#!/usr/bin/env python3
"""Short bouts the walking gate refuses today, measured on their own seconds (issue #47, h47own).

Every recording of ../shared (both manifests) is traced by `bench/bout_trace.swift` (built as bout_misses.py builds
it), out of dataset (each data set with the model trained without it, `bench/leave_out/DATASET.json`) and in sample.
For each rhythm bout of `--min`-24 steps none of whose steps counted (its steps: the counted and refused events between
its first and last step), it prints what the short-bout judgement sees and what it could see instead:
- `cv`: the intervals' spread over their mean (today's `shortBoutIntervalCV`, 0.3);
- `cv-1`: the same without the one longest interval (a timed up and go's turn: two legs of a walk and a pause);
- `own`: the bout's own share of the moving energy along gravity (its first step − 0.3 s to its last + 0.3 s, what the
  recognizer's ring still holds when the bout ends: `WalkingRecognizer.alongShare`);
- `best`: the best short-bout evidence of the windows over it (today's judgement asks 0.25).
Walking files are those with steps (a count, or gait without one: walking, running, stairs, TUG); non-walking those
with a count of 0. Then each candidate rule is applied to every refused bout: the steps it would add in walking files
and in non-walking ones (false steps per hour over all non-walking hours), and the TUG runs it would lift from 0.
Bouts of a potter group are judged alone here (a group adds its neighbours' steps), so the rule's effect is a guide;
bout_eval.py counts the real detector.

    python3 bench/h47own_short_bouts.py [--min 7] > bench/h47own_short_bouts_result.md
"""
import argparse, collections, csv, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bout_eval import detector_arguments  # noqa: E402
from bout_misses import build_tracer  # noqa: E402
from train_walking import DATASETS, gait_of  # noqa: E402

CADENCE = (0.4, 1.0)


def entries(shared):
    out = []
    for name in ("steps", "activities"):
        base = os.path.join(shared, "data", name)
        for r in csv.DictReader(open(os.path.join(base, "manifest.csv"))):
            r["path"] = os.path.join(base, r["file"])
            out.append(r)
    return out


def kind_of(e):
    d = e["file"].split("/")[0]
    if e["truth_steps"] == "0":
        return f"{d} non-walking"
    if e["truth_steps"] or gait_of(e):
        return f"{d} {gait_of(e) or 'walking'}"
    return None


def trace_all(tracer, es, params_for, work):
    out = {}
    by = collections.defaultdict(list)
    for e in es:
        by[e["file"].split("/")[0]].append(e)
    for d, group in sorted(by.items()):
        path = os.path.join(work, f"params_{d}.json")
        json.dump(params_for(d), open(path, "w"))
        for i in range(0, len(group), 150):
            import subprocess
            run = subprocess.run([tracer, path] + [e["path"] for e in group[i:i + 150]], check=True,
                                 capture_output=True, text=True)
            for line in run.stdout.splitlines():
                t = json.loads(line)
                out[t["file"]] = t
    return out


def refused_bouts(trace, least):
    counted = np.array(trace["steps"])
    refused = np.array(trace["refused"])
    for r in trace["rhythm"]:
        a, b, own = r[0], r[1], r[4]
        if ((counted >= a - 1e-6) & (counted <= b + 1e-6)).any():
            continue
        steps = np.sort(refused[(refused >= a - 1e-6) & (refused <= b + 1e-6)])
        if not least <= len(steps) <= 24:
            continue
        iv = np.diff(steps)
        rest = np.delete(iv, np.argmax(iv))
        best = max((w[6] for w in trace["windows"] if w[0] <= b and a < w[1]), default=0.0)
        turn = (int(np.argmax(iv)) + 0.5) / len(iv)
        legs = [iv[:int(np.argmax(iv))], iv[int(np.argmax(iv)) + 1:]]
        within = sum(((leg - leg.mean()) ** 2).sum() for leg in legs if len(leg)) / max(len(rest), 1)
        yield {"n": len(steps), "mean": iv.mean(), "cv": iv.std() / iv.mean(), "turn": turn,
               "cv1": rest.std() / rest.mean() if len(rest) > 1 else 0.0, "own": own, "best": best,
               "legs": within ** 0.5 / rest.mean() if len(rest) > 1 else 0.0}


def pct(xs, q):
    return f"{np.percentile(xs, q):.2f}" if len(xs) else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap, binary=False, overrides=False)
    ap.add_argument("--min", type=int, default=7)
    args = ap.parse_args()
    es = [e for e in entries(args.shared) if kind_of(e)]
    hours = sum(float(e["duration_s"]) for e in es if e["truth_steps"] == "0") / 3600
    with tempfile.TemporaryDirectory() as work:
        tracer = build_tracer(work)
        model = json.load(open(os.path.join(ROOT, "bench", "walking_model.json")))
        gates = json.load(open(os.path.join(args.models, f"{DATASETS[0]}.json")))["recognizer"]
        shipped = {"recognizer": dict(gates, model=model["model"], enter=0.7, stay=model["stay"])}
        runs = (("Out of dataset", lambda d: json.load(open(os.path.join(args.models, f"{d}.json")))
                 if d in DATASETS else shipped), ("In sample", lambda d: shipped))
        print(f"# Short bouts refused today, on their own seconds ({args.min}-24 steps; h47own)\n")
        print(f"Non-walking hours: {hours:.1f}. Columns: 10th / 50th / 90th percentile.\n")
        for title, params_for in runs:
            traces = trace_all(tracer, es, params_for, work)
            rows = collections.defaultdict(list)
            for e in es:
                for bout in refused_bouts(traces[e["path"]], args.min):
                    bout["kind"], bout["walk"], bout["tug"] = kind_of(e), e["truth_steps"] != "0", e["path"]
                    rows[kind_of(e)].append(bout)
            report(title, rows, hours, es, traces)


def report(title, rows, hours, es, traces):
    print(f"## {title}\n")
    print("| files | refused bouts | steps | at a walk's cadence | cv | cv without the longest | own share | "
          "best window evidence | where the longest interval lies (0-1) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind in sorted(rows):
        bs = rows[kind]
        ok = [b for b in bs if CADENCE[0] <= b["mean"] <= CADENCE[1]]
        f = lambda k: " / ".join(pct([b[k] for b in ok if b[k] >= 0], q) for q in (10, 50, 90))
        print(f"| {kind} | {len(bs)} | {sum(b['n'] for b in bs)} | {len(ok)} | {f('cv')} | {f('cv1')} | {f('own')} | "
              f"{f('best')} | {f('turn')} |")
    allb = [b for bs in rows.values() for b in bs]
    tug_zero = {e["path"] for e in es if gait_of(e) == "tug" and not traces[e["path"]]["steps"]}
    print(f"\nTUG runs at 0: {len(tug_zero)}. Each rule below counts a refused bout at a walk's cadence that passes "
          "it (judged alone):\n")
    print("| rule | walking bouts (steps) | TUG runs lifted from 0 | non-walking bouts (steps) | false steps/h added |")
    print("|---|---|---|---|---|")
    rules = [("today's spread, best >= 0.25 (control: 0 expected)", lambda b: b["cv"] <= 0.3 and b["best"] >= 0.25)]
    for cv in (0.25, 0.3, 0.35):
        rules.append((f"cv-1 <= {cv}, best >= 0.25", lambda b, cv=cv: b["cv1"] <= cv and b["best"] >= 0.25))
    middle = lambda b: 0.25 <= b["turn"] <= 0.75
    for cv in (0.25, 0.3):
        rules.append((f"each leg's spread (around its own mean) <= {cv}, best >= 0.25, longest in the middle half",
                      lambda b, cv=cv: b["legs"] <= cv and b["best"] >= 0.25 and middle(b)))
    for cv in (0.25, 0.3, 0.35):
        rules.append((f"cv-1 <= {cv}, best >= 0.25, longest interval in the middle half",
                      lambda b, cv=cv: b["cv1"] <= cv and b["best"] >= 0.25 and middle(b)))
    for s in (0.2, 0.25, 0.3, 0.35):
        rules.append((f"cv-1 <= 0.3, best >= 0.25, own >= {s}",
                      lambda b, s=s: b["cv1"] <= 0.3 and b["best"] >= 0.25 and b["own"] >= s))
        rules.append((f"cv-1 <= 0.3, best >= 0.25, own >= {s}, longest in the middle half",
                      lambda b, s=s: b["cv1"] <= 0.3 and b["best"] >= 0.25 and b["own"] >= s and middle(b)))
    for s in (0.4, 0.45, 0.5, 0.55, 0.6):
        rules.append((f"cv <= 0.3, own >= {s}", lambda b, s=s: b["cv"] <= 0.3 and b["own"] >= s))
        rules.append((f"cv-1 <= 0.3, own >= {s}", lambda b, s=s: b["cv1"] <= 0.3 and b["own"] >= s))
        rules.append((f"cv-1 <= 0.3, own >= {s} or best >= 0.25",
                      lambda b, s=s: b["cv1"] <= 0.3 and (b["own"] >= s or b["best"] >= 0.25)))
        rules.append((f"cv-1 <= 0.3, own >= {s}, best >= 0.1",
                      lambda b, s=s: b["cv1"] <= 0.3 and b["own"] >= s and b["best"] >= 0.1))
    for name, rule in rules:
        hit = [b for b in allb if CADENCE[0] <= b["mean"] <= CADENCE[1] and rule(b)]
        walk = [b for b in hit if b["walk"]]
        non = [b for b in hit if not b["walk"]]
        lifted = len({b["tug"] for b in walk} & tug_zero)
        print(f"| {name} | {len(walk)} ({sum(b['n'] for b in walk)}) | {lifted} | {len(non)} "
              f"({sum(b['n'] for b in non)}) | {sum(b['n'] for b in non) / hours:.1f} |")
    print()


if __name__ == "__main__":
    main()
