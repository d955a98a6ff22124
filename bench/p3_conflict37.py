#!/usr/bin/env python3
"""Issue #47: what counting p3's two 15-degree rail walks would cost, on the issue's own physical features.

Per 10 s window of the rail walks and of every ../shared activity recording with axes and a truth of 0: gravity
by a 0.3 Hz low-pass, the 0.6-3.5 Hz moving part split along gravity and across. Three features that say "gait":
the along-gravity component's best autocorrelation at a step's lag (0.45-1.2 s), its RMS, and its share of the moving
energy. A window of p3's rail walks is *dominated* by a window without steps that is at least as gait-like on all
three: any rule that rises with the three and takes the rail window takes the dominating ones too.
Usage: python3 bench/p3_conflict37.py [--shared ../shared]
"""
import argparse
import csv
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.signal import butter, filtfilt

RAIL = "p3_walking-treadmill-4kmh-15deg"


def windows(path, fs):
    """(periodicity, rms along gravity, share along gravity) of each whole 10 s window."""
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    x = d[:, 1:4]
    b, a = butter(2, 0.3 / (fs / 2))
    gravity = filtfilt(b, a, x, axis=0)
    b, a = butter(2, [0.6 / (fs / 2), 3.5 / (fs / 2)], "band")
    moving = filtfilt(b, a, x, axis=0)
    unit = gravity / np.linalg.norm(gravity, axis=1, keepdims=True)
    along = (moving * unit).sum(1)
    n = int(10 * fs)
    for s in range(0, len(along) - n + 1, n):
        w = along[s:s + n] - along[s:s + n].mean()
        power = (w * w).sum()
        if power <= 0:
            continue
        lags = range(int(0.45 * fs), int(1.2 * fs) + 1)
        best = max((w[:-k] * w[k:]).sum() / power * n / (n - k) for k in lags)
        share = (along[s:s + n] ** 2).sum() / (moving[s:s + n] ** 2).sum()
        yield best, w.std(), share


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[1] / ".." / "shared"))
    args = ap.parse_args()
    root = Path(args.shared) / "data" / "activities"
    rail, without = [], []
    for row in csv.DictReader(open(root / "manifest.csv")):
        if "magnitude" in row["columns"] or (row["truth_steps"] != "0" and RAIL not in row["file"]):
            continue
        feats = [(row["activity"],) + w for w in windows(root / row["file"], float(row["rate_hz"]))]
        (rail if RAIL in row["file"] else without).extend(feats)
    print(f"rail windows {len(rail)}; windows without steps {len(without)} ({len(without) / 360:.1f} h)\n")
    print("| rail window | periodicity | rms along (m/s²) | share along | windows without steps dominating it |")
    print("|---|---|---|---|---|")
    dominating = []
    for i, (_, p, r, s) in enumerate(sorted(rail, key=lambda w: w[1])):
        d = [w for w in without if w[1] >= p and w[2] >= r and w[3] >= s]
        dominating.append(d)
        print(f"| {i + 1} | {p:.2f} | {r:.2f} | {s:.2f} | {len(d)} |")
    counts = sorted(len(d) for d in dominating)
    median = dominating[sorted(range(len(dominating)), key=lambda i: len(dominating[i]))[len(counts) // 2]]
    print(f"\nDominating windows: least {counts[0]}, median {counts[len(counts) // 2]} of {len(without)}.")
    print("The median rail window's, by activity:", ", ".join(f"{a} {n}" for a, n in
                                                           Counter(w[0] for w in median).most_common(8)))
    for share in (0.5, 0.9):
        k = int(np.ceil(share * len(rail))) - 1
        need = sorted(dominating, key=len)[k]
        print(f"A monotone rule taking {share:.0%} of the rail windows takes at least {len(need)} windows without "
              f"steps ({len(need) / len(without):.1%} of that time).")


if __name__ == "__main__":
    main()
