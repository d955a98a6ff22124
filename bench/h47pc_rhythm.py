#!/usr/bin/env python3
"""Does any property of |a| alone tell a typing or mouse burst from walking? (issue #47, h47pc)

With bagged trees (`scripts/train_walking.py --bag 5`) one burst of wrist_watch 12hz_pc-working4 (|a| only: no axis gate
judges it) counts 17 steps. This traces every recording of ../shared as |a| alone (`STEPTWEET_TRACE_MAGNITUDE=1`, what
`eval --magnitude-only` pushes; wrist_watch is |a| already), each data set with its model in --models (trained without
it), by bench/fold_trace.swift (windows, counted steps and the run each entered with; built as bench/fold_paths.py
builds it) and bench/bout_trace.swift (the peaks' swings; built as bench/bout_misses.py builds it), and prints:

1. For each run the hysteresis let become walking at `enter` with at least --min-strides strides among the steps it
   held (the undecided run and the entering step): how their strides (a step to the next but one: a short-long gait
   or one arm swing a stride stays regular) spread (`stride_cv`: std over mean; `stride_mad`: median absolute
   deviation over median, upper medians: as the stride gate measures it) and how their peaks' swings spread (`swing_spread`: std of log swing).
2. The windows whose trees reached `enter` (0.7) over a counted step: quantiles of the |a| features that might say
   "not a walk" (a burst repeats once but not again, is slow, rough or irregular).
Walking: counted walks (>= 100 true steps, or a walk by name) and uncounted gait (walking, running, stairs, TUG);
other: the rest. Each
figure is set beside the burst's own (the runs and windows of --burst).

    swift build -c release
    python3 bench/h47pc_rhythm.py --models /work/pc-bag5 > bench/h47pc_rhythm_result.md
"""
import argparse, csv, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import numpy as np  # noqa: E402
import bout_misses  # noqa: E402
import fold_paths  # noqa: E402
from train_walking import DATASETS, dataset_of, gait_of  # noqa: E402

WINDOW_FEATURES = ["r_two_strides", "crossings_hz", "peak_rate", "stride_cv", "log_std", "r1", "log_kurtosis"]


def kind_of(e):
    """walking: uncounted gait, a counted walk (>= 100 true steps) or a walk by name (the SensorWatch slow and 25 Hz
    walks have fewer steps)."""
    walk = gait_of(e) or (e["truth_steps"] and int(e["truth_steps"]) >= 100) or "walking" in e["file"]
    return "walking" if walk else "other"


def runs_entered(trace):
    """Per run entered at `enter`: the counted steps up to and including the entering step."""
    by_enter = {}
    for (t, enter), cause in zip(trace["steps"], trace["causes"]):
        if cause == "enter" and t <= enter + 1e-6:
            by_enter.setdefault(enter, []).append(t)
    return [sorted(ts) for _, ts in sorted(by_enter.items())]


def strides(ts):
    return np.array(ts[2:]) - np.array(ts[:-2])


def stride_spread(s):
    """As the stride gate measures it (`StepDetector.strideSpread`): median absolute deviation over median, upper
    medians."""
    if not len(s):
        return float("nan")
    m = np.sort(s)[len(s) // 2]
    return float(np.sort(abs(s - m))[len(s) // 2] / m)


def swing_spread(ts, peaks):
    """Std of the log swing of the run's steps that are peaks (filled steps have none)."""
    sw = [peaks[min(peaks, key=lambda a: abs(a - t))] for t in ts if peaks and min(abs(a - t) for a in peaks) < 0.02]
    return float(np.log(sw).std()) if len(sw) >= 4 else float("nan")


def run_tracer(tracer, params, paths):
    env = dict(os.environ, STEPTWEET_TRACE_MAGNITUDE="1")
    out = {}
    for i in range(0, len(paths), 100):
        run = subprocess.run([tracer, params] + paths[i:i + 100], check=True, capture_output=True, text=True, env=env)
        for line in run.stdout.splitlines():
            t = json.loads(line)
            out[t["file"]] = t
    return out


def trace_all(work, shared, models, stride_gate):
    fold, bout = fold_paths.build_tracer(work), bout_misses.build_tracer(os.path.join(work, "bout"))
    rows = []
    for name in ("steps", "activities"):
        manifest = os.path.join(shared, "data", name, "manifest.csv")
        rows += [dict(r, path=os.path.join(os.path.dirname(manifest), r["file"])) for r in csv.DictReader(open(manifest))]
    runs, windows = [], []
    names = {n: i for i, n in enumerate(fold_paths.NAMES)}
    for d in DATASETS:
        es = {e["path"]: e for e in rows if dataset_of(e) == d}
        params = os.path.join(work, f"{d}.json")
        model = json.load(open(os.path.join(models, f"{d}.json")))
        json.dump(dict(model, maxEntryStrideSpread=stride_gate), open(params, "w"))
        folds, bouts = run_tracer(fold, params, sorted(es)), run_tracer(bout, params, sorted(es))
        for path, t in folds.items():
            e = es[path]
            peaks = {a: s for a, s in bouts[path]["weak"]}
            peaks.update({a: s for a, s in bouts[path]["strong"]})
            for ts in runs_entered(t):
                s = strides(ts)
                runs.append(dict(file=e["file"], kind=kind_of(e), steps=len(ts), enter=ts[-1],
                                 stride_cv=float(s.std() / s.mean()) if len(s) else float("nan"),
                                 stride_mad=stride_spread(s),
                                 swing_spread=swing_spread(ts, peaks)))
            steps = np.array([s[0] for s in t["steps"]])
            for w in t["windows"]:
                if w[names["trees"]] >= 0.7 and ((steps >= w[0]) & (steps < w[1])).any():
                    windows.append(dict(file=e["file"], kind=kind_of(e), start=w[0],
                                        **{k: w[names[k]] for k in WINDOW_FEATURES}))
    return runs, windows


def quantiles(v):
    q = np.quantile(v, [0, 0.01, 0.05, 0.5, 0.95, 0.99, 1])
    return " / ".join(f"{x:.3f}" for x in q)


def report(runs, windows, burst, min_strides):
    print("## Runs becoming walking at `enter`, every recording as |a| alone\n")
    print(f"Runs with >= {min_strides} strides held at entry. Quantiles: least / 1 % / 5 % / median / 95 % / 99 % / largest.\n")
    print("| measure | walking runs | other runs | the burst | walking runs at or above the burst |")
    print("|---|---|---|---|---|")
    rs = [r for r in runs if r["steps"] - 2 >= min_strides]
    for key in ("stride_cv", "stride_mad", "swing_spread"):
        walk = np.array([r[key] for r in rs if r["kind"] == "walking" and not np.isnan(r[key])])
        other = np.array([r[key] for r in rs if r["kind"] == "other" and burst not in r["file"] and not np.isnan(r[key])])
        b = [r[key] for r in rs if burst in r["file"]]
        above = f"{sum(walk >= min(b))} of {len(walk)}" if b else ""
        print(f"| {key} | {quantiles(walk)} | {quantiles(other)} | {', '.join(f'{x:.3f}' for x in b)} | {above} |")
    print("\nThe walking runs spread most (stride_mad):\n")
    for r in sorted([r for r in rs if r["kind"] == "walking"], key=lambda r: -r["stride_mad"])[:6]:
        print(f"- {r['file']} entering at {r['enter']:.1f} s: {r['steps']} steps, stride_mad {r['stride_mad']:.3f}, "
              f"stride_cv {r['stride_cv']:.3f}, swing_spread {r['swing_spread']:.3f}")
    print("\n## Windows whose trees reached 0.7 over a counted step, every recording as |a| alone\n")
    walk = [w for w in windows if w["kind"] == "walking"]
    bw = [w for w in windows if burst in w["file"]]
    print(f"{len(walk)} walking windows; the burst's {len(bw)}. Quantiles as above.\n")
    print("| feature | walking windows | the burst's windows (least-largest) | walking windows beyond the burst's least (or largest) |")
    print("|---|---|---|---|")
    for k in WINDOW_FEATURES:
        v = np.array([w[k] for w in walk])
        b = np.array([w[k] for w in bw])
        beyond = f"{(v <= b.max()).sum()} under {b.max():.3f}, {(v >= b.min()).sum()} over {b.min():.3f}" if len(b) else ""
        print(f"| {k} | {quantiles(v)} | {b.min():.3f}-{b.max():.3f} | {beyond} |" if len(b) else f"| {k} | {quantiles(v)} | | |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--models", default=os.path.join(ROOT, "bench/leave_out"))
    ap.add_argument("--min-strides", type=int, default=4)
    ap.add_argument("--stride-gate", type=float, default=0,
                    help="maxEntryStrideSpread to trace with (default 0: off, the runs as they enter without the gate)")
    ap.add_argument("--burst", default="wrist_watch/12hz_pc-working4.csv")
    ap.add_argument("--json", help="also write every run and window measured here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        runs, windows = trace_all(work, args.shared, args.models, args.stride_gate)
    report(runs, windows, args.burst, args.min_strides)
    if args.json:
        json.dump(dict(runs=runs, windows=windows), open(args.json, "w"))


if __name__ == "__main__":
    main()
