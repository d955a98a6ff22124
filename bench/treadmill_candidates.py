#!/usr/bin/env python3
"""Issue #47, DSADS treadmill walks under 60 steps/min out of dataset: why, per file (h47treadmill).

For each DSADS treadmill walk (arm unit, 25 Hz) prints what limits its count:
- candidates: peaks of |a| after the detector's 3 Hz two-pole low-pass, per minute, with the strong tracker's
  hysteresis (`minSwing` 1.2 m/s²) and the weak one's (`minSwingInWalk` 0.5), their median swing, and the same weak
  tracker on the component along gravity (a 0.3 Hz low-pass of the vector) instead of |a|;
- cadence: the peak of the along-gravity spectrum (0.6-3.5 Hz, 20 s Hann segments), and the across-gravity
  principal component's (a free arm swings once a stride);
- windows: the share of windows (every window scored, the leave-out model of DSADS) that a physical path calls
  walking (held arm: body_sway >= 0.15 and r_stride >= 0.75; steady stride: r_stride >= 0.85 and share >= 0.45), the
  trees' or paths' probability >= 0.7, and the windows' median along_share, arm_swing, body_sway and r_stride.

    swift build -c release --product steptweet
    python3 bench/treadmill_candidates.py [--binary B] > bench/treadmill_candidates_result.md
"""
import argparse, collections, csv, json, os, subprocess, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = 25.0


def low_pass(x, hz, two_pole=True):
    a = 1 - np.exp(-(1 / RATE) * 2 * np.pi * hz)
    s1 = s2 = x[0]
    out = np.empty_like(x)
    for i, v in enumerate(x):
        s1 = s1 + a * (v - s1)
        s2 = s2 + a * (s1 - s2) if two_pole else s1
        out[i] = s2
    return out


def peaks(y, hysteresis):
    """PeakTracker.push: a peak once the signal falls `hysteresis` below it; its swing from the trough before."""
    seeking, extreme, trough, swings = True, 0.0, 0.0, []
    for v in y:
        if seeking:
            if v > extreme:
                extreme = v
            elif v < extreme - hysteresis:
                swings.append(extreme - trough)
                seeking, extreme = False, v
        elif v < extreme:
            extreme = v
        elif v > extreme + hysteresis:
            trough, seeking, extreme = extreme, True, v
    return np.array(swings)


def cadence(x):
    x = x - x.mean()
    n, power = 512, 0
    for i in range(0, len(x) - n, n // 2):
        power = power + np.abs(np.fft.rfft(x[i:i + n] * np.hanning(n))) ** 2
    f = np.fft.rfftfreq(n, 1 / RATE)
    band = (f > 0.6) & (f < 3.5)
    return f[np.argmax(power * band)] * 60


def signals(path):
    xyz = np.loadtxt(path, delimiter=",", skiprows=1)[:, 1:]
    magnitude = np.linalg.norm(xyz, axis=1)
    gravity = np.stack([low_pass(xyz[:, k], 0.3, two_pole=False) for k in range(3)], axis=1)
    up = gravity / np.linalg.norm(gravity, axis=1)[:, None]
    moving = xyz - gravity
    along = (moving * up).sum(1)
    across = moving - along[:, None] * up
    first = np.linalg.svd(across - across.mean(0), full_matrices=False)[2][0]
    return magnitude, along, across @ first


def window_figures(binary, manifest, work):
    params = json.load(open(os.path.join(ROOT, "bench", "leave_out", "dsads_arm.json")))
    params["recognizer"]["confident"] = 2  # every window scored
    path = os.path.join(work, "params.json")
    json.dump(params, open(path, "w"))
    out = os.path.join(work, "features")
    subprocess.run([binary, "eval", "--json", "--parameters", path, "--features", out, manifest], check=True,
                   capture_output=True)
    rows = collections.defaultdict(list)
    for w in csv.DictReader(open(os.path.join(out, "windows.csv"))):
        rows[os.path.basename(w["file"])].append({k: float(v) for k, v in w.items() if k != "file"})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    args = ap.parse_args()
    folder = os.path.join(args.shared, "data", "activities")
    entries = [r for r in csv.DictReader(open(os.path.join(folder, "manifest.csv")))
               if r["file"].startswith("dsads_arm/") and r["activity"].startswith("walking-treadmill")]
    with tempfile.TemporaryDirectory() as work:
        manifest = os.path.join(work, "manifest.csv")
        with open(manifest, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(entries[0].keys()))
            w.writeheader()
            for e in entries:
                w.writerow(dict(e, file=os.path.join(folder, e["file"])))
        windows = window_figures(args.binary, manifest, work)
    print("| file | |a| peaks/min at 1.2 / 0.5 (median swing) | along-gravity peaks/min at 0.5 | cadence along / "
          "across, /min | windows: held arm / steady stride / P >= 0.7 | median along_share / arm_swing / body_sway / "
          "r_stride |")
    print("|---|---|---|---|---|---|")
    for e in entries:
        magnitude, along, across = signals(os.path.join(folder, e["file"]))
        minutes = len(magnitude) / RATE / 60
        y = low_pass(magnitude, 3.0)
        strong, weak, weak_along = peaks(y, 1.2), peaks(y, 0.5), peaks(low_pass(along, 3.0), 0.5)
        ws = windows[os.path.basename(e["file"])]
        get = lambda k: np.array([w[k] for w in ws])
        held = (get("body_sway") >= 0.15) & (get("r_stride") >= 0.75)
        steady = (get("r_stride") >= 0.85) & (get("along_share") >= 0.45)
        print(f"| {os.path.basename(e['file'])[:-4]} | {len(strong) / minutes:.0f} / {len(weak) / minutes:.0f} "
              f"({np.median(weak):.2f}) | {len(weak_along) / minutes:.0f} | {cadence(along):.0f} / "
              f"{cadence(across):.0f} | {held.mean():.2f} / {steady.mean():.2f} / "
              f"{(get('probability') >= 0.7).mean():.2f} | {np.median(get('along_share')):.2f} / "
              f"{np.median(get('arm_swing')):.2f} / {np.median(get('body_sway')):.2f} / "
              f"{np.median(get('r_stride')):.2f} |")


if __name__ == "__main__":
    main()
