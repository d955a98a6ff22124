#!/usr/bin/env python3
"""acc41 (issue #47): sweeps the walk-end rule (`walkEndGroupSeconds`, `walkEndWindowEnter`) over the after-walk
streams of `acc41_after_walk_splice.py --keep DIR` (false steps after a walk, and what the walk adds over the twins)
and the potter streams of `free_living_splice.py --keep SPLICE` (recall of the bouts within 8 s after a counted
step, and of all potter bouts), with the detector traced from this checkout's sources, out of dataset.

    python3 bench/acc41_after_walk_splice.py --keep DIR > /dev/null
    python3 bench/free_living_splice.py --keep SPLICE > /dev/null
    python3 bench/acc41_sweep.py --streams DIR --splice SPLICE NAME=[KEY=JSON[,KEY=JSON]] ... > bench/acc41_sweep_result.md
"""
import argparse, contextlib, io, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc41_after_walk_splice import false_steps, potter_after_walk, traced  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", required=True)
    ap.add_argument("--splice", required=True)
    ap.add_argument("--tracer", help="a compiled bout_trace (default: built from this checkout)")
    ap.add_argument("settings", nargs="+", help="NAME=[KEY=JSON[,KEY=JSON]]")
    args = ap.parse_args()
    rows = json.load(open(os.path.join(args.streams, "rows.json")))
    print("| setting | false steps after a walk | per hour | the walk adds per hour | gap 0-2 s per hour "
          "| potter bouts after a walk: recall |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        tracer = args.tracer or compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench",
                                                                                          "bout_trace.swift"),
                                               "BoutTrace", "bout_trace")
        for s in args.settings:
            name, _, rest = s.partition("=")
            overrides = [(k, json.loads(v)) for k, v in (x.split("=", 1) for x in rest.split(",") if x)]
            false_steps(rows, traced(tracer, work, rows, overrides), 0.5)
            real = [r for r in rows if not r["twin"]]
            hours, f = sum(r["hours"] for r in real), sum(r["false"] for r in real)
            tf = sum(r["false"] for r in rows if r["twin"])
            near = [r for r in real if r["gap"] <= 2]
            near_rate = sum(r["false"] for r in near) / sum(r["hours"] for r in near)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                potter_after_walk(tracer, work, args.splice, overrides)
            recall = out.getvalue().split(": ", 1)[1].strip()
            print(f"| {name} {rest} | {f} | {f / hours:.1f} | {(f - tf) / hours:+.1f} | {near_rate:.1f} | {recall} |",
                  flush=True)


if __name__ == "__main__":
    main()
