#!/usr/bin/env python3
"""Issue #47, DSADS treadmill walks under 60 steps/min out of dataset: why, per file (h47treadmill).

For each DSADS treadmill walk (arm unit, 25 Hz) prints what limits its count:
- candidates: peaks of |a| after the detector's 3 Hz two-pole low-pass, per minute, with the strong tracker's
  hysteresis (`minSwing` 1.2 m/s²) and the weak one's (`minSwingInWalk` 0.5), their median swing, and the same weak
  tracker on the component along gravity (gravity: a 0.3 Hz low-pass of each axis) instead of |a| (oxford_errors.py's
  numpy copies of the filter and the tracker);
- cadence: the peak of the along-gravity spectrum (0.6-3.5 Hz, 20 s Hann segments), and the across-gravity
  principal component's (a free arm swings once a stride);
- windows: the share of windows (every window scored, the leave-out model of DSADS) that a physical path calls
  walking (held arm: body_sway >= 0.15 and r_stride >= 0.75; steady stride: r_stride >= 0.85 and share >= 0.45), the
  trees' or paths' probability >= 0.7, and the windows' median along_share, arm_swing, body_sway and r_stride.

    swift build -c release --product steptweet
    python3 bench/treadmill_candidates.py [--binary B] > bench/treadmill_candidates_result.md
"""
import collections, csv, json, os, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector_study import ROOT, arguments, eval_features, low_pass, peaks  # noqa: E402

RATE = 25.0


def swings(v, times, t):
    """Each peak's swing: its value less the lowest value since the peak before."""
    at = np.searchsorted(t, times)
    return np.array([v[b] - v[a:b + 1].min() for a, b in zip(at[:-1], at[1:])])


def cadence(x):
    x = x - x.mean()
    n, power = 512, 0
    for i in range(0, len(x) - n, n // 2):
        power = power + np.abs(np.fft.rfft(x[i:i + n] * np.hanning(n))) ** 2
    f = np.fft.rfftfreq(n, 1 / RATE)
    band = (f > 0.6) & (f < 3.5)
    return f[np.argmax(power * band)] * 60


def signals(path):
    """Time (ns), |a|, the component along gravity (gravity: a 0.3 Hz low-pass of each axis) and the motion across
    gravity along its principal direction."""
    xyz = np.loadtxt(path, delimiter=",", skiprows=1)
    t, xyz = (xyz[:, 0] * 1e6).astype(np.int64), xyz[:, 1:]
    gravity = np.stack([low_pass(t, xyz[:, k], 0.3) for k in range(3)], axis=1)
    up = gravity / np.linalg.norm(gravity, axis=1)[:, None]
    moving = xyz - gravity
    along = (moving * up).sum(1)
    across = moving - along[:, None] * up
    first = np.linalg.svd(across - across.mean(0), full_matrices=False)[2][0]
    return t, np.linalg.norm(xyz, axis=1), along, across @ first


def window_figures(binary, manifest):
    """Every window of every activity recording, scored by the model trained without DSADS, by file name."""
    params = json.load(open(os.path.join(ROOT, "bench", "leave_out", "dsads_arm.json")))
    params["recognizer"]["confident"] = 2  # every window scored
    rows = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as work:
        for w in eval_features(binary, manifest, os.path.join(work, "features"), params)[1]:
            rows[w["file"]].append({k: float(v) for k, v in w.items() if k != "file"})
    return rows


def main():
    args = arguments(__doc__).parse_args()
    folder = os.path.join(args.shared, "data", "activities")
    manifest = os.path.join(folder, "manifest.csv")
    entries = [r["file"] for r in csv.DictReader(open(manifest))
               if r["file"].startswith("dsads_arm/") and r["activity"].startswith("walking-treadmill")]
    windows = window_figures(args.binary, manifest)
    print("| file | |a| peaks/min at 1.2 / 0.5 (median swing) | along-gravity peaks/min at 0.5 | cadence along / "
          "across, /min | windows: held arm / steady stride / P >= 0.7 | median along_share / arm_swing / body_sway / "
          "r_stride |")
    print("|---|---|---|---|---|---|")
    for name in entries:
        t, magnitude, along, across = signals(os.path.join(folder, name))
        minutes = len(t) / RATE / 60
        v = low_pass(t, magnitude)
        strong, weak, weak_along = peaks(t, v, 1.2), peaks(t, v, 0.5), peaks(t, low_pass(t, along), 0.5)
        ws = windows[name]
        get = lambda k: np.array([w[k] for w in ws])
        held = (get("body_sway") >= 0.15) & (get("r_stride") >= 0.75)
        steady = (get("r_stride") >= 0.85) & (get("along_share") >= 0.45)
        print(f"| {os.path.basename(name)[:-4]} | {len(strong) / minutes:.0f} / {len(weak) / minutes:.0f} "
              f"({np.median(swings(v, weak, t)):.2f}) | {len(weak_along) / minutes:.0f} | {cadence(along):.0f} / "
              f"{cadence(across):.0f} | {held.mean():.2f} / {steady.mean():.2f} / "
              f"{(get('probability') >= 0.7).mean():.2f} | {np.median(get('along_share')):.2f} / "
              f"{np.median(get('arm_swing')):.2f} / {np.median(get('body_sway')):.2f} / "
              f"{np.median(get('r_stride')):.2f} |")


if __name__ == "__main__":
    main()
