#!/usr/bin/env python3
"""acc43 (issue #47): does the step interval tell the walk's rhythm bout running on into the hand's peaks (acc42: 56 %
of the false steps after a walk) from the steps of real walks?

For every counted step inside a rhythm bout (bout_trace.swift, each data set with the model trained without it), with
at least 4 intervals of the same bout before its own (5 counted steps):
- ratio: its interval (from the bout's previous counted step) over the median of the 4 intervals before that;
- spread: the coefficient of variation (std / mean) of the 4 intervals ending at it;
- jump: the median of the 3 intervals ending at it over the median of the (up to 8) intervals before those (a shift of
  the bout's interval, judged on its newest steps alone).

After-walk streams (acc41_after_walk_splice.py `--keep` folder, not the twins): the run-on steps are the walk's bout's
counted steps after the walk's last reference step + 0.5 s; the walk's own steps are the same bout's steps before the
walk's last reference step. Each step also carries its scored windows' mean P (acc42_mechanism.py's). `first run-on`
= the first run-on step of each stream (where a rule would have to end the bout: ending it there removes every later
run-on step too). Real walks: WISDM walking (1609_walking's 81-122 s stretch
apart), DSADS walking / treadmill / stepper / stairs; all their bout steps after the 5th.

    python3 bench/acc43_intervals.py --tracer T --streams DIR > bench/acc43_intervals_result.md
"""
import argparse, csv, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402

MARGIN = 0.5
GAIT = ("walking", "walking-treadmill-4kmh", "walking-treadmill-4kmh-15deg", "stepper", "stairs-up", "stairs-down")


def mean_p(windows, x):
    """The mean probability of the scored windows containing `x` (acc42_mechanism.py's), 1 without one."""
    ps = [w[2] for w in windows if w[0] <= x < w[1]]
    return sum(ps) / len(ps) if ps else 1.0


def features(steps, bouts, windows):
    """(time, ratio, spread, index in bout, bout, jump, windows' mean P) for every counted step with >= 5 earlier
    counted steps of its bout."""
    out = []
    for b in bouts:
        xs = [x for x in steps if b[0] - 1e-6 <= x <= b[1] + 1e-6]
        iv = np.diff(xs)
        for k in range(4, len(iv)):
            ratio = iv[k] / np.median(iv[k - 4:k])
            last4 = iv[k - 3:k + 1]
            jump = np.median(iv[max(0, k - 2):k + 1]) / np.median(iv[max(0, k - 10):max(1, k - 2)]) if k >= 5 else 1.0
            out.append((xs[k + 1], ratio, np.std(last4) / np.mean(last4), k + 1, b, jump, mean_p(windows, xs[k + 1])))
    return out


def after_walk(tracer, streams, work):
    rows = [r for r in json.load(open(os.path.join(streams, "rows.json"))) if not r["twin"]]
    traces = {}
    for d in sorted({r["dataset"] for r in rows}):
        traces.update(run(tracer, work, [r["file"] for r in rows if r["dataset"] == d], d, []))
    walk, runon, first, later, seqs = [], [], [], [], []
    for r in rows:
        t, last = traces[r["file"]], r["last"]
        seen = set()
        seqs.append([])
        for x, ratio, spread, k, b, jump, p in features(t["steps"], t["rhythm"], t["windows"]):
            if b[0] > last + MARGIN:
                continue  # a new bout after the walk
            if x <= last:
                walk.append((ratio, spread, jump, '', p))
            elif x > last + MARGIN:
                runon.append((ratio, spread, jump, '', p))
                seqs[-1].append((ratio, spread, jump, '', p))
                (later if id(b) in seen else first).append((ratio, spread, jump, '', p))
                seen.add(id(b))
    return walk, runon, first, seqs


def gait(tracer, shared, work):
    es = [e for e in csv.DictReader(open(os.path.join(shared, "data", "activities", "manifest.csv")))
          if e["activity"] in GAIT and e["file"].split("/")[0] in ("wisdm_watch", "dsads_arm")]
    traces = {}
    for d in ("wisdm_watch", "dsads_arm"):
        fs = [os.path.join(shared, "data", "activities", e["file"]) for e in es if e["file"].startswith(d)]
        traces.update(run(tracer, work, fs, d, []))
    groups = {}
    for e in es:
        path = os.path.join(shared, "data", "activities", e["file"])
        t = traces[path]
        t0 = t0_of(path)
        name = e["file"].split("/")[0] + " " + e["activity"]
        for x, ratio, spread, k, b, jump, p in features(t["steps"], t["rhythm"], t["windows"]):
            key = name
            if e["file"].endswith("1609_walking.csv") and 81 <= x - t0 <= 122:
                key = "WISDM 1609_walking 81-122 s"
            groups.setdefault(key, []).append((ratio, spread, jump, e["file"], p))
    return groups


def t0_of(path):
    with open(path) as f:
        next(f)
        return float(next(f).split(",")[0]) / 1000


def describe(name, xs):
    r = np.array([x[0] for x in xs])
    s = np.array([x[1] for x in xs])
    j = np.array([x[2] for x in xs])
    q = lambda a, p: np.percentile(a, p)  # noqa: E731
    return (f"| {name} | {len(xs)} | {q(r, 5):.2f} / {q(r, 50):.2f} / {q(r, 95):.2f} | "
            f"{100 * np.mean((r > 1.3) | (r < 0.77)):.1f} % | {q(s, 50):.3f} / {q(s, 95):.3f} | "
            f"{100 * np.mean(s > 0.15):.1f} % | {q(j, 5):.2f} / {q(j, 95):.2f} | "
            f"{100 * np.mean((j > 1.25) | (j < 0.8)):.1f} % |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tracer", required=True)
    ap.add_argument("--streams", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        walk, runon, first, seqs = after_walk(args.tracer, args.streams, tmp)
        groups = gait(args.tracer, args.shared, tmp)
    print("| steps | n | ratio p5 / p50 / p95 | ratio > 1.3 or < 0.77 | spread p50 / p95 | spread > 0.15 "
          "| jump p5 / p95 | jump > 1.25 or < 0.8 |")
    print("|---|---|---|---|---|---|---|---|")
    print(describe("after-walk streams: the walk's own steps (its bout, before its end)", walk))
    print(describe("after-walk streams: run-on steps (the walk's bout, after its end + 0.5 s)", runon))
    print(describe("after-walk streams: the first run-on step of each stream", first))
    for k in sorted(groups):
        print(describe(k, groups[k]))
    sweep(walk, first, seqs, groups)


RULES = [(f"ratio > {a} or < 1/{a}", lambda x, a=a: x[0] > a or x[0] < 1 / a) for a in (1.3, 1.5, 2.0)] + [
    (f"jump > {a} or < 1/{a}", lambda x, a=a: x[2] > a or x[2] < 1 / a) for a in (1.25, 1.4, 1.6)] + [
    (f"spread > {a}", lambda x, a=a: x[1] > a) for a in (0.2, 0.3, 0.4)] + [
    (f"ratio > 2 or < 1/2, windows' mean P < {b}", lambda x, b=b: (x[0] > 2 or x[0] < 0.5) and x[4] < b)
    for b in (0.5, 0.3)] + [
    (f"jump > 1.4 or < 1/1.4, windows' mean P < {b}", lambda x, b=b: (x[2] > 1.4 or x[2] < 1 / 1.4) and x[4] < b)
    for b in (0.5, 0.3)] + [
    (f"spread > 0.3, windows' mean P < {b}", lambda x, b=b: x[1] > 0.3 and x[4] < b) for b in (0.5, 0.3)]


def sweep(walk, first, seqs, groups):
    """A rule ending the bout at its first flagged step: the run-on false steps it removes (every run-on step from
    the first flagged one on) against the share of real walks' steps it flags (each flag ends a walk's bout)."""
    total = sum(len(q) for q in seqs)
    names = ["WISDM 1609_walking 81-122 s", "wisdm_watch walking", "dsads_arm walking", "dsads_arm stepper"]
    print("\n| rule (ends the bout at the first flagged step) | run-on false steps removed (of " + str(total) + ") | "
          "flagged: first run-on step | flagged: walk's own steps before its end | " + " | ".join(names)
          + " | WISDM walking files with a flag (of 36) |")
    print("|---|---|---|---|" + "---|" * len(names) + "---|")
    for name, flag in RULES:
        removed = 0
        for q in seqs:
            i = next((i for i, x in enumerate(q) if flag(x)), None)
            removed += 0 if i is None else len(q) - i
        rate = lambda xs: f"{100 * np.mean([flag(x) for x in xs]):.1f} %"  # noqa: E731
        files = {x[3] for g in ("wisdm_watch walking", "WISDM 1609_walking 81-122 s") for x in groups[g] if flag(x)}
        print(f"| {name} | {removed} ({100 * removed / total:.0f} %) | {rate(first)} | {rate(walk)} | "
              + " | ".join(rate(groups[n]) for n in names) + f" | {len(files)} |")


if __name__ == "__main__":
    main()
