#!/usr/bin/env python3
"""Every shared set by subject, before and after a change to the walking recognizer, out of fold (issue #36).

The counts come from `scripts/train_walking.py --counts FILE` (every recording's out-of-fold count, per `enter`):

    python3 scripts/train_walking.py --no-write --monotone none --counts /tmp/before.json   # the earlier model
    python3 scripts/train_walking.py --no-write --counts /tmp/after.json                    # today's
    python3 bench/by_subject.py --labels "no constraint (session 20),r1+ r2+ (session 21)" /tmp/before.json \
        /tmp/after.json > bench/by_subject_result.md

Tables: WISDM per subject (false steps per hour over the 12 non-walking activities; walking's steps per minute),
Oxford per user (MAPE), Bangle.js per walk (error) and its 0-step files, wrist_watch per recording (counted of true).
"""
import argparse, collections, csv, datetime, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from train_walking import group_of  # noqa: E402  (the unit a fold holds out: a subject, a user, a file)


def entries(shared):
    out = {}
    for name in ("steps", "activities"):
        for r in csv.DictReader(open(os.path.join(shared, "data", name, "manifest.csv"))):
            out[r["file"]] = r
    return out


def wisdm(es, runs):
    rows = collections.defaultdict(lambda: [[0, 0.0, 0, 0.0] for _ in runs])
    for f, e in es.items():
        if not f.startswith("wisdm_watch/"):
            continue
        for i, counts in enumerate(runs):
            n, seconds = counts[f]
            r = rows[e["subject"]][i]
            if e["truth_steps"] == "":
                r[2], r[3] = n, seconds
            else:
                r[0] += max(0, n - int(e["truth_steps"]))
                r[1] += seconds
    print("## WISDM watch, per subject\n")
    print("| subject | false steps/h, 12 activities | walking steps/min |")
    print("|---|---|---|")
    for s in sorted(rows, key=lambda s: -rows[s][-1][0] / rows[s][-1][1]):
        v = rows[s]
        print(f"| {s} | " + " → ".join(f"{r[0] / r[1] * 3600:.0f}" for r in v) + " | "
              + " → ".join(f"{r[2] / r[3] * 60:.1f}" for r in v) + " |")
    over = [sum(1 for v in rows.values() if v[i][0] / v[i][1] * 3600 > 250) for i in range(len(runs))]
    print(f"\nSubjects over 250 false steps per hour: {' → '.join(map(str, over))}.\n")


def mape_by_unit(es, runs, dataset, title):
    units = collections.defaultdict(list)
    for f, e in es.items():
        if f.startswith(dataset + "/") and e["truth_steps"] and int(e["truth_steps"]) >= 100:
            units[group_of(e)].append(f)
    print(f"## {title}\n")
    print("| unit | walks | MAPE |")
    print("|---|---|---|")
    for u in sorted(units):
        fs = units[u]
        m = [sum(abs(c[f][0] - int(es[f]["truth_steps"])) / int(es[f]["truth_steps"]) for f in fs) / len(fs) * 100
             for c in runs]
        print(f"| {u[-1] if isinstance(u, tuple) else u} | {len(fs)} | " + " → ".join(f"{x:.2f} %" for x in m) + " |")
    print()


def per_file(es, runs, dataset, title):
    print(f"## {title}\n")
    print("| recording | true | counted |")
    print("|---|---|---|")
    for f in sorted(f for f in es if f.startswith(dataset + "/") and es[f]["truth_steps"]):
        print(f"| {f.split('/', 1)[1]} | {es[f]['truth_steps']} | " + " → ".join(str(c[f][0]) for c in runs) + " |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("counts", nargs="+", help="--counts files of train_walking.py, oldest first")
    ap.add_argument("--enter", default="0.7", help="the enter value to report (default %(default)s)")
    ap.add_argument("--labels", help="comma-separated names of the runs, in order (default: the files' names)")
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    a = ap.parse_args()
    es = entries(a.shared)
    runs = []
    for path in a.counts:
        by_enter = json.load(open(path))
        if a.enter not in by_enter:
            sys.exit(f"{path}: no counts at enter {a.enter} (it has {', '.join(by_enter)})")
        runs.append(by_enter[a.enter])
        missing = [f for f in es if f not in runs[-1]]
        if missing:
            sys.exit(f"{path}: no count for {missing[0]} and {len(missing) - 1} more recordings")
    labels = a.labels.split(",") if a.labels else [os.path.basename(p) for p in a.counts]
    print(f"# Every shared set by subject, out of fold, enter {a.enter}: " + " → ".join(labels))
    print(f"\n{datetime.date.today()}; the counts are steptweet's own, each recording counted by the fold that never "
          "saw its subject, user or file. Each cell is before → after.\n")
    wisdm(es, runs)
    mape_by_unit(es, runs, "oxford_opt", "Oxford phones, per user (leave one user out)")
    per_file(es, runs, "bangle_wrist", "Bangle.js, per file (leave one file out)")
    per_file(es, runs, "wrist_watch", "wrist_watch, per recording (both rates of one recording held out together)")


if __name__ == "__main__":
    main()
