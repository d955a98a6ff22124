#!/usr/bin/env python3
"""acc41b's sweep (issue #47): a short bout ending uncredited at 0.8-1.4 s a step is halved before it is judged when
its own seconds show the arm stride (`boutEndArmAcross`: the vector across gravity at half the interval at most this;
`boutEndArmAlong`: the motion along gravity at the interval at least this; ArmStride.swift `endedOnceAStride`). Each
row is acc39_sweep.py's (bout_eval.py out of dataset, free_living_splice.py, every data set's non-walking false steps
and the files moved against the reference counts). `off` (`boutEndArmAlong` 2) is main's rule.

    python3 bench/acc41b_sweep.py --reference-counts /work/ref40/counts.json --reference-binary R [--binary B] \
        [NAME=KEY=JSON[,KEY=JSON] ...] > bench/acc41b_sweep_result.md
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acc39_sweep  # noqa: E402

ACROSS = (-0.3, -0.4, -0.5, -0.6, -0.7, -0.8)
ALONG = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


def grid():
    rows = ["off=boutEndArmAlong=2"]
    rows += [f"across{a}=boutEndArmAcross={a}" for a in ACROSS]
    rows += [f"along{z}=boutEndArmAlong={z}" for z in ALONG if z != 0.4]
    return rows + ["across-0.4,along0.2=boutEndArmAcross=-0.4,boutEndArmAlong=0.2"]


if __name__ == "__main__":
    if not any("=" in a and not a.startswith("--") for a in sys.argv[1:]):
        sys.argv += grid()
    acc39_sweep.main()
