#!/usr/bin/env python3
"""hand40's sweep (issue #47): the peaky-hands bar (`handsPeakyKurtosis`, `handsPeakyOwnShare`; HandStrikes.swift in
bench/hand40_peaky_hands.patch) over a grid, each setting on acc39_sweep.py's line (bout_eval out of dataset,
free_living_splice, every data set's non-walking false steps, gait files down/up and truth-0 steps against a reference
counts file), then every file whose count moved against it (hand39_sweep.py's listing is per gait file; this lists
every file, empty truth included).

    git apply bench/hand40_peaky_hands.patch && swift build -c release
    python3 bench/hand40_sweep.py --reference-counts /work/ref40/counts.json > bench/hand40_sweep_result.md
"""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import acc39_sweep  # noqa: E402

GRID = [(0, 0.25)] + [(k, 0.2) for k in (4, 4.5, 5, 5.5, 6)] + [(5, s) for s in (0.19, 0.21, 0.225, 0.25)] + [(4, 0.25)]


def moved_files(binary, sets, reference):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "counts.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench/bout_eval.py"), "--binary", binary, "--counts",
                        path] + sum((["--set", s] for s in sets), []), check=True, capture_output=True)
        counts = json.load(open(path))
    return [f"{part}/{f} {reference[part][f][0]} → {counts[part][f][0]}" for part in ("out_of_dataset", "in_sample")
            for f in reference[part] if counts[part].get(f, [None])[0] != reference[part][f][0]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--reference-counts", required=True)
    args = ap.parse_args()
    settings = [(f"K{k:g}/S{s:g}", [f"handsPeakyKurtosis={k}", f"handsPeakyOwnShare={s}"]) for k, s in GRID]
    print("## acc39_sweep.py's line per setting (K: handsPeakyKurtosis, 0 = off; S: handsPeakyOwnShare)\n", flush=True)
    sys.argv = [sys.argv[0], "--binary", args.binary, "--reference-counts", args.reference_counts] + [
        f"{name}={','.join(sets)}" for name, sets in settings]
    acc39_sweep.main()
    print("\n## Every file whose count moved against the reference (out of dataset and in sample)\n")
    reference = json.load(open(args.reference_counts))
    for name, sets in settings:
        files = moved_files(args.binary, sets, reference)
        print(f"- {name}: " + ("; ".join(files) if files else "none"), flush=True)


if __name__ == "__main__":
    main()
