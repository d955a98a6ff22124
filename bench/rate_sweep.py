#!/usr/bin/env python3
"""h47edge: real walks of ../shared resampled to each rate from 12.5 to 500 Hz, counted (`steptweet count`).

  python3 bench/rate_sweep.py [--binary .build/release/steptweet] [--jitter 0.3] > bench/rate_sweep_result.txt

Each recording (5 Oxford phones at 200-220 Hz, 3 Bangle.js wrists at ~12 Hz) is interpolated linearly per axis onto
a grid at the rate (times jittered by up to ±`--jitter` of the period when given); going down, each axis is first
averaged over one target period (the anti-aliasing a sensor's own filter does). Upsampled ~12 Hz wrist data is not a
faster sensor's signal (its impacts are the straight lines between 12 Hz samples), so those rows say how the
detector treats the same samples at more points, not what a 50 Hz watch would count. Needs numpy.
"""
import argparse, os, subprocess, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = os.path.join(ROOT, "..", "shared", "data", "steps")
FILES = [
    "oxford_opt/Samsung_Dario_Hard_ArmBand_1", "oxford_opt/Samsung_Carmelo_Hard_BackPocket_1",
    "oxford_opt/Samsung_Dario_Hard_FrontPocket_1", "oxford_opt/Nexus_Jamie_Hard_InHand_1",
    "oxford_opt/Samsung_Dario_Hard_NeckPouch_1", "bangle_wrist/100", "bangle_wrist/150", "bangle_wrist/150_4",
]
RATES = [12.5, 13, 20, 32, 50, 100, 200, 500]


def resample(a, rate, jitter, seed=1):
    t, cols = a[:, 0] / 1000.0, a[:, 1:]
    source_rate = (len(t) - 1) / (t[-1] - t[0])
    if rate < source_rate:
        w = max(1, int(round(source_rate / rate)))
        # Padded with the end values, not zeros (`mode="same"`): a zero-padded average put a fake jump in the first
        # and last w/2 samples of every copy.
        padded = np.pad(cols, ((w // 2, (w - 1) // 2), (0, 0)), mode="edge")
        cols = np.column_stack([np.convolve(padded[:, i], np.ones(w) / w, mode="valid") for i in range(cols.shape[1])])
    n = int((t[-1] - t[0]) * rate)
    grid = t[0] + (np.arange(n) + np.random.default_rng(seed).uniform(-jitter, jitter, n)) / rate
    grid = np.sort(np.clip(grid, t[0], t[-1]))
    return np.column_stack([grid * 1000.0] + [np.interp(grid, t, cols[:, i]) for i in range(cols.shape[1])])


def count(binary, path):
    out = subprocess.run([binary, "count", "--jobs", "1", path], capture_output=True, text=True, check=True).stdout
    return int(out.split(": ", 1)[1].split(" steps")[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--jitter", type=float, default=0.0)
    a = ap.parse_args()
    truth = {}
    for line in open(os.path.join(STEPS, "manifest.csv")).read().splitlines()[1:]:
        f = line.split(",")
        truth[f[0]] = f[1]
    print("| recording | truth | native | " + " | ".join("%g Hz" % r for r in RATES) + " |")
    print("|---|---|---|" + "---|" * len(RATES))
    with tempfile.TemporaryDirectory() as tmp:
        for name in FILES:
            src = os.path.join(STEPS, name + ".csv")
            data = np.genfromtxt(src, delimiter=",", skip_header=1)
            cells = []
            for rate in RATES:
                path = os.path.join(tmp, "r.csv")
                np.savetxt(path, resample(data, rate, a.jitter), delimiter=",", fmt=["%.3f", "%.5f", "%.5f", "%.5f"],
                           header="t_ms,x,y,z", comments="")
                cells.append(str(count(a.binary, path)))
            print("| %s | %s | %d | %s |" % (name, truth[name + ".csv"], count(a.binary, src), " | ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())
