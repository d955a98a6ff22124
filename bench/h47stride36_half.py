#!/usr/bin/env python3
"""Does the motion along gravity repeat at half the rhythm's interval? (issue #47, h47stride36)

A wrist whose |a| swings once a stride (Bangle.js 100_4, 100_7) gives candidate peaks a stride apart; the body still
rises and falls once a step, so its motion along gravity should repeat at half that interval. A slow walk seen step by
step, or a hand's motion, should not. This reproduces the detector's signals in numpy: |a| through the two-pole 3 Hz
low-pass and the strong hysteresis tracker (`minSwing` 1.2 m/s²) for candidate peaks; 12.5 Hz ticks of the mean axes,
gravity (two stages at 0.5 Hz), the 0.6-3.5 Hz band and its component along gravity (WalkingRecognizer.swift). In
every 10.24 s window (hop 0.96 s) with at least 4 candidates whose median interval T is 0.75-1.4 s (a rhythm at
43-80 per minute, where a stride lock and a slow walk look alike), it reports the autocorrelation of the along
component at lag T/2 (interpolated between whole ticks) and at lag T; their mean, the share of the along motion's
power in the even harmonics of 1/T (a sum of sines at k/T has r(T) = 1 and r(T/2) = (even − odd) / all); and the
along power at 2/T over that at 1/T (Hann-windowed); and for comparison |a| (averaged over each tick) and the vector
across gravity at T/2.

With `--splice DIR` (a `free_living_splice.py --keep DIR` folder) also their spliced cuts, and with `--binary B` too
the Bangle.js bouts of 12 and 20 steps counted out of dataset each alone, with the walking gate and with the rhythm
alone (`eval --rhythm-only`), by the walk they were cut from.

    python3 bench/free_living_splice.py --binary B --keep DIR
    python3 bench/h47stride36_half.py --splice DIR --binary B > bench/h47stride36_half_result.md
"""
import argparse, collections, csv, glob, json, math, os, subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = 0.08


def read(path):
    d = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return d[:, 0] / 1000, d[:, 1:4]


def candidates(t, v, swing=1.2, hz=3.0):
    m = np.linalg.norm(v, axis=1)
    tau = 1 / (2 * math.pi * hz)
    y1 = y2 = m[0]
    seeking, ext, ext_t, peaks = True, -1e9, 0.0, []
    for i in range(len(t)):
        dt = t[i] - t[i - 1] if i else 0.0
        a = 1 - math.exp(-dt / tau) if dt > 0 else 0.0
        y1 += (m[i] - y1) * a
        y2 += (y1 - y2) * a
        if seeking:
            if y2 > ext:
                ext, ext_t = y2, t[i]
            elif y2 < ext - swing:
                peaks.append(ext_t)
                seeking, ext = False, y2
        elif y2 < ext:
            ext = y2
        elif y2 > ext + swing:
            seeking, ext, ext_t = True, y2, t[i]
    return np.array(peaks)


def along(t, v):
    edges = np.arange(t[0], t[-1], TICK)
    idx = np.searchsorted(edges, t, side="right") - 1
    n = len(edges)
    sums = np.zeros((n, 3))
    counts = np.bincount(idx, minlength=n)[:n]
    for c in range(3):
        sums[:, c] = np.bincount(idx, weights=v[:, c], minlength=n)[:n]
    ok = counts > 0
    mean = np.where(ok[:, None], sums / np.maximum(counts, 1)[:, None], np.nan)
    for c in range(3):  # empty ticks (a rate under 12.5 Hz): the last value
        col = mean[:, c]
        good = np.where(~np.isnan(col))[0]
        mean[:, c] = col[good[np.maximum(np.searchsorted(good, np.arange(n), side="right") - 1, 0)]]
    ga = 1 - math.exp(-TICK * 2 * math.pi * 0.5)
    sa = 1 - math.exp(-TICK * 2 * math.pi * 0.6)
    ba = 1 - math.exp(-TICK * 2 * math.pi * 3.5)
    g1 = mean[0].copy(); g2 = mean[0].copy(); slow = mean[0].copy(); band = np.zeros(3)
    out = np.zeros(n)
    across = np.zeros((n, 3))
    for i in range(n):
        g1 += (mean[i] - g1) * ga
        g2 += (g1 - g2) * ga
        slow += (mean[i] - slow) * sa
        band += (mean[i] - slow - band) * ba
        unit = g2 / max(np.linalg.norm(g2), 1e-9)
        out[i] = band @ unit
        across[i] = band - out[i] * unit
    return edges, out, across


def autocorr(x, lag):
    x = x - x.mean()
    var = (x * x).mean()
    if var < 1e-8:
        return float("nan")

    def at(k):
        return (x[:-k] * x[k:]).mean() / var if k > 0 else 1.0
    lo = int(math.floor(lag))
    f = lag - lo
    return (1 - f) * at(lo) + f * at(lo + 1)


def power(x, hz):
    """The power of `x` (ticks) at `hz`, through a Hann window."""
    x = (x - x.mean()) * np.hanning(len(x))
    k = np.arange(len(x))
    return abs(np.sum(x * np.exp(-2j * math.pi * hz * TICK * k))) ** 2


def vector_autocorr(c, lag):
    """The autocorrelation of the vectors `c` (ticks × 3) at `lag` ticks: mean dot products over the mean square."""
    c = c - c.mean(axis=0)
    var = (c * c).sum(axis=1).mean()
    if var < 1e-8:
        return float("nan")
    lo = int(math.floor(lag))
    f = lag - lo
    at = lambda k: (c[:-k] * c[k:]).sum(axis=1).mean() / var
    return (1 - f) * at(lo) + f * at(lo + 1)


def magnitude_ticks(t, v, edges):
    """|a| averaged over each tick (the recognizer interpolates the 3 Hz low-passed |a|: near enough here)."""
    idx = np.searchsorted(edges, t, side="right") - 1
    m = np.linalg.norm(v, axis=1)
    counts = np.maximum(np.bincount(idx, minlength=len(edges))[:len(edges)], 1)
    return np.bincount(idx, weights=m, minlength=len(edges))[:len(edges)] / counts


def windows(path, t0=None, t1=None):
    t, v = read(path)
    if t0 is not None:
        keep = (t >= t0) & (t <= t1)
        t, v = t[keep], v[keep]
    if len(t) < 20 or t[-1] - t[0] < 10.24:
        return []
    peaks = candidates(t, v)
    edges, a, c = along(t, v)
    mag = magnitude_ticks(t, v, edges)
    rows = []
    for s in range(0, len(edges) - 128 + 1, 12):
        ws, we = edges[s], edges[s] + 10.24
        p = peaks[(peaks >= ws) & (peaks < we)]
        if len(p) < 4:
            continue
        T = float(np.median(np.diff(p)))
        if not 0.75 <= T <= 1.4:
            continue
        x = a[s:s + 128]
        lag = T / 2 / TICK
        rows.append((T, autocorr(x, lag), autocorr(x, 2 * lag), power(x, 2 / T) / power(x, 1 / T),
                     autocorr(mag[s:s + 128], lag), vector_autocorr(c[s:s + 128], lag)))
    return rows


def groups(shared, splice):
    steps = os.path.join(shared, "data", "steps")
    act = os.path.join(shared, "data", "activities")
    bangle = sorted(glob.glob(os.path.join(steps, "bangle_wrist", "*.csv")))
    yield "Bangle.js 100_4, 100_7 (stride-locked walks)", [f for f in bangle if os.path.basename(f) in
                                                           ("100_4.csv", "100_7.csv")]
    if splice:
        yield "their spliced cuts (free_living_splice --keep)", sorted(
            f for w in ("100_4", "100_7") for f in glob.glob(os.path.join(splice, "bangle_wrist", f"bangle_{w}_b*.csv"))
            if not f.endswith("_rest.csv"))
    yield "other Bangle.js walks (100-150 steps)", [f for f in bangle if os.path.basename(f).split("_")[0] in
                                                    ("100", "150") and os.path.basename(f) not in
                                                    ("100_4.csv", "100_7.csv")]
    rows = list(csv.DictReader(open(os.path.join(act, "manifest.csv"))))
    by = lambda *acts: [os.path.join(act, r["file"]) for r in rows if r["activity"] in acts]
    yield "Oxford walks", sorted(glob.glob(os.path.join(steps, "oxford_opt", "*.csv")))
    yield "WISDM walking", [f for f in by("walking") if "wisdm" in f]
    yield "WISDM stairs", [f for f in by("stairs") if "wisdm" in f]
    yield "DSADS walking (arm)", [f for f in by("walking", "walking-treadmill-4kmh") if "dsads" in f]
    yield "TUG runs", by("timed-up-and-go")
    yield "WISDM clapping", by("clapping")
    yield "WISDM folding-clothes", by("folding-clothes")
    yield "WISDM brushing-teeth", by("brushing-teeth")
    yield "WISDM eating (4)", by("eating-soup", "eating-sandwich", "eating-pasta", "eating-chips")
    yield "WISDM drinking, typing, writing", by("drinking", "typing", "writing")
    yield "DSADS non-walking (arm)", [os.path.join(act, r["file"]) for r in rows if "dsads" in r["file"] and not
                                      any(k in r["activity"] for k in ("walking", "stairs", "running"))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--splice", help="a free_living_splice.py --keep folder")
    ap.add_argument("--binary", help="steptweet, to count the spliced Bangle.js bouts (with --splice)")
    args = ap.parse_args()
    print("| group | files | windows with T 0.75-1.4 s | T median | r_along(T/2) p10/median/p90 | >= 0.3 | >= 0.4 |"
          " >= 0.5 | r_along(T) median | even share median | >= 0.25 | P(2/T) / P(1/T) median | >= 1 |"
          " r_|a|(T/2) median | r_across(T/2) p10/median/p90 | r_across(T/2) <= -0.6 and r_along(T) >= 0.4 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, files in groups(args.shared, args.splice):
        rows = [r for f in files for r in windows(f)]
        rows = [r for r in rows if not any(math.isnan(x) for x in r)]
        if not rows:
            print(f"| {name} | {len(files)} | 0 |" + " |" * 13)
            continue
        T, h, s, q, m, c = (np.array(c) for c in zip(*rows))
        even = (s + h) / 2
        share = lambda b: f"{100 * np.mean(h >= b):.0f} %"
        print(f"| {name} | {len(files)} | {len(rows)} | {np.median(T):.2f} | {np.percentile(h, 10):.2f} / "
              f"{np.median(h):.2f} / {np.percentile(h, 90):.2f} | {share(0.3)} | {share(0.4)} | {share(0.5)} | "
              f"{np.median(s):.2f} | {np.median(even):.2f} | {100 * np.mean(even >= 0.25):.0f} % | {np.median(q):.2f} | "
              f"{100 * np.mean(q >= 1):.0f} % | {np.median(m):.2f} | "
              f"{np.percentile(c, 10):.2f} / {np.median(c):.2f} / {np.percentile(c, 90):.2f} | "
              f"{100 * np.mean(arm_stride(c, s)):.0f} % |")
    dsads(args.shared)
    if args.splice and args.binary:
        bangle_counts(args.splice, args.binary)


def bangle_counts(splice, binary):
    """The spliced Bangle.js bouts of 12 and 20 steps, each file counted alone out of dataset, with the walking gate
    and with the rhythm alone."""
    rows = [r for r in json.load(open(os.path.join(splice, "rows.json")))
            if r["kind"] == "bout" and r["name"].startswith("bangle_") and r["steps"] in (12, 20)]
    manifest = os.path.join(splice, "h47stride36_bouts.csv")
    with open(manifest, "w") as f:
        f.write("file,truth_steps\n" + "".join(f"bangle_wrist/{r['name']}.csv,{r['steps']}\n" for r in rows))
    counted = {}
    for mode, extra in (("gate", []), ("rhythm", ["--rhythm-only"])):
        out = subprocess.run([binary, "eval", "--json", "--leave-out", "bangle_wrist", "--models",
                              os.path.join(splice, "models")] + extra + [manifest], check=True, capture_output=True,
                             text=True).stdout
        counted[mode] = {f["file"]: f["counted"] for f in json.loads(out)["files"]}
    os.remove(manifest)
    table = collections.defaultdict(lambda: [0, 0, 0])
    for r in rows:
        key = f"bangle_wrist/{r['name']}.csv"
        t = table[(r["name"].split("_b")[0].removeprefix("bangle_"), r["steps"])]
        t[0] += r["steps"]
        t[1] += counted["gate"][key]
        t[2] += counted["rhythm"][key]
    print("\n| Bangle.js walk | bout steps | reference steps | counted | rhythm only |\n|---|---|---|---|---|")
    for (walk, steps), (n, gate, rhythm) in sorted(table.items()):
        print(f"| {walk} | {steps} | {n} | {gate} | {rhythm} |")


def arm_stride(across, along_t):
    """The arm swings once per candidate interval (the vector across gravity reverses half-way) while the motion along
    gravity repeats at it: the interval is a stride."""
    return (across <= -0.6) & (along_t >= 0.4)


def dsads(shared):
    """The arm-stride test by DSADS activity (its arm sensor; the one group above where it fires beside walks)."""
    act = os.path.join(shared, "data", "activities")
    table = {}
    for r in csv.DictReader(open(os.path.join(act, "manifest.csv"))):
        if r["file"].startswith("dsads"):
            for w in windows(os.path.join(act, r["file"])):
                if not any(math.isnan(x) for x in w):
                    n = table.setdefault(r["activity"], [0, 0])
                    n[0] += 1
                    n[1] += int(arm_stride(w[5], w[2]))
    print("\n| DSADS activity | windows with T 0.75-1.4 s | r_across(T/2) <= -0.6 and r_along(T) >= 0.4 |")
    print("|---|---|---|")
    for name, (n, k) in sorted(table.items()):
        print(f"| {name} | {n} | {k} ({100 * k / n:.0f} %) |")


if __name__ == "__main__":
    main()
