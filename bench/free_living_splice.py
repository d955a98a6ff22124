#!/usr/bin/env python3
"""Free-living-like streams spliced from real recordings (issue #47: short bouts and pottering), counted by the real
detector, out of dataset (`steptweet eval --leave-out`) and in sample.

../shared has no free-living recording with every step annotated. This builds streams that look like one from the
recordings it has, each from one device and one rate, and measures what the judge's half hour measures: how many
steps of short and slow bouts count, and how many false steps the minutes between them make.

- `bout` streams: 30 s of real non-walking, one bout of 4-20 steps cut from a counted walk, 30 s of non-walking.
- `potter` streams: 30 s of non-walking, then 4 bouts of 4-10 steps with 2-6 s of non-walking between them, 30 s.
- `tug` streams: a whole timed-up-and-go run between 30 s of its own seated start (no truth: counted per run).
- each stream has a twin with the bouts taken out (the same non-walking samples, the same splices): its count is the
  stream's false steps, and the stream's count minus its twin's is what its bouts counted.

Sources (same device and rate within a stream):
- Bangle.js (12.5 Hz, 3 axes): bouts from the 13 counted walks (`100*`, `150*`), rest from desk work
  (`0_HughB-work-0`, 57 min, 0 steps) and standing (`0_HughB-static`).
- WISDM (20 Hz, 3 axes): each person's walk, rest from the same person's sitting, standing, typing and writing.
- SensorWatch (12.5 and 25 Hz, |a| only): the slow, normal and fast walks, rest from PC work of the same rate.

The reference for a bout: the steps the detector counts in the whole walk inside the cut (in a long steady walk it
finds nearly all; scaled by truth / counted for the files with a count), so a cut starts and ends halfway between
two steps and its reference is what the context loses. The SensorWatch slow walks count nothing in a whole walk, so
there the reference is the file's cadence times the cut's length.

Splice edges (the limits): each spliced segment is rotated so its first second's gravity matches the last second of
the segment before (|a| and the axis features do not depend on rotation) and a vector offset that closes the gap
decays over 1 s; a real bout starts by standing up or turning, which a cut from the middle of a walk does not show,
so these bouts are easier than real ones at their starts and harder at their ends (no slowing down). The reference
inherits what the detector misses inside a steady walk. Cadence bands are those of the cut (the walk it comes from),
not of a 10 s stretch as the judge's; WISDM walks have no count, so their reference is the detector's own.

    swift build -c release --product steptweet
    python3 bench/free_living_splice.py [--binary B] [--set KEY=JSON ...] > bench/free_living_splice_result.md
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import detector_arguments, overridden, overrides_of  # noqa: E402

BOUT_LENGTHS = (4, 6, 8, 12, 20)
REST_S = 30.0
FADE_S = 1.0


def read(path):
    """(t in seconds, samples n x 3 or n x 1)."""
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return a[:, 0] / 1000.0, a[:, 1:]


def rotation(src, dst):
    """The rotation taking direction src to direction dst (Rodrigues)."""
    a, b = src / np.linalg.norm(src), dst / np.linalg.norm(dst)
    v, c = np.cross(a, b), float(np.dot(a, b))
    if c < -0.999999:
        axis = np.cross(a, [1.0, 0, 0]) if abs(a[0]) < 0.9 else np.cross(a, [0, 1.0, 0])
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k / (1 + c)


class Stream:
    """Segments spliced one after another at the source's sampling interval."""

    def __init__(self, dt):
        self.dt, self.t, self.v = dt, [], []

    def add(self, t, v):
        t = t - t[0]
        if self.v:
            last = self.v[-1]
            if v.shape[1] == 3:
                n_end, n_start = max(1, int(1.0 / self.dt)), max(1, int(1.0 / self.dt))
                v = v @ rotation(v[:n_start].mean(0), last[-n_end:].mean(0)).T
            gap = last[-1] - v[0]
            v = v + np.outer(np.clip(1 - t / FADE_S, 0, 1), gap)
            t = t + self.t[-1][-1] + self.dt
        self.t.append(t)
        self.v.append(v)
        return t[0], t[-1]

    def write(self, path):
        t, v = np.concatenate(self.t), np.concatenate(self.v)
        header = "t_ms,x,y,z" if v.shape[1] == 3 else "t_ms,magnitude"
        np.savetxt(path, np.column_stack([np.round(t * 1000), v]), delimiter=",", header=header, comments="",
                   fmt=["%d"] + ["%.4f"] * v.shape[1])
        return float(t[-1] - t[0])


def step_times(binary, path):
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        subprocess.run([binary, "count", "--step-times", f.name, path], check=True, capture_output=True)
        ns = np.array([float(x) for x in open(f.name).read().split()])
    return ns / 1e9


class Walk:
    """A counted walk: its samples and the reference step times (s from its first sample)."""

    def __init__(self, binary, path, truth=None):
        self.name = os.path.basename(path)[:-4]
        self.t, self.v = read(path)
        t0 = self.t[0]
        self.steps, self.scale = step_times(binary, path) - t0, 1.0
        if truth is not None:
            # The detector's steps are the reference only where the whole walk counts within 15 % of its truth.
            found = len(self.steps)
            self.steps, self.scale = (self.steps, truth / found) if abs(found - truth) <= 0.15 * truth else (None, 1.0)
        self.cadence = truth / (self.t[-1] - self.t[0]) if truth else None
        self.t = self.t - t0

    def cuts(self, n, rng, count):
        """`count` cuts of n reference steps (from halfway before the first to halfway after the last)."""
        out = []
        s = self.steps
        if s is not None and len(s) >= n + 12:
            lo, hi = 5, len(s) - n - 6
            for k in rng.integers(lo, hi, count):
                a, b = (s[k - 1] + s[k]) / 2, (s[k + n - 1] + s[k + n]) / 2
                out.append((a, b, n * self.scale, 60 * (n - 1) / (s[k + n - 1] - s[k])))
        elif self.cadence:
            length = n / self.cadence
            for a in rng.uniform(5, self.t[-1] - length - 5, count):
                out.append((a, a + length, float(n), 60 * self.cadence))
        return out

    def segment(self, a, b):
        """The samples of a cut and its reference steps (None without per-step reference)."""
        m = (self.t >= a) & (self.t < b)
        ref = None if self.steps is None else self.steps[(self.steps >= a) & (self.steps < b)]
        return self.t[m], self.v[m], ref


def rest_piece(rests, seconds, rng):
    t, v = rests[rng.integers(len(rests))]
    start = rng.uniform(0, max(t[-1] - seconds, 0))
    m = (t >= start) & (t < start + seconds)
    return t[m], v[m]


def build(source, walks, rests, dt, work, rng, entries):
    """Writes bout and potter streams (and twins) of one source into work/<dataset>/, appending manifest rows."""
    folder = os.path.join(work, source["dataset"])
    os.makedirs(folder, exist_ok=True)
    kind_rows = []

    def emit(name, parts, truth, meta):
        full, twin = Stream(dt), Stream(dt)
        placed = []
        for kind, (t, v), ref in parts:
            start, _ = full.add(t, v)
            if kind == "bout" and ref is not None:
                placed += [float(start + r - t[0]) for r in ref]
            if kind == "rest":
                twin.add(t, v)
        for suffix, stream in (("", full), ("_rest", twin)):
            rel = f"{source['dataset']}/{source['key']}_{name}{suffix}.csv"
            duration = stream.write(os.path.join(work, rel))
            entries.append({"file": rel, "truth_steps": "0" if suffix else str(round(truth)), "duration": duration})
        kind_rows.append(dict(meta, name=f"{source['key']}_{name}", truth=truth, placed=placed))

    for w in walks:
        for n in BOUT_LENGTHS:
            for i, (a, b, truth, cadence) in enumerate(w.cuts(n, rng, source["cuts"])):
                t, v, ref = w.segment(a, b)
                parts = [("rest", rest_piece(rests, REST_S, rng), None), ("bout", (t, v), ref),
                         ("rest", rest_piece(rests, REST_S, rng), None)]
                emit(f"{w.name}_b{n}_{i}", parts, truth, {"kind": "bout", "steps": n, "cadence": cadence})
        for i in range(source["potters"]):
            parts, truth, cadences = [("rest", rest_piece(rests, REST_S, rng), None)], 0.0, []
            for j in range(4):
                cut = w.cuts(int(rng.integers(4, 11)), rng, 1)
                if not cut:
                    break
                a, b, steps, cadence = cut[0]
                t, v, ref = w.segment(a, b)
                parts.append(("bout", (t, v), ref))
                parts.append(("rest", rest_piece(rests, REST_S if j == 3 else rng.uniform(2, 6), rng), None))
                truth += steps
                cadences.append(cadence)
            if cadences:
                emit(f"{w.name}_p{i}", parts, truth, {"kind": "potter", "steps": 0, "cadence": np.mean(cadences)})
    return kind_rows


def sources(shared, binary):
    steps_dir = os.path.join(shared, "data", "steps")
    act_dir = os.path.join(shared, "data", "activities")
    truth = {r["file"]: r for r in csv.DictReader(open(os.path.join(steps_dir, "manifest.csv")))}
    bangle = [f for f in truth if f.startswith("bangle_wrist/1") and int(truth[f]["truth_steps"]) in (100, 150)]
    yield ({"dataset": "bangle_wrist", "key": "bangle", "cuts": 3, "potters": 2},
           [Walk(binary, os.path.join(steps_dir, f), int(truth[f]["truth_steps"])) for f in sorted(bangle)],
           [read(os.path.join(steps_dir, "bangle_wrist", f)) for f in ("0_HughB-work-0.csv", "0_HughB-static.csv")],
           0.08)
    for rate, dt in (("12hz", 0.082), ("25hz", 0.0415)):
        walks = [f for f in truth if f.startswith(f"wrist_watch/{rate}") and "walking" in f]
        rest = [f for f in truth if f.startswith(f"wrist_watch/{rate}_pc")]
        yield ({"dataset": "wrist_watch", "key": f"sw{rate}", "cuts": 3, "potters": 2},
               [Walk(binary, os.path.join(steps_dir, f), int(truth[f]["truth_steps"])) for f in sorted(walks)],
               [read(os.path.join(steps_dir, f)) for f in sorted(rest)], dt)
    acts = list(csv.DictReader(open(os.path.join(act_dir, "manifest.csv"))))
    by_subject = collections.defaultdict(dict)
    for r in acts:
        if r["file"].startswith("wisdm_watch/"):
            by_subject[r["subject"]][r["activity"]] = r["file"]
    for subject, files in sorted(by_subject.items()):
        if "walking" not in files:
            continue
        rest = [read(os.path.join(act_dir, files[a])) for a in ("sitting", "standing", "typing", "writing") if a in files]
        walk = Walk(binary, os.path.join(act_dir, files["walking"]))
        yield ({"dataset": "wisdm_watch", "key": f"w{subject}", "cuts": 1, "potters": 1}, [walk], rest, 0.05)


def tug_streams(shared, work, entries, rng):
    act_dir = os.path.join(shared, "data", "activities")
    os.makedirs(os.path.join(work, "tug_wrist"), exist_ok=True)
    rows = []
    for r in csv.DictReader(open(os.path.join(act_dir, "manifest.csv"))):
        if not r["file"].startswith("tug_wrist/"):
            continue
        t, v = read(os.path.join(act_dir, r["file"]))
        # Sitting: the mean of the run's own first half second (seated) with noise of its spread, per axis.
        seated = v[(t - t[0]) < 0.5]
        pad_t = np.arange(0, REST_S, 0.0096)
        pad = (pad_t, seated.mean(0) + rng.normal(0, 1, (len(pad_t), 3)) * seated.std(0))
        name = os.path.basename(r["file"])[:-4]
        for suffix, parts in (("", [pad, (t, v), pad]), ("_rest", [pad, pad])):
            s = Stream(0.0096)
            for p in parts:
                s.add(*p)
            rel = f"tug_wrist/{name}{suffix}.csv"
            entries.append({"file": rel, "truth_steps": "0" if suffix else "", "duration": s.write(
                os.path.join(work, rel))})
        rows.append({"kind": "tug", "name": name, "steps": 0, "cadence": 0, "truth": None})
    return rows


def count(binary, work, entries, models, overrides, leave_out):
    manifest = os.path.join(work, "manifest.csv")
    with open(manifest, "w") as f:
        f.write("file,truth_steps\n" + "".join(f"{e['file']},{e['truth_steps']}\n" for e in entries))
    counts = {}
    datasets = sorted({e["file"].split("/")[0] for e in entries})
    for d in datasets:
        args = [binary, "eval", "--json"]
        if leave_out:
            params = overridden(json.load(open(os.path.join(models, f"{d}.json"))), overrides)
            os.makedirs(os.path.join(work, "models"), exist_ok=True)
            json.dump(params, open(os.path.join(work, "models", f"{d}.json"), "w"))
            args += ["--leave-out", d, "--models", os.path.join(work, "models")]
        elif overrides:
            model = json.load(open(os.path.join(ROOT, "bench", "walking_model.json")))
            gates = json.load(open(os.path.join(models, "wisdm_watch.json")))["recognizer"]
            base = {"recognizer": dict(gates, model=model["model"], enter=0.7, stay=model["stay"])}
            path = os.path.join(work, "in_sample.json")
            json.dump(overridden(base, overrides), open(path, "w"))
            args += ["--parameters", path]
        out = subprocess.run(args + [manifest], check=True, capture_output=True, text=True).stdout
        counts.update({f["file"]: f["counted"] for f in json.loads(out)["files"]})
        if not leave_out:
            break  # one pass over the whole manifest
    return counts


def report(rows, entries, counts, title):
    by_name = {}
    for e in entries:
        name = os.path.basename(e["file"])[:-4]
        by_name[name] = (counts[e["file"]], e["duration"], e["file"].split("/")[0])
    print(f"### {title}\n")
    print("| source | kind | bout steps | cadence | streams | reference steps | counted in bouts | recall |")
    print("|---|---|---|---|---|---|---|---|")
    groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in rows:
        if r["kind"] == "tug":
            continue
        full, rest = by_name[r["name"]][0], by_name[r["name"] + "_rest"][0]
        band = "< 100" if r["cadence"] < 100 else ">= 100"
        src = r["name"].split("_")[0]
        src = "bangle" if src == "bangle" else ("sensorwatch" if src.startswith("sw") else "wisdm")
        for key in ((src, r["kind"], r["steps"], band), ("all", r["kind"], r["steps"], band),
                    ("all", r["kind"], "any", band), ("all", "any", "any", band)):
            g = groups[key]
            g[0] += 1
            g[1] += r["truth"]
            g[2] += full - rest
    for key in sorted(groups, key=lambda k: (k[0] == "all", k[0], k[1], str(k[2]), k[3])):
        n, truth, got = groups[key]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {n} | {truth:.0f} | {got:.0f} | "
              f"{100 * got / max(truth, 1e-9):.1f} % |")
    tug = [(by_name[r["name"]][0] - by_name[r["name"] + "_rest"][0]) for r in rows if r["kind"] == "tug"]
    if tug:
        print(f"\n- TUG runs between 30 s of their own seated start: median {np.median(tug):.0f} steps per run, "
              f"{sum(n >= 6 for n in tug)} of {len(tug)} >= 6, {sum(n <= 0 for n in tug)} at 0")
    rest = collections.defaultdict(lambda: [0, 0.0])
    for name, (n, duration, dataset) in by_name.items():
        if name.endswith("_rest"):
            rest[dataset][0] += n
            rest[dataset][1] += duration / 3600
    print("- false steps in the non-walking parts (the twins): " + ", ".join(
        f"{d} {n} in {h:.2f} h ({n / h:.1f}/h)" for d, (n, h) in sorted(rest.items())))
    print()


def arguments(doc, keep):
    """The command line of this script and of those that build its streams (bout_misses.py): `keep` says what
    `--keep` writes."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap)
    ap.add_argument("--reference-binary", help="the binary whose whole-walk steps are the reference (default: --binary)")
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--keep", help=f"write {keep} here instead of a temporary folder")
    return ap.parse_args()


def main():
    args = arguments(__doc__, "the streams and manifest")
    overrides = overrides_of(args)
    rng = np.random.default_rng(args.seed)
    reference = args.reference_binary or args.binary
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        entries, rows = [], []
        for source, walks, rests, dt in sources(args.shared, reference):
            rows += build(source, walks, rests, dt, work, rng, entries)
        rows += tug_streams(args.shared, work, entries, rng)
        if args.keep:
            json.dump(rows, open(os.path.join(work, "rows.json"), "w"), default=float)
        print(f"## Spliced free-living streams (seed {args.seed}" + (f"; {', '.join(args.set)}" if args.set else "")
              + f"): {len(rows)} streams and their twins, {sum(e['duration'] for e in entries) / 3600:.1f} h\n")
        for leave_out, title in ((True, "Out of dataset (each source counted by the model trained without it)"),
                                 (False, "In sample (the shipped model)")):
            report(rows, entries, count(args.binary, work, entries, args.models, overrides, leave_out), title)


if __name__ == "__main__":
    main()
