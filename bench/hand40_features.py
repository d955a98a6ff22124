#!/usr/bin/env python3
"""Peakiness and the direction of the broadband jolt, per window, on hands and on stepping, clean and on the cheap
sensor copies (issue #47, hand40).

Reads the traces `bench/hand37_trace.py --dataset all --activities all --json T.json` writes (each data set counted
by the model trained without it) and measures, over each window that could make a run walking (`p_enter` >= 0.6) and
over each window holding a counted step of a stepping recording without a reference count (DSADS elevator,
basketball, stepper: `--counted` groups), from the recording's raw axes:

- `kurt_v`: kurtosis of the moving part along gravity in the recognizer's 12.5 Hz ticks (hand39's lead: a clapping
  hand strikes along one line; hand39_features.py's split);
- `kurt_raw`: kurtosis of the raw samples' acceleration along gravity after a 0.6 Hz high-pass (the jolt unsmoothed);
- `hf_along`: the share of the energy above `--hf-hz` (3.5 Hz; a raw sample minus a two-pole low-pass at that
  frequency) that lies along gravity: a heel strike reaches the wrist as a broadband jolt along gravity at each step,
  a hand's strokes put their high-frequency energy across gravity;
- `hf_ratio`: the energy above `--hf-hz` over the energy of the moving part (how broadband the window is);
- and the trace's `along_own_share`, `arm_swing` (the hands gate's inputs).

Each recording is measured as recorded and as each cheap copy (`cheap_sensor_eval.py`'s `sensor_copy`: cheap32 =
32 Hz, ±1.5 g, 6 bits; cheap12 = 12.5 Hz, ±2 g, 8 bits) over the same windows. Then, per feature, the share of each
group's windows beyond the bar that keeps 95 % (and 99 %) of every gait group's windows, and per hand run (the steps
that entered at `enter` together) whether a gate that refused the flagged windows would leave it any step whose windows
still average `enter` (a run stopped).

    python3 bench/hand37_trace.py --dataset all --activities all --people 3 --json /tmp/T.json > /dev/null
    python3 bench/hand40_features.py /tmp/T.json > bench/hand40_features_result.txt
"""
import argparse, collections, json, os, sys, zlib

import numpy as np
from scipy.signal import lfilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from hand39_features import FOLDER, SHARED, ticks  # noqa: E402
from cheap_sensor_eval import sensor_copy  # noqa: E402

HANDS = ("clapping", "folding-clothes", "brushing-teeth")
GAIT = ("bangle_wrist", "oxford_opt", "tug_wrist", "wisdm walking", "wisdm jogging", "wisdm stairs", "dsads walking",
        "dsads running", "dsads stairs")
UNSCORED = ("dsads elevator", "dsads basketball", "dsads stepper")  # real steps, no reference count
FEATURES = ("kurt_v", "kurt_raw", "hf_along", "hf_ratio", "along_own_share", "arm_swing")
HIGH = {"kurt_v": True, "kurt_raw": True, "hf_along": False, "hf_ratio": False, "along_own_share": False,
        "arm_swing": False}  # the side a hand's window lies on


def group(f):
    r, ds = f["row"], f["dataset"]
    a = r.get("activity") or "walk"
    if ds == "wisdm_watch":
        return a if a in HANDS else "wisdm " + a
    if ds == "dsads_arm":
        return "dsads " + a.split("-")[0]
    return ds


def lowpass2(x, t, hz):
    """A two-pole low-pass at `hz` (two one-poles at the recording's median time step, as the detector's filter)."""
    a = 1 - np.exp(-float(np.median(np.diff(t))) * 2 * np.pi * hz)
    once = lambda y: lfilter([a], [1, a - 1], y, axis=0, zi=(1 - a) * y[:1])[0]
    return once(once(x))


def raw_split(data, hf_hz):
    """Per raw sample: the unit gravity (a 0.3 Hz low-pass), the moving part (minus a 0.6 Hz low-pass) and the part
    above `hf_hz`."""
    t, x = data[:, 0] / 1000, data[:, 1:4]
    g = lowpass2(x, t, 0.3)
    g /= np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1e-9)
    return t, g, x - lowpass2(x, t, 0.6), x - lowpass2(x, t, hf_hz)


def kurtosis(x):
    x = x - x.mean()
    s2 = (x * x).mean()
    return float((x ** 4).mean() / s2 ** 2) if s2 > 0 else 0.0


def window_features(tick_split, raw, w0, w1):
    tt, v, _ = tick_split
    inside = (tt > w0) & (tt <= w1 + 1e-6)
    if inside.sum() < 100:
        return None
    t, g, moving, hf = raw
    m = (t > w0) & (t <= w1)
    if m.sum() < 100:
        return None
    along = (moving[m] * g[m]).sum(1)
    hf_along = (hf[m] * g[m]).sum(1)
    hf_energy = (hf[m] ** 2).sum()
    return dict(kurt_v=kurtosis(v[inside]), kurt_raw=kurtosis(along),
                hf_along=float((hf_along ** 2).sum() / hf_energy) if hf_energy > 0 else 0.0,
                hf_ratio=float(hf_energy / max((moving[m] ** 2).sum(), 1e-12)))


def load(path):
    with open(path) as fh:
        fh.readline()
        return np.loadtxt(fh, delimiter=",", ndmin=2)


def write_csv(path, data):
    with open(path, "w") as fh:
        fh.write("t,x,y,z\n")
        np.savetxt(fh, data[:, :4], delimiter=",", fmt=["%.3f", "%.6f", "%.6f", "%.6f"])


def collect(traces, profiles, hf_hz, work):
    ix = {k: i for i, k in enumerate(traces["names"])}
    rows = []  # (profile, group, file, window index, features)
    for f in traces["files"]:
        tr, g = f["trace"], group(f)
        if not tr["windows"] or f["dataset"] == "wrist_watch":
            continue
        if g not in GAIT + UNSCORED + HANDS:
            continue
        path = os.path.join(SHARED, FOLDER[f["dataset"]], f["row"]["file"])
        data = load(path)
        if data.shape[1] < 4:
            continue
        steps = [s[0] for s, role in zip(tr["steps"], tr["roles"]) if role in ("stay", "entering", "held")]
        chosen = [j for j, w in enumerate(tr["windows"]) if w[ix["p_enter"]] >= 0.6
                  or (g in UNSCORED and any(w[0] <= s < w[1] for s in steps))]
        if not chosen:
            continue
        for p in ["clean"] + profiles:
            copy = data
            if p != "clean":
                rng = np.random.default_rng([zlib.crc32(p.encode()), zlib.crc32(f["row"]["file"].encode())])
                copy, _ = sensor_copy(data, p, rng, 0.0)
            tmp = os.path.join(work, "copy.csv")
            write_csv(tmp, copy)
            tick_split, raw = ticks(tmp), raw_split(copy, hf_hz)
            for j in chosen:
                w = tr["windows"][j]
                row = window_features(tick_split, raw, w[0], w[1])
                if row is None:
                    continue
                row.update(along_own_share=w[ix["along_own_share"]], arm_swing=w[ix["arm_swing"]],
                           p_enter=w[ix["p_enter"]])
                rows.append((p, g, f["row"]["file"], j, row))
    return rows


def bars(rows, k, keep):
    gait = collections.defaultdict(list)
    for p, g, _, _, r in rows:
        if p == "clean" and g in GAIT:
            gait[g].append(r[k])
    q = keep if HIGH[k] else 100 - keep
    per = {g: np.percentile(v, q) for g, v in gait.items()}
    by = max(per, key=per.get) if HIGH[k] else min(per, key=per.get)
    return per[by], by


def flagged(r, k, bar):
    return r[k] > bar if HIGH[k] else r[k] < bar


def report(rows, profiles):
    groups = sorted({g for _, g, _, _, _ in rows}, key=lambda g: (g not in HANDS, g not in UNSCORED, g))
    print("## Median (10th, 90th percentile) per group and sensor copy\n")
    print("| group | copy | windows | " + " | ".join(FEATURES) + " |")
    print("|---|---|---:|" + "---|" * len(FEATURES))
    for g in groups:
        for p in ["clean"] + profiles:
            sel = [r for q, gg, _, _, r in rows if q == p and gg == g]
            if not sel:
                continue
            cells = [f"{np.median([r[k] for r in sel]):.2f} ({np.percentile([r[k] for r in sel], 10):.2f}, "
                     f"{np.percentile([r[k] for r in sel], 90):.2f})" for k in FEATURES]
            print(f"| {g} | {p} | {len(sel)} | " + " | ".join(cells) + " |")
    for keep in (95, 99):
        print(f"\n## Share of windows beyond the bar that keeps {keep} % of every clean gait group's windows\n")
        print("Bars are set on the clean recordings and applied unchanged to the copies (a gate has one bar).\n")
        print("| feature | bar (set by) | copy | " + " | ".join(groups) + " |")
        print("|---|---|---|" + "---:|" * len(groups))
        for k in FEATURES:
            bar, by = bars(rows, k, keep)
            for p in ["clean"] + profiles:
                cells = []
                for g in groups:
                    sel = [r for q, gg, _, _, r in rows if q == p and gg == g]
                    cells.append(f"{np.mean([flagged(r, k, bar) for r in sel]):.2f}" if sel else "-")
                print(f"| {k} | {'>' if HIGH[k] else '<'} {bar:.2f} ({by}) | {p} | " + " | ".join(cells) + " |")
    print("\n## Combined: kurtosis along gravity high AND the hands gate's own share low (clean bars at 95 %)\n")
    print("| kurt_v > | own share < | copy | " + " | ".join(groups) + " |")
    print("|---:|---:|---|" + "---:|" * len(groups))
    for kb in (4.0, 5.0, 6.0):
        for sb in (0.25, 0.3):
            for p in ["clean"] + profiles:
                cells = []
                for g in groups:
                    sel = [r for q, gg, _, _, r in rows if q == p and gg == g]
                    cells.append(f"{np.mean([r['kurt_v'] > kb and r['along_own_share'] < sb for r in sel]):.2f}"
                                 if sel else "-")
                print(f"| {kb} | {sb} | {p} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", help="the JSON hand37_trace.py --json wrote")
    ap.add_argument("--profiles", default="cheap32,cheap12", help="cheap copies measured too (comma-separated)")
    ap.add_argument("--hf-hz", type=float, default=3.5, help="the jolt band's lower edge (Hz)")
    ap.add_argument("--rows", help="also write every window's features here (JSON)")
    args = ap.parse_args()
    profiles = [p for p in args.profiles.split(",") if p]
    work = f"/tmp/hand40_features_{os.getpid()}"
    os.makedirs(work, exist_ok=True)
    try:
        rows = collect(json.load(open(args.traces)), profiles, args.hf_hz, work)
    finally:
        for name in os.listdir(work):
            os.remove(os.path.join(work, name))
        os.rmdir(work)
    if args.rows:
        json.dump(rows, open(args.rows, "w"))
    print(f"hf band from {args.hf_hz:g} Hz; windows with p_enter >= 0.6 (and every window over a counted step of "
          f"{', '.join(UNSCORED)})\n")
    report(rows, profiles)


if __name__ == "__main__":
    main()
