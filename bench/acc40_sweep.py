#!/usr/bin/env python3
"""acc40's sweep (issue #47): a bout of three steps joins a pottering group only when its own seconds show a body
stepping (`threeStepBoutShare` along gravity, `threeStepBoutStride` repeat a stride later, ShortBoutBody.swift). The
grid moves one bar at a time around the chosen 0.25 / 0.65; each row is acc39_sweep.py's (bout_eval.py out of dataset,
free_living_splice.py, every data set's non-walking false steps and the files moved against the reference counts).
`off` (`threeStepBoutShare` 2) is main's rule: no bout of three steps is credited.

acc40b: `--pause` sweeps the pause split instead (bench/acc40b_pause_split.patch, not shipped: a bout not yet walking
ends at an interval over `pauseSplitRatio` 2.5 times its rhythm when the moving energy between the two steps has a
root mean square of at most `pauseStillMotion` m/s²; `still100`: any pause); `pause-off` is acc40's rule (no split).

    python3 bench/acc40_sweep.py --reference-counts /work/ref40/counts.json --reference-binary R [--binary B] \
        [NAME=KEY=JSON[,KEY=JSON] ...] > bench/acc40_sweep_result.md
    python3 bench/acc40_sweep.py --pause --reference-counts /work/ref40/counts.json --reference-binary R --binary B
"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import acc39_sweep  # noqa: E402

SHARES = (0.15, 0.2, 0.25, 0.3, 0.35, 0.5)
STRIDES = (0.45, 0.55, 0.65, 0.75, 0.85)
STILL = (0.2, 0.35, 0.4, 0.45, 0.5, 0.6, 0.8, 100)


def grid():
    rows = ["off=threeStepBoutShare=2"]
    rows += [f"share{s}=threeStepBoutShare={s}" for s in SHARES]
    rows += [f"stride{s}=threeStepBoutStride={s}" for s in STRIDES if s != 0.65]
    return rows


def pause_grid():
    rows = ["pause-off=pauseSplitRatio=0"] + [f"still{m}=pauseStillMotion={m}" for m in STILL]
    return rows + [f"ratio{r},still0.45=pauseSplitRatio={r},pauseStillMotion=0.45" for r in (2.2, 2.8)]


if __name__ == "__main__":
    pause = "--pause" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--pause"]
    if not any("=" in a and not a.startswith("--") for a in sys.argv[1:]):
        sys.argv += pause_grid() if pause else grid()
    acc39_sweep.main()
