#!/usr/bin/env python3
"""h47rate: the 205 timed-up-and-go runs of ../shared (wrist, ~104 Hz) counted at their native rate and as copies
resampled to lower rates (`rate_sweep.resample`: each axis averaged over one target period, padded with the end
values, then interpolated), out of dataset (`eval --leave-out tug_wrist`, the model trained without the TUG set).

  python3 bench/tug_rate.py [--binary .build/release/steptweet] [--models bench/leave_out] [--rates 50,25,12.5]

A detector whose features do not depend on the sample rate counts a run and its copies alike (the copies lose only
what the averaging removes above the target rate). Prints per rate the runs counting >= 6 steps, the median and the
total, and how many runs count fewer or more steps at the native rate than their 25 Hz copy. Needs numpy.
"""
import argparse, csv, json, os, statistics, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rate_sweep import resample  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def counts(binary, models, manifest):
    out = subprocess.run([binary, "eval", "--json", "--leave-out", "tug_wrist", "--models", models, manifest],
                         check=True, capture_output=True, text=True).stdout
    return {os.path.basename(f["file"]): f["counted"] for f in json.loads(out)["files"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--models", default=os.path.join(ROOT, "bench", "leave_out"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--rates", default="50,25,12.5")
    a = ap.parse_args()
    source = os.path.join(a.shared, "data", "activities")
    with open(os.path.join(source, "manifest.csv")) as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, [r for r in reader if r["file"].startswith("tug_wrist/")]
    by_rate = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rate in ["native"] + [float(r) for r in a.rates.split(",")]:
            manifest = os.path.join(tmp, str(rate), "manifest.csv")
            folder = os.path.join(tmp, str(rate), "tug_wrist")  # `--leave-out` knows a data set by its folder
            os.makedirs(folder)
            with open(manifest, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=fields)
                w.writeheader()
                for r in rows:
                    name = os.path.basename(r["file"])
                    src = os.path.join(source, r["file"])
                    if rate == "native":
                        os.symlink(src, os.path.join(folder, name))
                    else:
                        data = np.genfromtxt(src, delimiter=",", skip_header=1)
                        np.savetxt(os.path.join(folder, name), resample(data, rate, 0.0), delimiter=",",
                                   fmt=["%.3f", "%.5f", "%.5f", "%.5f"], header="t_ms,x,y,z", comments="")
                    w.writerow(r)
            by_rate[rate] = counts(a.binary, a.models, manifest)
    print("| rate | runs >= 6 | median | total steps | at 0 |")
    print("|---|---|---|---|---|")
    for rate, c in by_rate.items():
        v = list(c.values())
        print("| %s | %d of %d | %g | %d | %d |" % (rate if rate == "native" else "%g Hz" % rate,
                                                   sum(x >= 6 for x in v), len(v), statistics.median(v), sum(v),
                                                   sum(x == 0 for x in v)))
    native = by_rate["native"]
    for rate in by_rate:
        if rate == "native":
            continue
        copy = by_rate[rate]
        fewer = sorted(n for n in native if native[n] < copy[n])
        more = sorted(n for n in native if native[n] > copy[n])
        print("\nnative vs %g Hz copy: %d runs count fewer at the native rate, %d more, %d the same" %
              (rate, len(fewer), len(more), len(native) - len(fewer) - len(more)))
        if fewer:
            print("  fewer: " + ", ".join("%s %d<%d" % (n, native[n], copy[n]) for n in fewer))
        if more:
            print("  more: " + ", ".join("%s %d>%d" % (n, native[n], copy[n]) for n in more))


if __name__ == "__main__":
    sys.exit(main())
