"""What the scripts that study the detector on ../shared share (oxford_errors.py, treadmill_candidates.py,
held_arm_windows.py, slow_walk_diagnosis.py): their arguments, `steptweet eval --features` read back, and numpy copies
of the detector's low-pass and peak tracker. The manifests' entries and `eval --json` read are bout_eval.py's.
"""
import argparse, collections, csv, json, math, os, subprocess, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bout_eval import run_eval  # noqa: E402  (`eval --json`, read)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments(doc):
    """The parser every study script starts from, its docstring as the help: `--binary` (the release build) and
    `--shared` (the data beside the package). A script adds its own arguments to it."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    return ap


def eval_features(binary, manifest, out, params=None):
    """`steptweet eval --features OUT` on `manifest`, with `params` (detector parameters as JSON) when given: the
    rhythm's step times by file ({file: [t_s]}, steps.csv) and every scored window's row (windows.csv, as text)."""
    args = [binary, "eval", "--json", "--features", out]
    if params is not None:
        path = out + ".parameters.json"
        with open(path, "w") as f:
            json.dump(params, f)
        args += ["--parameters", path]
    subprocess.run(args + [manifest], check=True, capture_output=True)
    steps = collections.defaultdict(list)
    for s in csv.DictReader(open(os.path.join(out, "steps.csv"))):
        steps[s["file"]].append(float(s["t_s"]))
    return steps, list(csv.DictReader(open(os.path.join(out, "windows.csv"))))


def magnitude(path):
    """A recording's times (ns) and |a|: its three axes' length, or its one magnitude column."""
    a = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    m = a[:, 1] if a.shape[1] == 2 else np.sqrt((a[:, 1:4] ** 2).sum(1))
    return (a[:, 0] * 1e6).astype(np.int64), m


def low_pass(t, m, hz=3.0):
    """The detector's two-pole low-pass with the exact coefficient for each time step (times in ns)."""
    tau, out = 1 / (2 * math.pi * hz), np.empty_like(m)
    s1 = s2 = out[0] = m[0]
    for i in range(1, len(m)):
        alpha = 1 - math.exp(-(t[i] - t[i - 1]) * 1e-9 / tau)
        s1 += (m[i] - s1) * alpha
        s2 += (s1 - s2) * alpha
        out[i] = s2
    return out


def peaks(t, v, hysteresis):
    """PeakTracker: the times of the peaks confirmed once the signal falls `hysteresis` below them, whose swing
    reaches `hysteresis`."""
    seeking, extreme, extreme_ns, trough, out = False, v[0], t[0], v[0], []
    for ns, x in zip(t[1:], v[1:]):
        if seeking:
            if x > extreme:
                extreme, extreme_ns = x, ns
            elif x < extreme - hysteresis:
                out.append((extreme_ns, extreme - trough))
                seeking, extreme, extreme_ns = False, x, ns
        elif x < extreme:
            extreme, extreme_ns = x, ns
        elif x > extreme + hysteresis:
            trough, seeking, extreme, extreme_ns = extreme, True, x, ns
    return np.array([p for p, s in out if s >= hysteresis], dtype=np.int64)


def eval_counts(binary, args):
    """`steptweet eval --json ARGS`: each recording's count, by its file as the manifest names it."""
    return {f: counted for f, (counted, _) in run_eval(binary, args).items()}
