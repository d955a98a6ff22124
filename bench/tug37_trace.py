#!/usr/bin/env python3
"""Why timed-up-and-go runs count 0 out of dataset (issue #47, session 37, sw37).

Every TUG run of ../shared (`tug_wrist/`, the raw file as `bout_eval.py` counts it, no padding) is traced with
`bench/bout_trace.swift` (built here beside Sources/StepDetection, as `bout_misses.py` builds it) twice: with the model
trained without the TUG set (`bench/leave_out/tug_wrist.json`) and with the shipped model (in sample). Each run that
counts 0 is classed with `bout_misses.py`'s classes (`classify`, `short_bout_lack`) and printed with its rhythm bouts
and windows. Then:

- which tree features decide the runs the in-sample model counts and the held-out one does not: the trees evaluated
  here on `eval --features` windows (checked against the binary's own probability), each feature in turn set to the
  median of WISDM walking's windows;
- the refused rhythm bouts of 7+ steps (no step counted) of the TUG runs against those of WISDM's and DSADS's
  non-walking files, each counted out of dataset: per bout its own share along gravity (`bout_trace`'s, over the
  bout's seconds), the spread of its intervals without the one longest (the turn), its best window's trees P and share,
  and the median window features over it;
- a candidate physical short-bout credit emulated on those bouts (a window over the bout with |a| std, direction
  steadiness and share bars, the bout's own share, the short-bout spread and cadence), swept.

    python3 bench/tug37_trace.py --binary .build/release/steptweet > bench/tug37_out.txt
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bout_misses as bm  # noqa: E402

TREE_NAMES = ["log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis", "crest", "crossings_hz",
              "log_impulse", "peak_rate", "stride_cv"]
GAIT = ("walking", "jogging", "stairs", "running", "stepper", "timed-up-and-go")


def trace(tracer, work, act_dir, params, files, tag):
    path = os.path.join(work, f"params_{tag}.json")
    json.dump(params, open(path, "w"))
    out = []
    for i in range(0, len(files), 200):
        run = subprocess.run([tracer, path] + files[i:i + 200], cwd=act_dir, check=True, capture_output=True,
                             text=True)
        out += [json.loads(line) for line in run.stdout.splitlines()]
    return {t["file"]: t for t in out}


def probability(model, X):
    """The trees' P(walking), as WalkingTrees.probability computes it (a NaN feature goes right)."""
    d, F, T, L = model["depth"], np.array(model["features"]), np.array(model["thresholds"]), np.array(model["leaves"])
    splits, leaves = 2 ** d - 1, 2 ** d
    z = np.full(len(X), model["base"])
    for t in range(len(L) // leaves):
        node = np.zeros(len(X), dtype=int)
        for _ in range(d):
            k = t * splits + node
            node = 2 * node + np.where(X[np.arange(len(X)), F[k]] < T[k], 1, 2)
        z += L[t * leaves + node - splits]
    return 1 / (1 + np.exp(-z))


def refused_bouts(traces, activity, windows):
    """Every credited rhythm bout of 7+ steps none of whose steps counted, with what it measured."""
    out = []
    for f, t in traces.items():
        steps, refused = np.array(t["steps"]), np.array(t["refused"])
        for a, b, n, credited, own in t["rhythm"]:
            inside = lambda x: x[(x >= a - 0.01) & (x <= b + 0.01)]  # noqa: E731
            if not credited or n < 7 or len(inside(steps)):
                continue
            rf = inside(refused)
            iv = np.diff(rf) if len(rf) > 2 else np.array([1.0])
            k = int(iv.argmax())
            judged = np.delete(iv, k) if len(iv) >= 3 else iv
            ws = [w for w in t["windows"] if w[0] <= b and a < w[1] and w[7]]
            fw = [w for w in windows.get(f, []) if float(w["start_s"]) <= b and a < float(w["end_s"])
                  and w["has_axes"] == "1"]
            bout = dict(file=f, act=activity[f], n=len(rf), own=own, cv=judged.std() / judged.mean(),
                        mean=judged.mean(), trees=max([w[3] for w in ws], default=0),
                        share=max([w[8] for w in ws], default=0), fw=fw)
            for key in ("log_std", "gravity_turn", "direction_steadiness", "along_step", "arm_swing", "stride_turn"):
                v = [float(w[key]) for w in fw]
                bout[key] = float(np.median(v)) if v else float("nan")
            out.append(bout)
    return out


def credited(bout, vigour, steadiness, share, own, cv=0.3):
    """The emulated physical credit: a window over the bout with |a| std >= e^vigour m/s^2, direction steadiness and
    share along gravity at their bars; the bout's own share; the short-bout judgement's cadence, spread and length."""
    if not (bout["own"] >= own and bout["cv"] <= cv and bout["n"] <= 24 and 0.4 <= bout["mean"] <= 1.0):
        return False
    return any(float(w["log_std"]) >= vigour and float(w["direction_steadiness"]) >= steadiness
               and float(w["along_share"]) >= share for w in bout["fw"])


def zero_runs(tug, tug_in):
    print("## TUG runs counted 0 out of dataset\n")
    print("Out: the model trained without TUG; in: the shipped model. rhythm: (start s, end s, steps, credited, own "
          "share along gravity). Windows (with axes): best P after the gates, best trees P, median share along "
          "gravity, own share, arm swing.\n")
    print("| run | out: class | out: short bout lacks | in: counted | in: class | strong peaks | rhythm bouts | "
          "windows | out P / trees | in P / trees | share | own share | arm swing |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    classes, lacks, decided = collections.Counter(), collections.Counter(), collections.Counter()
    for f in sorted(tug):
        t, ti = tug[f], tug_in[f]
        if t["steps"]:
            continue
        _, _, reason, lack = bm.classify(t, -1e18, 1e18, [])
        n_in, _, reason_in, _ = bm.classify(ti, -1e18, 1e18, [])
        classes[reason] += 1
        lacks[lack or "-"] += 1
        decided["counted in sample" if n_in else "0 in sample too"] += 1
        ws, wi = np.array(t["windows"] or [[0] * 11]), np.array(ti["windows"] or [[0] * 11])
        rhythm = ", ".join(f"({r[0]:.1f}, {r[1]:.1f}, {int(r[2])}, {int(r[3])}, {r[4]:.2f})" for r in t["rhythm"])
        print(f"| {os.path.basename(f)[:-4]} | {reason} | {lack or '-'} | {n_in} | {reason_in or 'counted'} | "
              f"{sum(p[1] > 0 for p in t['strong'])} | {rhythm} | {len(t['windows'])} | "
              f"{ws[:, 2].max():.2f} / {ws[:, 3].max():.2f} | {wi[:, 2].max():.2f} / {wi[:, 3].max():.2f} | "
              f"{np.median(ws[:, 8]):.2f} | {np.median(ws[:, 9]):.2f} | {np.median(ws[:, 10]):.2f} |")
    print(f"\n- {sum(classes.values())} runs at 0: " + ", ".join(f"{k} {v}" for k, v in classes.most_common()))
    print("- what the short-bout judgement lacked (first unmet, in its order): "
          + ", ".join(f"{k} {v}" for k, v in lacks.most_common()))
    print("- " + ", ".join(f"{k} {v}" for k, v in decided.most_common()))
    zeros_in = [f for f in tug_in if not tug_in[f]["steps"]]
    print(f"- in sample {len(zeros_in)} at 0; runs at 0 in sample that count out of dataset: "
          f"{sum(bool(tug[f]['steps']) for f in zeros_in)}\n")


def tree_features(windows, activity, only_out):
    model_out = json.load(open(os.path.join(ROOT, "bench", "leave_out", "tug_wrist.json")))["recognizer"]["model"]
    model_in = json.load(open(os.path.join(ROOT, "bench", "walking_model.json")))
    model_in = model_in.get("model", model_in)
    rows = lambda fs: [w for f in fs for w in windows.get(f, [])]  # noqa: E731
    X = lambda rs: np.array([[float(w[c]) for c in TREE_NAMES] for w in rs])  # noqa: E731
    tw = rows(only_out)
    walk = X(rows([f for f in windows if f.startswith("wisdm") and activity[f] == "walking"]))
    fold = X(rows([f for f in windows if activity[f] == "folding-clothes"]))
    Xt = X(tw)
    po, pi = probability(model_out, Xt), probability(model_in, Xt)
    diff = np.abs(pi - np.array([float(w["probability"]) for w in tw]))
    print("## What the trees decide on: runs counted in sample and not out of dataset\n")
    print(f"{len(only_out)} runs, {len(tw)} windows: trees P median {np.median(po):.2f} held out, {np.median(pi):.2f} "
          f"in sample (the in-sample P here equals the binary's window probability within 0.001 in "
          f"{np.mean(diff < 1e-3):.0%} of them; the others are windows a gate lowered). Each feature set "
          "to WISDM walking's median, the median change of P:\n")
    print("| feature | these windows | WISDM walking | folding clothes | P held out | P in sample |")
    print("|---|---|---|---|---|---|")
    for i, n in enumerate(TREE_NAMES):
        X2 = Xt.copy()
        X2[:, i] = np.median(walk[:, i])
        print(f"| {n} | {np.median(Xt[:, i]):.2f} | {np.median(walk[:, i]):.2f} | {np.nanmedian(fold[:, i]):.2f} | "
              f"{np.median(probability(model_out, X2) - po):+.3f} | {np.median(probability(model_in, X2) - pi):+.3f} |")
    print()


def bout_table(bouts):
    print("## Refused rhythm bouts of 7+ steps, out of dataset: TUG against non-walking\n")
    keys = ("own", "share", "cv", "trees", "log_std", "gravity_turn", "direction_steadiness", "along_step",
            "arm_swing")
    print("Medians per bout (own: the bout's own share along gravity; share, trees: its best window's; cv: interval "
          "spread over mean without the longest interval; the rest: median window features over it).\n")
    print("| activity | bouts | steps | " + " | ".join(keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    by = collections.defaultdict(list)
    for b in bouts:
        by[b["act"]].append(b)
    for act, bs in sorted(by.items(), key=lambda x: -len(x[1])):
        if len(bs) < 5:
            continue
        print(f"| {act} | {len(bs)} | {sum(b['n'] for b in bs)} | "
              + " | ".join(f"{np.nanmedian([b[k] for b in bs]):.2f}" for k in keys) + " |")
    print()


def emulated(bouts):
    print("## A physical short-bout credit, emulated on those bouts\n")
    print("Steps of refused bouts it would take (TUG; every non-walking activity of WISDM and DSADS out of dataset, "
          "DSADS elevator moving around apart: people walk in it). Bars: window log |a| std (ln m/s^2), direction "
          "steadiness, window share along gravity; the bout's own share; spread <= 0.3.\n")
    print("| log std | steadiness | share | own share | TUG bouts | TUG steps | non-walking steps | which |")
    print("|---|---|---|---|---|---|---|---|")
    base = (0.3, 0.85, 0.0, 0.25)
    grid = [base] + [base[:i] + (v,) + base[i + 1:] for i, vs in enumerate(
        [(0.1, 0.2, 0.4), (0.8, 0.9), (0.25, 0.3), (0.2, 0.3)]) for v in vs]
    for bars in grid:
        taken = [b for b in bouts if credited(b, *bars)]
        tug = [b for b in taken if b["act"] == "timed-up-and-go"]
        other = collections.Counter()
        for b in taken:
            if b["act"] not in ("timed-up-and-go", "elevator-moving-around"):
                other[b["act"]] += b["n"]
        print(f"| {bars[0]} | {bars[1]} | {bars[2]} | {bars[3]} | {len(tug)} | {sum(b['n'] for b in tug)} | "
              f"{sum(other.values())} | {', '.join(f'{k} {v}' for k, v in other.most_common())} |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--keep", help="keep the tracer and features here")
    args = ap.parse_args()
    act_dir = os.path.join(args.shared, "data", "activities")
    manifest = list(csv.DictReader(open(os.path.join(act_dir, "manifest.csv"))))
    activity = {r["file"]: r["activity"] for r in manifest}
    leave_out = lambda d: json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{d}.json")))  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        tracer = bm.build_tracer(work)
        tug_files = [r["file"] for r in manifest if r["file"].startswith("tug_wrist/")]
        tug = trace(tracer, work, act_dir, leave_out("tug_wrist"), tug_files, "tug")
        tug_in = trace(tracer, work, act_dir, {}, tug_files, "tug_in")
        rest = {}
        for d in ("wisdm_watch", "dsads_arm"):
            files = [r["file"] for r in manifest if r["file"].startswith(d + "/") and r["activity"] not in GAIT]
            rest.update(trace(tracer, work, act_dir, leave_out(d), files, d))
        features = os.path.join(work, "features")
        subprocess.run([args.binary, "eval", "--features", features, "manifest.csv"], cwd=act_dir, check=True,
                       capture_output=True)
        windows = collections.defaultdict(list)
        for w in csv.DictReader(open(os.path.join(features, "windows.csv"))):
            windows[w["file"]].append(w)
        print(f"# TUG runs out of dataset (sw37); binary {args.binary}\n")
        zero_runs(tug, tug_in)
        only_out = [f for f in tug if not tug[f]["steps"] and tug_in[f]["steps"]]
        tree_features(windows, activity, only_out)
        bouts = refused_bouts(tug, activity, windows) + refused_bouts(rest, activity, windows)
        bout_table(bouts)
        emulated(bouts)


if __name__ == "__main__":
    main()
