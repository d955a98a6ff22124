#!/usr/bin/env python3
"""Physical features of the windows that let WISDM clapping and folding clothes become walking, beside gait's, out of
dataset (issue #47, hand39).

Reads the traces `bench/hand37_trace.py --dataset all --activities all --json T.json` writes (every data set counted
by the model trained without it; per window the probability to enter on after every gate, the gates' factors and the
detector's features), and measures from each recording's raw axes, over each window that could make a run walking
(`p_enter` >= 0.6, or with `--counted` each window over a counted step), candidate features the detector does not
compute. The axes are made into the recognizer's ticks as WalkingRecognizer.swift does (a mean per 80 ms tick;
gravity two low-passes at 0.5 Hz; the moving part a one-pole high-pass at 0.6 Hz then a one-pole low-pass at 3.5 Hz;
the moving part split along gravity, `v`, and across it, `h`; `p` is `h` on its principal direction):

- `kurt_v`, `skew_v`: kurtosis and skewness of `v` (a heel strike's sharp upward push);
- `vh_corr0`, `vh_lagcorr`: |correlation| of `v` with `p` at lag 0 and the largest over ±0.48 s (one line of motion);
- `v_p2`: the largest |correlation| of `v` with `p`² over ±0.24 s (the body's push twice per arm swing);
- `period_v`, `period_h`, `ratio_hv`: the first autocorrelation peak (ticks) of `v`, of `p`, their ratio (an arm
  swings once a stride, the body pushes once a step: 2; a clapping hand moves along one line: 1);
- `ac_v_peak`: the autocorrelation of `v` at its own period (step-to-step regularity along gravity);
- `h_line`: the share of the motion across gravity on its principal direction;
- and from the trace: `stride_turn`, `vector_stride`, `along_own_share`, `arm_swing`.

Then, per feature, the share of each group's windows beyond the bar that keeps 95 % of the windows of every gait
group on the walking side (the 5th or 95th percentile of the gait group that reaches furthest), and the turning wrist
that does not repeat (`stride_turn` > T and `vector_stride` < V).

    python3 bench/hand37_trace.py --dataset all --activities all --people 3 --json /tmp/T.json > /dev/null
    python3 bench/hand39_features.py /tmp/T.json [--counted] > bench/hand39_features_result.txt
"""
import argparse, collections, json, os, sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from hand37_screen import group  # noqa: E402

SHARED = os.path.join(ROOT, "..", "shared", "data")
FOLDER = {"wisdm_watch": "activities", "dsads_arm": "activities", "tug_wrist": "activities",
          "bangle_wrist": "steps", "oxford_opt": "steps", "wrist_watch": "steps"}
TICK = 0.08
GRAVITY_A, SLOW_A, BAND_A = (1 - np.exp(-TICK * 2 * np.pi * f) for f in (0.5, 0.6, 3.5))
HANDS = ("clapping", "folding-clothes")
GAIT = ("bangle_wrist", "oxford_opt", "tug_wrist", "wisdm walking", "wisdm jogging", "wisdm stairs", "dsads walking",
        "dsads running", "dsads stairs", "dsads stepper")
TRACED = ["stride_turn", "vector_stride", "along_own_share", "arm_swing"]


def ticks(path):
    """Tick times, the moving part along gravity (`v`) and across it (`h`, 3-D), as the recognizer splits them."""
    a = np.loadtxt(path, delimiter=",", skiprows=1)
    if a.ndim != 2 or a.shape[1] < 4:
        return None
    t = a[:, 0] / 1000
    k = np.floor((t - t[0]) / TICK).astype(int)
    n = k[-1] + 1
    count = np.bincount(k, minlength=n)
    mean = np.stack([np.bincount(k, a[:, c], minlength=n) for c in (1, 2, 3)], 1) / np.maximum(count, 1)[:, None]
    for i in range(1, n):
        if count[i] == 0:
            mean[i] = mean[i - 1]
    g1, g2, slow, band = mean[0].copy(), mean[0].copy(), mean[0].copy(), np.zeros(3)
    gravity, moving = np.zeros_like(mean), np.zeros_like(mean)
    for i in range(n):
        g1 += (mean[i] - g1) * GRAVITY_A
        g2 += (g1 - g2) * GRAVITY_A
        slow += (mean[i] - slow) * SLOW_A
        band += (mean[i] - slow - band) * BAND_A
        gravity[i], moving[i] = g2 / np.linalg.norm(g2), band
    v = (moving * gravity).sum(1)
    return t[0] + (np.arange(n) + 1) * TICK, v, moving - v[:, None] * gravity


def autocorrelation(x, lag):
    x = x - x.mean()
    den = (x * x).sum()
    return (x[:-lag] * x[lag:]).sum() / den if den > 0 else 0.0


def lagged(a, b, lags):
    best = 0.0
    for lag in lags:
        x, y = (a[lag:], b[:len(b) - lag]) if lag >= 0 else (a[:lag], b[-lag:])
        if x.std() > 0 and y.std() > 0:
            best = max(best, abs(np.corrcoef(x, y)[0, 1]))
    return best


def first_peak(r):
    for lag in range(3, len(r) - 1):
        if r[lag - 1] > r[lag - 2] and r[lag - 1] >= r[lag] and r[lag - 1] > 0.1:
            return lag
    return 0


def features(v, h):
    vv, hh = v - v.mean(), h - h.mean(0)
    s2 = (vv ** 2).mean()
    out = dict(skew_v=(vv ** 3).mean() / s2 ** 1.5 if s2 > 0 else 0.0, kurt_v=(vv ** 4).mean() / s2 ** 2 if s2 > 0 else 0.0)
    w, u = np.linalg.eigh(hh.T @ hh)
    p = hh @ u[:, -1]
    out["vh_corr0"] = lagged(vv, p, [0])
    out["vh_lagcorr"] = lagged(vv, p, range(-6, 7))
    out["v_p2"] = lagged(vv, p * p - (p * p).mean(), range(-3, 4))
    rv = [autocorrelation(vv, lag) for lag in range(1, 30)]
    rp = [autocorrelation(p, lag) for lag in range(1, 30)]
    out["period_v"], out["period_h"] = first_peak(rv), first_peak(rp)
    out["ratio_hv"] = out["period_h"] / out["period_v"] if out["period_v"] else 0.0
    out["ac_v_peak"] = rv[out["period_v"] - 1] if out["period_v"] else 0.0
    out["h_line"] = w[-1] / max(w.sum(), 1e-12)
    return out


def collect(traces, counted):
    names = traces["names"]
    ix = {k: i for i, k in enumerate(names)}
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in traces["files"]:
        tr = f["trace"]
        if not tr["windows"] or f["dataset"] == "wrist_watch":
            continue
        split = ticks(os.path.join(SHARED, FOLDER[f["dataset"]], f["row"]["file"]))
        if split is None:
            continue
        tt, v, h = split
        steps = [s[0] for s, role in zip(tr["steps"], tr["roles"]) if role in ("stay", "entering", "held")]
        for w in tr["windows"]:
            if counted and not any(w[0] <= s < w[1] for s in steps):
                continue
            if not counted and w[ix["p_enter"]] < 0.6:
                continue
            inside = (tt > w[0]) & (tt <= w[1] + 1e-6)
            if inside.sum() < 100:
                continue
            row = features(v[inside], h[inside])
            row.update({k: w[ix[k]] for k in TRACED})
            for k, x in row.items():
                groups[group(f)][k].append(x)
    return groups


def report(groups):
    keys = list(next(iter(groups.values())).keys())
    print("## Medians (10th, 90th percentile) per group\n")
    print("group n " + " ".join(keys))
    for g in sorted(groups):
        v = groups[g]
        print(g.replace(" ", "_"), len(v["kurt_v"]), " ".join(
            f"{np.median(v[k]):.2f}({np.percentile(v[k], 10):.2f},{np.percentile(v[k], 90):.2f})" for k in keys))
    gait = [g for g in groups if g in GAIT]
    print("\n## Each feature at the bar that keeps 95 % of every gait group's windows: share of windows beyond it\n")
    print("feature side bar (set by) " + " ".join(g.replace(" ", "_") for g in sorted(groups)))
    for k in keys:
        hand = np.concatenate([groups[g][k] for g in HANDS if g in groups])
        gait_median = np.median(np.concatenate([groups[g][k] for g in gait]))
        high = np.median(hand) > gait_median  # the side the hands lie on
        bars = {g: np.percentile(groups[g][k], 95 if high else 5) for g in gait}
        by = max(bars, key=bars.get) if high else min(bars, key=bars.get)
        bar = bars[by]
        beyond = {g: np.mean(np.array(groups[g][k]) > bar if high else np.array(groups[g][k]) < bar) for g in groups}
        print(f"{k} {'>' if high else '<'} {bar:.2f} ({by.replace(' ', '_')}) "
              + " ".join(f"{beyond[g]:.2f}" for g in sorted(groups)))
    print("\n## A turning wrist that does not repeat: stride_turn > T and vector_stride < V, share of windows\n")
    print("T V " + " ".join(g.replace(" ", "_") for g in sorted(groups)))
    for t, vbar in ((0.05, 0.15), (0.06, 0.175), (0.08, 0.2), (0.1, 0.2)):
        share = {g: np.mean((np.array(groups[g]["stride_turn"]) > t) & (np.array(groups[g]["vector_stride"]) < vbar)
                            & (np.array(groups[g]["vector_stride"]) > -8)) for g in groups}
        print(f"{t} {vbar} " + " ".join(f"{share[g]:.2f}" for g in sorted(groups)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", help="the JSON hand37_trace.py --json wrote")
    ap.add_argument("--counted", action="store_true", help="windows over counted steps instead of p_enter >= 0.6")
    args = ap.parse_args()
    report(collect(json.load(open(args.traces)), args.counted))


if __name__ == "__main__":
    main()
