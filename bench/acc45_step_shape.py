#!/usr/bin/env python3
"""acc45 (issue #47): does a step's shape tell the walk's rhythm bout running on into the hand's peaks (acc42: 56 % of
the false steps after a walk) from the steps of real walks?

Each recording is resampled as the walking recognizer does (WalkingRecognizer.swift): 12.5 Hz ticks (the mean vector
of each tick's samples), gravity a two-stage low-pass (`gravityAlpha`), the moving part a one-pole high-pass at 0.6 Hz
then a one-pole low-pass at 3.5 Hz (`motionSlowAlpha`, `motionBandAlpha`), split into its component along gravity and
the vector across it (x, y, z in the device's frame: a watch keeps its frame over a few steps); |a| (each tick's mean)
through the same band. A step's **shape** is that motion at 8 points from −0.28 s to +0.28 s around its time (a tick
apart, linearly interpolated): `3d` = along (8) + across x, y, z (24), `along` = along only, `mag` = |a| only (the one
there is without axes: Bangle.js magnitude files, wrist_watch). Scores of each step of a rhythm bout (counted and
refused steps, bout_trace.swift, each data set with the model trained without it) with at least `MIN_BEFORE` earlier
steps in the bout, each a cosine (1: the same waveform, 0: unrelated):

- `tmpl`: against an exponential mean of the bout's earlier steps' shapes (weight `ALPHA` for the newest);
- `prev` / `prev2`: against the step before / two before (the same foot and arm phase on a wrist);
- `phase`: against an exponential mean of the steps two, four, ... before (the same phase's template);
- `best`: the larger of `tmpl` and `phase` (a wrist's left and right steps may differ);
- `amp`: log2 of the step's energy over the exponential mean of the earlier steps' energies (amplitude continuity).

A step with three axes is scored on `3d` (and `along`), one without on `mag`. Groups: after-walk streams
(acc41_after_walk_splice.py `--keep` folder, not the twins): the walk's own steps (its bout, before the walk's last
reference step), the run-on steps (the walk's bout, after it + 0.5 s: acc42's class), the first run-on step of each
stream; real walks: WISDM walking (1609_walking's 81-122 s apart), stairs, jogging; DSADS walking, treadmill,
stepper, stairs, running; Bangle.js, Oxford and wrist_watch walks; TUG runs. Then rules that end the bout at its first
flagged step: the run-on steps removed against the real walks' steps flagged and lost (every later step of a bout
with a flag: the upper bound of a latched rule).

Variants by environment: `ACC45_LAGS` (default 0; the result used -0.08,-0.04,0,0.04,0.08: each step's shape taken
at the lag that best matches the template), `ACC45_SCALED` (> 0: the 8 points over ± that share of the bout's median
interval), `ACC45_ALPHA` (the templates' weight). Rules also ask three low steps in a row (`best` of the step and the
two scored before it in its bout), the windows' mean P under 0.5 (acc42_mechanism.py's), acc42's share along gravity
(`share3`: the bout's steps' own ± 0.3 s moving energy over the last 3 s) or acc43's spacing (`ratio`: the step's
interval over the median of the up to 4 before). `--cache DIR` keeps the
traces (after_walk.json, gait.json) and reads them back.

    python3 bench/acc41_after_walk_splice.py --binary B --tracer T --keep DIR > /dev/null
    ACC45_LAGS=-0.08,-0.04,0,0.04,0.08 python3 bench/acc45_step_shape.py --tracer T --streams DIR \
        > bench/acc45_step_shape_result.md
"""
import argparse, collections, csv, json, os, sys, tempfile

import numpy as np
from scipy.signal import lfilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402

MARGIN = 0.5
TICK = 0.08
GRAVITY_ALPHA = float.fromhex("0x1.c721bd30921d8p-3")
SLOW_ALPHA = float.fromhex("0x1.0a9c0b4034900p-2")
BAND_ALPHA = float.fromhex("0x1.a7d9c305157ffp-1")
OFFSETS = np.arange(-0.28, 0.2801, TICK)
ALPHA = float(os.environ.get("ACC45_ALPHA", 0.25))
MIN_BEFORE = 4
LAGS = np.array([float(x) for x in os.environ.get("ACC45_LAGS", "0").split(",")])
SCALED = float(os.environ.get("ACC45_SCALED", 0))  # > 0: the window's half width is this times the bout's interval
GAIT = {"walking", "walking-treadmill-4kmh", "walking-treadmill-4kmh-15deg", "stepper", "stairs-up", "stairs-down",
        "stairs", "jogging", "running-treadmill-8kmh", "timed-up-and-go"}


def ema(x, a, y0):
    """y[n] = y[n-1] + a (x[n] - y[n-1]) from y[-1] = y0, along axis 0."""
    y, _ = lfilter([a], [1, -(1 - a)], x, axis=0, zi=(1 - a) * np.reshape(np.asarray(y0, float), (1,) + x.shape[1:]))
    return y


def ticks(path):
    """(tick times, along (n), across (n x 3) or None, |a| band (n)) as the recognizer's ticks."""
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    t, v = a[:, 0] / 1000.0, a[:, 1:]
    k = np.floor((t - t[0]) / TICK).astype(int)
    n = k[-1] + 1
    counts = np.bincount(k, minlength=n)
    keep = counts > 0
    def mean(col):
        s = np.bincount(k, weights=col, minlength=n)
        m = np.where(keep, s / np.maximum(counts, 1), np.nan)
        idx = np.where(keep, np.arange(n), 0)
        np.maximum.accumulate(idx, out=idx)
        return m[idx]
    times = t[0] + (np.arange(n) + 1) * TICK
    mag = mean(np.linalg.norm(v, axis=1) if v.shape[1] == 3 else v[:, 0])
    slow = ema(mag, SLOW_ALPHA, mag[0])
    mband = ema(mag - slow, BAND_ALPHA, 0.0)
    if v.shape[1] != 3:
        return times, None, None, mband
    m = np.column_stack([mean(v[:, i]) for i in range(3)])
    g = ema(ema(m, GRAVITY_ALPHA, m[0]), GRAVITY_ALPHA, m[0])
    unit = g / np.maximum(np.linalg.norm(g, axis=1, keepdims=True), 1e-9)
    slow = ema(m, SLOW_ALPHA, m[0])
    band = ema(m - slow, BAND_ALPHA, np.zeros(3))
    along = (band * unit).sum(1)
    across = band - along[:, None] * unit
    return times, along, across, mband


def shapes(tk, xs, half=None):
    """Per step time: the `3d`, `along` and `mag` shape vectors (None where there are no axes), each an array of
    LAGS rows (the shape shifted by each lag); `half`: the window's half width (default 0.28 s)."""
    times, along, across, mband = tk
    offsets = OFFSETS if half is None else np.linspace(-half, half, len(OFFSETS))
    q = (np.asarray(xs)[:, None, None] + LAGS[None, :, None] + offsets[None, None, :]).reshape(len(xs), -1)
    shape = (len(xs), len(LAGS), len(offsets))
    mag = np.interp(q, times, mband).reshape(shape)
    if along is None:
        return [None] * len(xs), [None] * len(xs), list(mag)
    al = np.interp(q, times, along).reshape(shape)
    ac = [np.interp(q, times, across[:, i]).reshape(shape) for i in range(3)]
    d3 = np.concatenate([al] + ac, axis=2)
    return list(d3), list(al), list(mag)


def cos(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0


def best_cos(vl, ref):
    """The largest cosine of the lagged shapes `vl` (rows) with `ref`, and that row."""
    cs = [cos(v, ref) for v in vl]
    i = int(np.argmax(cs))
    return cs[i], vl[i]


def scores(vls):
    """Per step of a bout (lagged shape arrays in order): dict of scores, None before MIN_BEFORE earlier steps. Each
    step's shape is the lag (of LAGS) that best matches the template; the earlier steps are kept so aligned."""
    out, tmpl, phase, energy, vs = [], None, [None, None], None, []
    zero = len(LAGS) // 2
    for k, vl in enumerate(vls):
        if tmpl is None:
            c, v = 1.0, vl[zero]
        else:
            c, v = best_cos(vl, tmpl)
        vs.append(v)
        e = float(vl[zero] @ vl[zero])
        if k >= MIN_BEFORE:
            ph = phase[k % 2]
            s = dict(tmpl=c, prev=best_cos(vl, vs[k - 1])[0], prev2=best_cos(vl, vs[k - 2])[0],
                     phase=best_cos(vl, ph)[0], amp=float(np.log2(max(e, 1e-12) / max(energy, 1e-12))))
            s["best"] = max(s["tmpl"], s["phase"])
            out.append(s)
        else:
            out.append(None)
        tmpl = v.copy() if tmpl is None else tmpl + ALPHA * (v - tmpl)
        energy = e if energy is None else energy + ALPHA * (e - energy)
        phase[k % 2] = v.copy() if phase[k % 2] is None else phase[k % 2] + ALPHA * (v - phase[k % 2])
    return out


def step_energies(tk, xs):
    """Per step: its own seconds' (± 0.3 s of ticks) moving energy along gravity and in all (None without axes), as
    `noteStepEnergy` measures it; acc42's rule reads the share over the credited steps of the last 3 s."""
    times, along, across, _ = tk
    if along is None:
        return [None] * len(xs)
    out = []
    for x in xs:
        a, b = np.searchsorted(times, x - 0.3), np.searchsorted(times, x + 0.3, side="right")
        al = float((along[a:b] ** 2).sum())
        out.append((al, al + float((across[a:b] ** 2).sum())))
    return out


def mean_p(windows, x):
    ps = [w[2] for w in windows if w[0] <= x < w[1]]
    return sum(ps) / len(ps) if ps else 1.0


def bout_steps(trace, path):
    """Per rhythm bout: [(time, {variant: scores}, windows' mean P, counted)] for its steps."""
    tk = ticks(path)
    counted = set(trace["steps"])
    allsteps = sorted(trace["steps"] + trace["refused"])
    out = []
    for b in trace["rhythm"]:
        xs = [x for x in allsteps if b[0] - 1e-6 <= x <= b[1] + 1e-6]
        if len(xs) <= MIN_BEFORE:
            continue
        d3, al, mg = shapes(tk, xs, SCALED * float(np.median(np.diff(xs))) if SCALED > 0 else None)
        sc = {"mag": scores(mg)}
        if d3[0] is not None:
            sc["3d"], sc["along"] = scores(d3), scores(al)
        energies = step_energies(tk, xs)
        rows = []
        for i, x in enumerate(xs):
            if sc["mag"][i] is None:
                continue
            iv = np.diff(xs[max(0, i - 5):i + 1])
            ratio = iv[-1] / np.median(iv[:-1]) if len(iv) >= 2 else 1.0
            near = [e for t, e in zip(xs[:i + 1], energies[:i + 1]) if t >= x - 3.0 and e is not None]
            share3 = sum(e[0] for e in near) / sum(e[1] for e in near) if near and sum(e[1] for e in near) > 0 else 1.0
            rows.append(dict(t=x, p=mean_p(trace["windows"], x), counted=x in counted, bout=b[0], ratio=ratio,
                             share3=share3,
                             **{f"{var}_{k}": v for var, s in sc.items() for k, v in s[i].items()}))
            # The two scored steps before it in the bout (1: none), for a rule asking three low steps in a row.
            rows[-1]["run3"] = max([primary(rows[-1], "best")] + [primary(r, "best") for r in rows[-3:-1]]
                                   + [1.0] * max(0, 3 - len(rows)))
        out.append(rows)
    return out


def primary(r, k):
    """A step's score `k` on `3d` when it has axes, else on `mag`."""
    return r.get(f"3d_{k}", r[f"mag_{k}"])


def traced(tracer, work, pairs, cache, name):
    """The traces of (dataset, path) pairs, read from `cache`/name.json when it is there."""
    saved = os.path.join(cache, f"{name}.json") if cache else None
    if saved and os.path.exists(saved):
        return json.load(open(saved))
    traces = {}
    for d in sorted({d for d, _ in pairs}):
        traces.update(run(tracer, work, [p for dd, p in pairs if dd == d], d, []))
    if saved:
        json.dump(traces, open(saved, "w"))
    return traces


def after_walk(tracer, streams, work, cache):
    rows = [r for r in json.load(open(os.path.join(streams, "rows.json"))) if not r["twin"]]
    traces = traced(tracer, work, [(r["dataset"], r["file"]) for r in rows], cache, "after_walk")
    walk, runon, first, seqs = [], [], [], []
    for r in rows:
        last = r["last"]
        q = []
        for bout in bout_steps(traces[r["file"]], r["file"]):
            if bout[0]["bout"] > last + MARGIN:
                continue  # a new bout after the walk
            seen = False
            for s in bout:
                s["file"] = r["file"]
                if s["t"] <= last:
                    walk.append(s)
                elif s["t"] > last + MARGIN and s["counted"]:
                    runon.append(s)
                    q.append(s)
                    if not seen:
                        first.append(s)
                        seen = True
        seqs.append(q)
    return walk, runon, first, seqs


def t0_of(path):
    with open(path) as f:
        next(f)
        return float(next(f).split(",")[0]) / 1000


def gait(tracer, shared, work, cache):
    """{group: [bouts of scored steps]} over ../shared's gait recordings."""
    es = []
    for name in ("activities", "steps"):
        for e in csv.DictReader(open(os.path.join(shared, "data", name, "manifest.csv"))):
            e["path"] = os.path.join(shared, "data", name, e["file"])
            e["dataset"] = e["file"].split("/")[0]
            if name == "activities" and e.get("activity") not in GAIT:
                continue
            if name == "steps" and e["truth_steps"] in ("", "0"):
                continue
            es.append(e)
    traces = traced(tracer, work, [(e["dataset"], e["path"]) for e in es], cache, "gait")
    groups = collections.defaultdict(list)
    for e in es:
        label = e.get("activity") or {"bangle_wrist": "walks", "oxford_opt": "walks", "wrist_watch": "walks"}[
            e["dataset"]]
        name = f"{e['dataset']} {label}"
        t0 = t0_of(e["path"])
        for bout in bout_steps(traces[e["path"]], e["path"]):
            for s in bout:
                s["file"] = e["file"]
            if e["file"].endswith("1609_walking.csv"):
                inside = [s for s in bout if 81 <= s["t"] - t0 <= 122]
                outside = [s for s in bout if not 81 <= s["t"] - t0 <= 122]
                if inside:
                    groups["WISDM 1609_walking 81-122 s"].append(inside)
                if outside:
                    groups[name].append(outside)
            else:
                groups[name].append(bout)
    return groups


def pct(xs, ps):
    return " / ".join(f"{v:.2f}" for v in np.percentile(xs, ps)) if len(xs) else "-"


def describe(name, steps):
    def col(k):
        return np.array([primary(s, k) for s in steps])
    tm, pv, p2, bs, amp = col("tmpl"), col("prev"), col("prev2"), col("best"), col("amp")
    al = np.array([s["along_tmpl"] for s in steps if "along_tmpl" in s])
    return (f"| {name} | {len(steps)} | {pct(tm, [1, 5, 50])} | {pct(bs, [1, 5, 50])} | {pct(pv, [5, 50])} | "
            f"{pct(p2, [5, 50])} | {pct(al, [5, 50])} | {pct(amp, [5, 50, 95])} | "
            f"{100 * np.mean(tm < 0.3):.1f} % | {100 * np.mean(bs < 0.3):.1f} % |")


def rules():
    out = []
    for a in (0.0, 0.2, 0.3, 0.4, 0.5):
        out.append((f"tmpl < {a}", lambda s, a=a: primary(s, "tmpl") < a))
    for a in (0.0, 0.2, 0.3):
        out.append((f"best < {a}", lambda s, a=a: primary(s, "best") < a))
    for a in (0.0, 0.2):
        out.append((f"prev < {a} and prev2 < {a}", lambda s, a=a: primary(s, "prev") < a and primary(s, "prev2") < a))
    for a in (-2.0, -3.0):
        out.append((f"amp < {a} (energy < 2^{a:.0f} of the run's)", lambda s, a=a: primary(s, "amp") < a))
    for a in (0.2, 0.3, 0.4):
        for p in (0.5,):
            out.append((f"best < {a}, windows' mean P < {p}",
                        lambda s, a=a, p=p: primary(s, "best") < a and s["p"] < p))
    for a in (0.3, 0.5):
        out.append((f"tmpl < {a}, windows' mean P < 0.5", lambda s, a=a: primary(s, "tmpl") < a and s["p"] < 0.5))
    out.append(("best < 0.3 or amp < -3", lambda s: primary(s, "best") < 0.3 or primary(s, "amp") < -3))
    for a in (0.2, 0.3, 0.4):
        out.append((f"best < {a} on 3 steps in a row", lambda s, a=a: s["run3"] < a))
    out.append(("best < 0.3 on 3 steps in a row, windows' mean P < 0.5", lambda s: s["run3"] < 0.3 and s["p"] < 0.5))
    # Shape with acc42's share along gravity over the last 3 s and acc43's spacing (each at a quiet bar).
    out.append(("best < 0.3, share along gravity (3 s) < 0.2, P < 0.5",
                lambda s: primary(s, "best") < 0.3 and s["share3"] < 0.2 and s["p"] < 0.5))
    out.append(("best < 0.3, share (3 s) < 0.3, P < 0.5",
                lambda s: primary(s, "best") < 0.3 and s["share3"] < 0.3 and s["p"] < 0.5))
    out.append(("best < 0.3, interval ratio > 2 or < 1/2, P < 0.5",
                lambda s: primary(s, "best") < 0.3 and (s["ratio"] > 2 or s["ratio"] < 0.5) and s["p"] < 0.5))
    out.append(("best < 0.3 on 3 steps in a row, share (3 s) < 0.3, P < 0.5",
                lambda s: s["run3"] < 0.3 and s["share3"] < 0.3 and s["p"] < 0.5))
    out.append(("share (3 s) < 0.2, P < 0.5 (acc42's c, per step)", lambda s: s["share3"] < 0.2 and s["p"] < 0.5))
    for a in (-2.0, -1.0):
        out.append((f"amp < {a:.0f}, windows' mean P < 0.5", lambda s, a=a: primary(s, "amp") < a and s["p"] < 0.5))
    out.append(("best < 0.3 or amp < -2, windows' mean P < 0.5",
                lambda s: (primary(s, "best") < 0.3 or primary(s, "amp") < -2) and s["p"] < 0.5))
    return out



def sweep(walk, first, seqs, groups, names):
    total = sum(len(q) for q in seqs)
    print(f"\n| rule (ends the bout at its first flagged step) | run-on steps removed (of {total}) | run-on steps "
          "flagged (removed when only a flagged step is refused) | flagged: first run-on step | walk's own steps "
          "flagged | " + " | ".join(f"{n}: flagged / lost" for n in names) + " | gait files with a flag |")
    print("|---|---|---|---|---|" + "---|" * len(names) + "---|")
    for name, flag in rules():
        removed = flagged = 0
        for q in seqs:
            i = next((i for i, s in enumerate(q) if flag(s)), None)
            removed += 0 if i is None else len(q) - i
            flagged += sum(flag(s) for s in q)

        def rate(xs):
            return f"{100 * np.mean([flag(s) for s in xs]):.1f} %" if xs else "-"

        def lost(bouts):
            n = sum(len(b) for b in bouts)
            gone = 0
            for b in bouts:
                i = next((i for i, s in enumerate(b) if flag(s)), None)
                gone += 0 if i is None else len(b) - i
            return f"{100 * np.mean([flag(s) for b in bouts for s in b]):.1f} / {100 * gone / max(n, 1):.1f} %"

        files = {s["file"] for g in groups.values() for b in g for s in b if flag(s)}
        print(f"| {name} | {removed} ({100 * removed / max(total, 1):.0f} %) | {flagged} "
              f"({100 * flagged / max(total, 1):.0f} %) | {rate(first)} | {rate(walk)} | "
              + " | ".join(lost(groups[n]) for n in names) + f" | {len(files)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tracer", required=True)
    ap.add_argument("--streams", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--cache", help="keep the traces here (and read them from here when they are there)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        walk, runon, first, seqs = after_walk(args.tracer, args.streams, tmp, args.cache)
        groups = gait(args.tracer, args.shared, tmp, args.cache)
    span = f"± {SCALED} of the bout's median interval" if SCALED > 0 else f"{OFFSETS[0]:+.2f} to {OFFSETS[-1]:+.2f} s"
    print(f"Shape: 8 points, {span}; lags {', '.join(f'{x:+.2f}' for x in LAGS)} s (the best kept); template weight "
          f"{ALPHA}; scored from the {MIN_BEFORE + 1}th step of a bout. Cosines (p1 / p5 / p50 or p5 / p50); "
          "`amp` log2 energy ratio.\n")
    print("| steps | n | tmpl p1 / p5 / p50 | best p1 / p5 / p50 | prev p5 / p50 | prev2 p5 / p50 | along-only tmpl "
          "p5 / p50 | amp p5 / p50 / p95 | tmpl < 0.3 | best < 0.3 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(describe("after-walk: the walk's own steps (its bout, before its end)", walk))
    print(describe("after-walk: run-on steps (the walk's bout, after its end + 0.5 s)", runon))
    print(describe("after-walk: the first run-on step of each stream", first))
    for k in sorted(groups):
        print(describe(k, [s for b in groups[k] for s in b]))
    names = ["WISDM 1609_walking 81-122 s", "wisdm_watch walking", "wisdm_watch stairs", "dsads_arm walking",
             "dsads_arm stepper", "bangle_wrist walks", "oxford_opt walks", "tug_wrist timed-up-and-go"]
    sweep(walk, first, seqs, groups, [n for n in names if n in groups])
    files(groups)


def files(groups):
    """The gait files that would lose most steps under the quietest latched rules (upper bound: every later step of a
    bout with a flag)."""
    for name, flag in rules():
        if name not in QUIET:
            continue
        lost = collections.Counter()
        steps = collections.Counter()
        for g in groups.values():
            for b in g:
                i = next((i for i, s in enumerate(b) if flag(s)), None)
                steps[b[0]["file"]] += len(b)
                lost[b[0]["file"]] += 0 if i is None else len(b) - i
        worst = [f for f, n in lost.most_common() if n > 0]
        print(f"\n{name}: {len(worst)} gait files with a flag; most lost (of the bout steps scored): "
              + ", ".join(f"{f} {lost[f]}/{steps[f]}" for f in worst[:25]))


QUIET = ("amp < -2, windows' mean P < 0.5", "best < 0.3 on 3 steps in a row, windows' mean P < 0.5",
         "best < 0.2 on 3 steps in a row", "best < 0.3, share along gravity (3 s) < 0.2, P < 0.5",
         "best < 0.3 on 3 steps in a row, share (3 s) < 0.3, P < 0.5")


if __name__ == "__main__":
    main()
