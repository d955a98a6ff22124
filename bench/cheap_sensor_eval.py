#!/usr/bin/env python3
"""Every recording `bout_eval.py` counts, as a cheaper sensor would give it, counted out of dataset and in sample.

Issue #47's judge measures brushing teeth and combing hair on a cheap wrist sensor (32 Hz, 6 bits, ±1.5 g) and a
free-living half hour on an AX3 (100 Hz, ±8 g, 13 bits). `scripts/train_walking.py` only trains on degraded copies;
this counts the held-out data so. For each fixed sensor profile, every recording of the two shared manifests gets one
deterministic copy: resampled to the profile's rate when its own is higher (a Blackman-windowed sinc low-pass at 0.4 ×
the new rate, under its Nyquist, then linear interpolation; none across a gap; all-zero samples, a logger's missing
values, first held as the detector holds them: `zeros_held`), else kept at its own rate; each axis clipped at ±range
and quantised to `bits` over it (`train_walking.as_sensor`, as its `degraded` does); magnitude-only files
(`t_ms,magnitude`) get the rate and the quantisation of |a| only. Optional white noise
(`--noise-g`, seeded by the profile and the file's name; 0 by default: each recording keeps its own sensor's noise).
The copies are counted by the release binary with bout_eval.py's functions (same leave-out models, same rows), and
each table is printed beside the clean figures.

    swift build -c release --product steptweet
    python3 bench/cheap_sensor_eval.py [--profiles cheap32,cheap12,ax3] [--set KEY=JSON] [--work DIR] \\
        > bench/cheap_sensor_eval_result.md
"""
import argparse, collections, json, os, sys, tempfile, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from bout_eval import (ROOT, bout_figures, detector_arguments, entries, in_sample_counts,  # noqa: E402
                       out_of_dataset_counts, overrides_of)
from train_walking import G, as_sensor, dataset_of, out_of_dataset  # noqa: E402

# name: (rate Hz, range ±g, bits, what it stands for)
PROFILES = {
    "cheap32": (32.0, 1.5, 6, "the judge's brushing/combing sensor: 32 Hz, ±1.5 g, 6 bits (step 3 g / 64 = 0.46 m/s²)"),
    "cheap12": (12.5, 2.0, 8, "12.5 Hz, ±2 g, 8 bits (step 0.15 m/s²)"),
    "ax3": (100.0, 8.0, 13, "an AX3: 100 Hz, ±8 g, 13 bits (step 0.019 m/s²; nearly clean, a control)"),
}
KEEP_WITHIN = 1.05  # a recording at most this much faster than the profile's rate keeps its own rate and samples
ZERO_HOLD_MS = 2000  # `DetectorParameters.zeroHoldSeconds`: an all-zero sample repeats the one before it


def own_rate(t_ms):
    return (len(t_ms) - 1) / ((t_ms[-1] - t_ms[0]) / 1000)


def band_limited(data, hz):
    """`data` (t_ms, then value columns) at `hz`: onto a uniform grid at its own median interval, a Blackman-windowed
    sinc low-pass at 0.4 `hz` (ends padded with their own values), then linear interpolation at `hz`. No new sample
    lies in a gap of more than three median intervals."""
    t = data[:, 0]
    dt = float(np.median(np.diff(t)))
    grid = np.arange(t[0], t[-1] + dt / 2, dt)
    values = np.stack([np.interp(grid, t, data[:, c]) for c in range(1, data.shape[1])], 1)
    cutoff = 0.4 * hz * dt / 1000  # cycles per sample of the grid
    half = int(np.ceil(2.75 / (0.1 * hz * dt / 1000)))  # a Blackman window's transition: 5.5 / taps
    n = np.arange(-half, half + 1)
    kernel = 2 * cutoff * np.sinc(2 * cutoff * n) * np.blackman(2 * half + 1)
    kernel /= kernel.sum()
    smooth = np.stack([np.convolve(np.pad(values[:, c], half, mode="edge"), kernel, mode="valid")
                       for c in range(values.shape[1])], 1)
    tn = np.arange(t[0], t[-1], 1000 / hz)
    after = np.clip(np.searchsorted(t, tn), 1, len(t) - 1)
    tn = tn[t[after] - t[after - 1] <= 3 * dt]
    return np.column_stack([tn] + [np.interp(tn, grid, smooth[:, c]) for c in range(smooth.shape[1])])


def zeros_held(data, hold_ms=ZERO_HOLD_MS):
    """`data` with its all-zero samples (a logger's missing values) read as the detector reads them (ZeroHold.swift):
    each repeats the valid sample before it while at most `hold_ms` past it; later ones and those before any valid
    sample are dropped (a gap). A low-pass through them would smear each run of zeros into a dip of |a| that the
    original never showed the detector (h47rate36: 10 DSADS files hold 1 s of zeros every 5 s)."""
    zero = ~data[:, 1:].any(axis=1)
    if not zero.any():
        return data
    valid = np.where(~zero, np.arange(len(data)), -1)
    last = np.maximum.accumulate(valid)  # the latest valid sample at or before each one
    keep = (last >= 0) & (data[:, 0] - data[np.maximum(last, 0), 0] <= hold_ms)
    out = data.copy()
    out[:, 1:] = data[np.maximum(last, 0), 1:]
    return out[keep]


def sensor_copy(data, profile, rng, noise_g):
    """The recording as the profile's sensor gives it; and whether it was resampled."""
    hz, range_g, bits, _ = PROFILES[profile]
    resample = own_rate(data[:, 0]) > hz * KEEP_WITHIN
    if resample:
        data = band_limited(zeros_held(data), hz)
    values = data[:, 1:]
    if noise_g:
        values = values + rng.normal(0, noise_g * G, values.shape)
    return np.column_stack([data[:, 0], as_sensor(values, range_g * G, bits)]), resample


def write_copies(es, shared, profiles, work, noise_g):
    """Each profile's copies under `work/PROFILE/data/{steps,activities}/`, with a copy of each manifest (reused when
    `work/PROFILE/stamp.json` says the same profile, noise and script wrote them). Returns {profile: {manifest: copy}}
    and the files kept at their own rate, per profile and data set (with their rates)."""
    stamp = lambda p: {"profile": PROFILES[p][:3], "noise_g": noise_g, "version": 2}
    todo = [p for p in profiles if not _stamped(work, p, stamp(p))]
    kept = {p: collections.defaultdict(list) for p in profiles}
    manifests = {p: {} for p in profiles}
    for e in es:
        source = os.path.join(os.path.dirname(e["manifest"]), e["file"])
        name = os.path.basename(os.path.dirname(e["manifest"]))
        with open(source) as fh:
            header = fh.readline().strip()
            data = np.loadtxt(fh, delimiter=",", ndmin=2)
        for p in profiles:
            manifests[p][e["manifest"]] = os.path.join(work, p, "data", name, "manifest.csv")
            if own_rate(data[:, 0]) <= PROFILES[p][0] * KEEP_WITHIN:
                kept[p][dataset_of(e)].append(own_rate(data[:, 0]))
            if p not in todo:
                continue
            rng = np.random.default_rng([zlib.crc32(p.encode()), zlib.crc32(e["file"].encode())])
            copy, _ = sensor_copy(data, p, rng, noise_g)
            path = os.path.join(work, p, "data", name, e["file"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            np.savetxt(path, copy, delimiter=",", header=header, comments="", fmt=["%.3f"] + ["%.6f"] * (copy.shape[1] - 1))
    for p in todo:
        for manifest, copy in manifests[p].items():
            with open(manifest) as src, open(copy, "w") as dst:
                dst.write(src.read())
        json.dump(stamp(p), open(os.path.join(work, p, "stamp.json"), "w"))
    return manifests, kept


def _stamped(work, profile, stamp):
    path = os.path.join(work, profile, "stamp.json")
    return os.path.exists(path) and json.load(open(path)) == json.loads(json.dumps(stamp))


def side_by_side(es, columns):
    """bout_eval's table with one column per count set (`columns`: [(name, counts)]): the value, then the worst."""
    tables = [(name, out_of_dataset(es, counts)) for name, counts in columns]
    head = "| held out | measure | " + " | ".join(name for name, _ in tables) + " |"
    lines = [head, "|---|---|" + "---|" * len(tables)]
    for i, (d, m, _, _) in enumerate(tables[0][1][0]):
        cells = [f"{rows[i][2]}" + (f" (least: {rows[i][3]})" if rows[i][3] and "steps/min" in m else "")
                 for _, (rows, _) in tables]
        lines.append(f"| {d} | {m} | " + " | ".join(cells) + " |")
    lines.append("| every data set | non-walking, false steps/h pooled | "
                 + " | ".join(f"{pooled:.1f}" for _, (_, pooled) in tables) + " |")
    return "\n".join(lines)


def figures_side_by_side(es, columns):
    """bout_eval's bout figures (TUG, gait's least files, WISDM's hand activities), one line per count set."""
    out = []
    for name, counts in columns:
        out.append(f"**{name}**\n\n" + bout_figures(es, counts))
    return "\n\n".join(out)


def changed_files(es, columns, least=10):
    """The recordings whose count moves by at least `least` steps from the clean one in some profile."""
    clean = dict(columns)["clean"]
    lines = ["| file | truth | " + " | ".join(name for name, _ in columns) + " |", "|---|---|" + "---|" * len(columns)]
    for e in sorted(es, key=lambda e: e["file"]):
        counts = [c[e["file"]][0] for _, c in columns]
        if max(abs(n - clean[e["file"]][0]) for n in counts) >= least:
            truth = e["truth_steps"] or e.get("activity", "")
            lines.append(f"| {e['file']} | {truth} | " + " | ".join(str(n) for n in counts) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap)
    ap.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated: " + ", ".join(PROFILES))
    ap.add_argument("--profile", action="append", default=[], metavar="NAME=HZ,RANGE_G,BITS",
                    help="another profile (e.g. a rate or a quantisation alone, to tell which breaks a row)")
    ap.add_argument("--noise-g", type=float, default=0.0, help="white noise added before quantising (g; default 0)")
    ap.add_argument("--work", help="keep the copies here (and reuse them when the same profile wrote them)")
    ap.add_argument("--no-clean", action="store_true", help="count the copies only")
    ap.add_argument("--in-sample", action=argparse.BooleanOptionalAction, default=True, help="also in sample")
    ap.add_argument("--counts", help="also write every count set (JSON) here")
    args = ap.parse_args()
    for spec in args.profile:
        name, values = spec.split("=")
        hz, range_g, bits = values.split(",")
        PROFILES[name] = (float(hz), float(range_g), int(bits), f"{float(hz):g} Hz, ±{range_g} g, {bits} bits")
    profiles = [p for p in args.profiles.split(",") if p] + [s.split("=")[0] for s in args.profile]
    overrides = overrides_of(args)
    es = entries(args.shared)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or os.path.join(tmp, "copies")
        manifests, kept = write_copies(es, args.shared, profiles, work, args.noise_g)
        runs = [("clean", es)] * (not args.no_clean)
        runs += [(p, [dict(e, manifest=manifests[p][e["manifest"]]) for e in es]) for p in profiles]
        counts = {"out_of_dataset": [], "in_sample": []}
        for name, copies in runs:
            counts["out_of_dataset"].append((name, out_of_dataset_counts(args.binary, copies, args.models, overrides, tmp)))
            if args.in_sample:
                counts["in_sample"].append((name, in_sample_counts(args.binary, copies, overrides, tmp)))
    print("Profiles: " + "; ".join(f"`{p}` {PROFILES[p][3]}" for p in profiles) + ".")
    print(f"Noise added: {args.noise_g} g." + (f" Overrides: {', '.join(args.set)}." if args.set else ""))
    for p in profiles:
        at_own = ", ".join(f"{d} {len(r)} ({min(r):.1f}-{max(r):.1f} Hz)" for d, r in sorted(kept[p].items()))
        print(f"- `{p}`: kept at their own rate (not above {PROFILES[p][0]:g} Hz × {KEEP_WITHIN}): {at_own or 'none'}")
    print()
    for key, title in (("out_of_dataset", "Out of dataset"), ("in_sample", "In sample")):
        if counts[key]:
            print(f"## {title}\n\n" + side_by_side(es, counts[key]) + "\n\n" + figures_side_by_side(es, counts[key]) + "\n")
            if not args.no_clean:
                print(f"### {title}: recordings whose count moves by 10 steps or more\n\n"
                      + changed_files(es, counts[key]) + "\n")
    if args.counts:
        json.dump({k: dict(v) for k, v in counts.items()}, open(args.counts, "w"))


if __name__ == "__main__":
    main()
