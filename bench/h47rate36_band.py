#!/usr/bin/env python3
"""Is it the 12.5 Hz rate or the sensor's band? (issue #47, h47rate36). Three measurements, out of dataset:

- `copies`: every WISDM walking and stairs recording as copies at a (rate, band) pair: `cheap_sensor_eval.py`'s
  windowed-sinc low-pass at the band, then its samples at the rate. Counted by `eval --leave-out wisdm_watch`; the
  strong and weak peaks (candidate steps) by `fold_trace` (bench/fold_paths.py's traced copy of the detector).
  Two copies with the same band and different rates separate the rate from the band.
- `splice`: `free_living_splice.py` with every WISDM recording made such a copy (recall of its bouts).
- `bangle`: each reference step of the spliced Bangle.js bouts of 12 and 20 steps, by the walk it was cut from and
  the cadence band: counted, refused (a candidate the walking gate refused), a weak peak only, a strong peak that
  counted nothing, or no peak within 0.2 s.

    swift build -c release --product steptweet
    python3 bench/h47rate36_band.py [--binary B] [copies] [splice] [bangle] > bench/h47rate36_band_result.md
"""
import argparse, collections, csv, inspect, json, os, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cheap_sensor_eval  # noqa: E402
import fold_paths  # noqa: E402
import free_living_splice as fls  # noqa: E402
from bout_eval import ROOT  # noqa: E402

# (rate Hz, band Hz); None: the recording as it is (WISDM: 20 Hz)
COPIES = [None, (19, 7.6), (19, 5.0), (25, 5.0), (12.5, 5.0)]
SPLICES = [(12.5, 5.0), (19, 7.6), (19, 5.0)]


def band_limited(hz, band):
    """`cheap_sensor_eval.band_limited` with its cut-off at `band` instead of 0.4 `hz` (its window's transition
    scaled alike)."""
    source = inspect.getsource(cheap_sensor_eval.band_limited)
    source = source.replace("cutoff = 0.4 * hz * dt / 1000", f"cutoff = {band} * dt / 1000")
    source = source.replace("0.1 * hz * dt", f"{band / 4} * dt")
    space = {"np": np}
    exec(source, space)
    return lambda data: space["band_limited"](data, hz)


def write_csv(path, data):
    np.savetxt(path, np.column_stack([np.round(data[:, 0]), data[:, 1:]]), delimiter=",", header="t_ms,x,y,z",
               comments="", fmt=["%d"] + ["%.5f"] * 3)


def copies(args, tracer, work):
    act = os.path.join(args.shared, "data", "activities")
    rows = [r for r in csv.DictReader(open(os.path.join(act, "manifest.csv")))
            if r["file"].startswith("wisdm_watch/") and r["activity"] in ("walking", "stairs")]
    params = os.path.join(args.models, "wisdm_watch.json")
    print("## WISDM walking and stairs copies, out of dataset\n")
    print("| copy | activity | steps/min median | least | steps | strong peaks | weak peaks |")
    print("|---|---|---|---|---|---|---|")
    for variant in COPIES:
        name = "as recorded" if variant is None else f"{variant[0]:g} Hz, band {variant[1]:g} Hz"
        folder = os.path.join(work, "copies", name.replace(" ", "_").replace(",", ""))
        os.makedirs(os.path.join(folder, "wisdm_watch"), exist_ok=True)
        with open(os.path.join(folder, "manifest.csv"), "w") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        for r in rows:
            data = np.loadtxt(os.path.join(act, r["file"]), delimiter=",", skiprows=1)
            write_csv(os.path.join(folder, r["file"]), data if variant is None else band_limited(*variant)(data))
        out = subprocess.run([args.binary, "eval", "--json", "--leave-out", "wisdm_watch", "--models", args.models,
                              os.path.join(folder, "manifest.csv")], check=True, capture_output=True, text=True)
        counted = {f["file"]: (f["counted"], f["duration_s"]) for f in json.loads(out.stdout)["files"]}
        for activity in ("walking", "stairs"):
            files = [r["file"] for r in rows if r["activity"] == activity]
            per_min = [60 * counted[f][0] / counted[f][1] for f in files]
            traces = subprocess.run([tracer, params] + [os.path.join(folder, f) for f in files], check=True,
                                    capture_output=True, text=True).stdout.splitlines()
            strong = sum(len(json.loads(t)["strong"]) for t in traces)
            weak = sum(len(json.loads(t)["weak"]) for t in traces)
            print(f"| {name} | {activity} ({len(files)}) | {np.median(per_min):.1f} | {min(per_min):.0f} | "
                  f"{sum(counted[f][0] for f in files)} | {strong} | {weak} |")
    print()


def splice(args):
    """free_living_splice.py's report with WISDM's recordings as copies, one run per (rate, band)."""
    for hz, band in SPLICES:
        read, sources = fls.read, fls.sources
        copy = band_limited(hz, band)

        def copied_read(path):
            t, v = read(path)
            if "wisdm_watch" not in path:
                return t, v
            d = copy(np.column_stack([t * 1000, v]))
            if len(d) < 0.8 * (t[-1] - t[0]) * hz:  # irregular times (a few non-walking files): plain interpolation
                tn = np.arange(t[0], t[-1], 1 / hz)
                return tn, np.column_stack([np.interp(tn, t, v[:, c]) for c in range(v.shape[1])])
            return d[:, 0] / 1000, d[:, 1:]

        def copied_sources(shared, binary):
            for s, walks, rests, dt in sources(shared, binary):
                yield s, walks, rests, (1 / hz if s["dataset"] == "wisdm_watch" else dt)

        fls.read, fls.sources = copied_read, copied_sources
        try:
            print(f"## Spliced streams with WISDM at {hz:g} Hz, band {band:g} Hz\n")
            sys.argv = [sys.argv[0], "--binary", args.binary, "--shared", args.shared, "--models", args.models]
            fls.main()
        finally:
            fls.read, fls.sources = read, sources


def bangle(args, tracer, work):
    keep = os.path.join(work, "splice")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "free_living_splice.py"), "--binary", args.binary,
                    "--shared", args.shared, "--models", args.models, "--keep", keep], check=True,
                   capture_output=True)
    rows = [r for r in json.load(open(os.path.join(keep, "rows.json")))
            if r["name"].startswith("bangle") and r["kind"] == "bout" and r["steps"] in (12, 20)]
    files = [os.path.join(keep, "bangle_wrist", r["name"] + ".csv") for r in rows]
    params = os.path.join(keep, "models", "bangle_wrist.json")
    traces = [json.loads(t) for t in subprocess.run([tracer, params] + files, check=True, capture_output=True,
                                                    text=True).stdout.splitlines()]
    kinds = ("counted", "refused", "weak peak only", "strong peak, not counted", "no peak")
    table = collections.defaultdict(collections.Counter)
    for r, path, t in zip(rows, files, traces):
        t0 = float(open(path).readlines()[1].split(",")[0]) / 1000
        found = {k: np.array(t[k]) - t0 for k in ("refused", "strong", "weak")}
        found["steps"] = np.array([s[0] for s in t["steps"]]) - t0
        band = "< 100" if r["cadence"] < 100 else ">= 100"
        walk = r["name"].split("_b")[0].removeprefix("bangle_")
        for p in r["placed"]:
            near = [len(found[k]) > 0 and np.min(np.abs(found[k] - p)) < 0.2
                    for k in ("steps", "refused", "weak", "strong")]
            kind = (kinds[0] if near[0] else kinds[1] if near[1] else kinds[3] if near[3] else kinds[2] if near[2]
                    else kinds[4])
            table[(band, walk)][kind] += 1
    print("## Bangle.js bouts of 12 and 20 steps: each reference step, out of dataset\n")
    print("| cadence | walk | reference steps | " + " | ".join(kinds) + " |\n|---|---|---|" + "---|" * len(kinds))
    for key in sorted(table):
        c = table[key]
        n = sum(c.values())
        print(f"| {key[0]} | {key[1]} | {n} | " + " | ".join(f"{c[k]} ({100 * c[k] / n:.0f} %)" for k in kinds) + " |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    fls.detector_arguments(ap, overrides=False)
    ap.add_argument("parts", nargs="*", default=["copies", "splice", "bangle"])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        tracer = fold_paths.build_tracer(work) if {"copies", "bangle"} & set(args.parts) else None
        if "copies" in args.parts:
            copies(args, tracer, work)
        if "bangle" in args.parts:
            bangle(args, tracer, work)
        if "splice" in args.parts:
            splice(args)


if __name__ == "__main__":
    main()
