#!/usr/bin/env python3
"""Why a 6-bit sensor loses the DSADS walks with a hand on a rail (issue #47, h47cheap): the held-arm path needs |a|
to repeat a stride later (`r_stride` ≥ `heldArmStride` 0.75), and rounding to 3 g / 64 dilutes that autocorrelation
as white noise of the same power does. For each recording: its windows' `r_stride` (`steptweet eval --features`,
the DSADS leave-out model) clean, as `cheap32` gives it (`cheap_sensor_eval.sensor_copy`), and clean plus white
noise of the rounding's power (LSB / √12 per axis); then each corrected for that noise's variance at the ticks
(measured on a still recording with the same noise): what a resolution-aware `r_stride` would give.

    swift build -c release --product steptweet
    python3 bench/cheap_sensor_held_arm.py [--binary B] >> bench/cheap_sensor_eval_result.md
"""
import argparse, collections, csv, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from cheap_sensor_eval import PROFILES, ROOT, sensor_copy  # noqa: E402
from train_walking import G  # noqa: E402

FILES = ("p5_stepper_2", "p1_walking-treadmill-4kmh_1", "p1_walking-treadmill-4kmh_2", "p2_walking-treadmill-4kmh_2")


def windows(binary, folder, copies):
    """{file: [(r_stride, variance)]} of every window `eval --features` writes for `copies` ({name: data})."""
    for name, data in copies.items():
        np.savetxt(os.path.join(folder, name), data, delimiter=",", header="t_ms,x,y,z", comments="", fmt="%.6f")
    manifest = os.path.join(folder, "manifest.csv")
    with open(manifest, "w") as fh:
        fh.write("file,truth_steps\n" + "".join(f"{name},\n" for name in copies))
    subprocess.run([binary, "eval", "--features", os.path.join(folder, "features"), "--json", "--parameters",
                    os.path.join(ROOT, "bench", "leave_out", "dsads_arm.json"), manifest], check=True, capture_output=True)
    out = collections.defaultdict(list)
    for w in csv.DictReader(open(os.path.join(folder, "features", "windows.csv"))):
        out[w["file"]].append((float(w["r_stride"]), np.exp(float(w["log_std"])) ** 2))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    args = ap.parse_args()
    hz, range_g, bits, _ = PROFILES["cheap32"]
    sigma = 2 * range_g * G / 2 ** bits / 12 ** 0.5
    rng = np.random.default_rng(47)
    copies = {}
    for f in FILES:
        data = np.loadtxt(os.path.join(args.shared, "data", "activities", "dsads_arm", f + ".csv"), delimiter=",",
                          skiprows=1)
        noisy = data.copy()
        noisy[:, 1:] += rng.normal(0, sigma, data[:, 1:].shape)
        copies.update({f"clean_{f}.csv": data, f"cheap32_{f}.csv": sensor_copy(data, "cheap32", None, 0)[0],
                       f"noise_{f}.csv": noisy})
    t = np.arange(0, 60000, 40.0)
    gravity = np.array([0.3, 0.5, 0.81]) / np.linalg.norm([0.3, 0.5, 0.81]) * G
    copies["still.csv"] = np.column_stack([t] + [gravity[i] + rng.normal(0, sigma, len(t)) for i in range(3)])
    with tempfile.TemporaryDirectory() as folder:
        ws = windows(args.binary, folder, copies)
    noise = float(np.median([v for _, v in ws["still.csv"]]))
    print(f"\n## The held-arm path's r_stride under 6-bit rounding (`bench/cheap_sensor_held_arm.py`)\n")
    print(f"Rounding noise LSB/√12 = {sigma:.3f} m/s² per axis; at the recognizer's ticks (25 Hz, a still recording "
          f"with that white noise) its variance is {noise:.4f} (std {noise ** 0.5:.3f} m/s²). Windows with r_stride "
          "≥ 0.75 (the held-arm bar's middle) and the median, raw and, for the two noisy copies, corrected (r · var / (var − noise)).\n")
    print("| recording | copy | windows | r_stride median | ≥ 0.75 | corrected median | corrected ≥ 0.75 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for f in FILES:
        for tag in ("clean", "cheap32", "noise"):
            r = np.array([x for x, _ in ws[f"{tag}_{f}.csv"]])
            v = np.array([x for _, x in ws[f"{tag}_{f}.csv"]])
            fixed = np.clip(r * v / np.maximum(v - noise, 1e-9), -1, 1)
            corrected = f"{np.median(fixed):.3f} | {np.mean(fixed >= 0.75):.2f}" if tag != "clean" else "- | -"
            print(f"| {f} | {tag} | {len(r)} | {np.median(r):.3f} | {np.mean(r >= 0.75):.2f} | {corrected} |")


if __name__ == "__main__":
    main()
