#!/usr/bin/env python3
"""Which runs a window rule would stop from becoming walking, per recording (issue #47, hand40): a model of a gate
that refuses the trees' part of a window's probability to enter on (it keeps the physical path's `path_own`), as the
hands and repeat gates do, over the traces `hand37_trace.py --json` writes and the features `hand40_features.py
--rows` measures (clean and on the cheap copies). A run (the counted steps that entered at `enter` together) is
stopped when none of its steps would still average `enter` (0.7) over its windows; runs that entered otherwise
(look-back, path continuity, short bouts) are left out. Only entry is modelled (not `gatedStay`): a first screen,
not the detector.

    python3 bench/hand40_runs.py /tmp/T.json /tmp/rows.json > bench/hand40_runs_result.txt
"""
import collections, json, sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from hand40_features import group  # noqa: E402

ENTER = 0.7
OWN, SWING = 0.25, -0.07  # the hands gate's region: own share under the raised bar, arm swing under its bar
RULES = {f"kurt_v > {k}": (lambda k: lambda r: r["kurt_v"] > k)(k) for k in (4.0, 5.37)}
RULES.update({f"kurt_v > {k} & own < {o} & swing < {SWING}":
              (lambda k, o: lambda r: r["kurt_v"] > k and r["along_own_share"] < o and r["arm_swing"] < SWING)(k, o)
              for k in (3.5, 4.0, 5.0) for o in (0.25, 0.3)})
RULES.update({f"hf_along < {b}": (lambda b: lambda r: r["hf_along"] < b)(b) for b in (0.22, 0.26, 0.3, 0.33)})
RULES.update({f"hf_along < {b} & swing < {SWING}": (lambda b: lambda r: r["hf_along"] < b and r["arm_swing"] < SWING)(b)
              for b in (0.26, 0.3, 0.33)})


def runs_of(tr):
    runs = collections.defaultdict(list)
    for (t, enter_t), cause, role in zip(tr["steps"], tr["causes"], tr["roles"]):
        if cause == "enter" and role in ("stay", "entering", "held"):
            runs[enter_t].append(t)
    return runs


def enters(ts, windows, p_of):
    for t in ts:
        ps = [p_of(j, w) for j, w in enumerate(windows) if w[0] <= t < w[1]]
        if ps and np.mean(ps) >= ENTER - 1e-9:
            return True
    return False


def main():
    traces, rows = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    ix = {k: i for i, k in enumerate(traces["names"])}
    feats = {(p, f, j): r for p, g, f, j, r in rows}
    profiles = sorted({p for p, *_ in rows}, key=lambda p: (p != "clean", p))
    print(__doc__.split("\n\n")[0] + "\n")
    for name, rule in RULES.items():
        for prof in profiles:
            moved, stopped = [], collections.Counter()
            for f in traces["files"]:
                fn, tr = f["row"]["file"], f["trace"]
                base = lambda j, w: w[ix["p_enter"]]
                gated = lambda j, w: (w[ix["path_own"]] if (prof, fn, j) in feats and rule(feats[(prof, fn, j)])
                                      else w[ix["p_enter"]])
                lost = total = 0
                for ts in runs_of(tr).values():
                    total += len(ts)
                    if enters(ts, tr["windows"], base) and not enters(ts, tr["windows"], gated):
                        lost += len(ts)
                if lost:
                    moved.append(f"{fn} {total}→{total - lost}")
                    stopped[group(f)] += lost
            print(f"- `{name}` {prof}: " + ("; ".join(moved) if moved else "nothing stopped"))
        print()


if __name__ == "__main__":
    main()
