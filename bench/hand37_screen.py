#!/usr/bin/env python3
"""Screens on bench/hand37_trace.py's traces (issue #47, hand37): what separates the windows of WISDM clapping and
folding clothes from gait's while a run that counted them stays walking, out of dataset.

    python3 bench/hand37_trace.py --dataset all --activities all --people 3 --json /tmp/traces.json > /dev/null
    python3 bench/hand37_screen.py /tmp/traces.json windows|trailing K|cumulative|gated|entries|held

- `windows`: per group (WISDM clapping, folding, gait of every data set...), the medians (10th percentile) over
  counted steps of the mean of the windows over each step: the probability to enter on, the gates alone, the trees and
  the physical features; and the share of steps under 0.3/0.5/0.7.
- `trailing K`: a walking run ended once the mean of a feature over its last K windows falls under a bar: the steps
  each group would lose (an upper bound: no run enters again).
- `cumulative`: the same with the mean since the run entered (at least K windows).
- `gated`: a run ended at the first step whose windows' probability after the gates (or with a path's evidence for
  `stay`) is under X: the steps lost (the gated stay, before re-entry).
- `entries [GROUPS]`: each run's entering windows (means): probabilities, gates and features.
- `held`: the steps counted as a run's earlier steps (`held`, `lookback`) by how long before the entering step.
"""
import collections, json, sys

import numpy as np

def group(f):
    r = f["row"]; ds = f["dataset"]; a = r.get("activity") or "walk"
    if ds == "wisdm_watch":
        if a in ("folding-clothes", "clapping"): return a
        if a in ("walking", "jogging", "stairs"): return "wisdm " + a
        return "wisdm other"
    if ds == "dsads_arm":
        return "dsads " + a.split("-")[0]
    return ds


def screen_windows(d, N, ix):
    vals = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in d["files"]:
        g = group(f); tr = f["trace"]; W = np.array(tr["windows"]) if tr["windows"] else np.zeros((0, len(N)))
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if role not in ("stay", "entering", "held"): continue
            m = (W[:, 0] <= t) & (t < W[:, 1]) if len(W) else []
            if not np.any(m): continue
            ws = W[m]
            pe = ws[:, ix["p_enter"]].mean()
            phys = np.minimum(ws[:, ix["repeat_f"]] * ws[:, ix["hands_f"]], ws[:, ix["vector_allow"]]).mean()
            vals[g]["p_enter"].append(pe); vals[g]["phys"].append(phys)
            vals[g]["trees"].append(ws[:, ix["trees"]].mean())
            for k in ("vector_stride", "along_stride", "along_own_share", "along_share", "arm_swing", "r_stride", "along_step", "gravity_steadiness", "stride_cv"):
                vals[g][k].append(ws[:, ix[k]].mean())
    keys = ["p_enter", "phys", "trees", "vector_stride", "along_stride", "along_own_share", "along_share", "arm_swing", "r_stride", "along_step", "gravity_steadiness", "stride_cv"]
    print("group n " + " ".join(keys))
    for g in sorted(vals):
        v = vals[g]
        print(g, len(v["p_enter"]), " ".join(f"{np.median(v[k]):.2f}({np.percentile(v[k],10):.2f})" for k in keys))
    for thr in (0.3, 0.5, 0.7):
        print("share of steps with p_enter <", thr, {g: round(float(np.mean(np.array(vals[g]["p_enter"]) < thr)), 3) for g in sorted(vals)})
        print("share of steps with phys <", thr, {g: round(float(np.mean(np.array(vals[g]["phys"]) < thr)), 3) for g in sorted(vals)})


def screen_trailing(d, N, ix):
    FEATS = {
     "vector_stride": lambda W: W[:, ix["vector_stride"]],
     "along_stride": lambda W: W[:, ix["along_stride"]],
     "own_share": lambda W: W[:, ix["along_own_share"]],
     "neg_arm": lambda W: W[:, ix["arm_swing"]],
     "r_stride": lambda W: W[:, ix["r_stride"]],
     "along_step": lambda W: W[:, ix["along_step"]],
     "share": lambda W: W[:, ix["along_share"]],
     "vec_or_along": lambda W: np.maximum(W[:, ix["vector_stride"]], W[:, ix["along_stride"]] - 0.2),
     "own_or_arm": lambda W: np.maximum(W[:, ix["along_own_share"]], W[:, ix["arm_swing"]] + 0.2),
     "p_enter": lambda W: W[:, ix["p_enter"]],
    }
    groups = collections.defaultdict(list)
    for f in d["files"]:
        if f["dataset"] in ("wrist_watch",): continue
        groups[group(f)].append(f)
    GAIT = [g for g in groups if g not in ("clapping", "folding-clothes", "wisdm other", "dsads basketball", "dsads elevator", "dsads cross", "dsads jumping")]
    def lost(f, feat, K, bar):
        tr = f["trace"]
        if not tr["windows"]: return 0
        W = np.array(tr["windows"]); starts = W[:, 0]; v = FEATS[feat](W)
        ok = v > -8
        runs = collections.defaultdict(list)
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if c in ("enter", "continues"): runs[(c, et)].append((t, role))
        n = 0
        for (c, et), ss in runs.items():
            ended = False
            for t, role in sorted(ss):
                if role != "stay" or t <= et: continue
                k = np.searchsorted(starts, t + 1.0, side="right")
                sl = slice(max(0, k - K), k)
                vv = v[sl][ok[sl]]
                if len(vv) >= K // 2 and vv.mean() < bar: ended = True
                if ended: n += 1
        return n
    K = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    for feat in FEATS:
        # bars: gait windows' 1st, 2nd, 5th percentile of trailing mean approximated by trying a grid
        for bar in np.arange(0.05, 0.6, 0.05):
            res = {g: sum(lost(f, feat, K, bar) for f in groups[g]) for g in groups}
            gl = sum(res[g] for g in GAIT)
            print(f"{feat} K={K} bar={bar:.2f}: fold -{res['folding-clothes']} clap -{res['clapping']} gait -{gl} | " + ", ".join(f"{g} {res[g]}" for g in sorted(res) if res[g]))
            if gl > 400: break


def screen_cumulative(d, N, ix):
    groups = collections.defaultdict(list)
    for f in d["files"]:
        groups[group(f)].append(f)
    HAND = ("clapping", "folding-clothes", "wisdm other", "dsads basketball", "dsads elevator", "dsads cross", "dsads jumping")
    def lost(f, K, X, key, trailing=None):
        tr = f["trace"]
        if not tr["windows"]: return 0
        W = np.array(tr["windows"]); starts = W[:, 0]
        v = W[:, ix[key]] if key != "phys" else np.minimum(W[:, ix["repeat_f"]] * W[:, ix["hands_f"]], W[:, ix["vector_allow"]])
        if key == "p_enter_nopath": v = np.minimum(W[:, ix["trees"]] * W[:, ix["repeat_f"]] * W[:, ix["hands_f"]], W[:, ix["vector_allow"]])
        runs = collections.defaultdict(list)
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if c in ("enter", "continues"): runs[(c, et)].append((t, role))
        n = 0
        for (c, et), ss in runs.items():
            k0 = np.searchsorted(starts, et + 1.0, side="right")  # windows scored when it entered
            ended = False
            for t, role in sorted(ss):
                if role != "stay" or t <= et: continue
                k = np.searchsorted(starts, t + 1.0, side="right")
                lo = k0 if trailing is None else max(k0, k - trailing)
                if k - k0 >= K and v[lo:k].mean() < X: ended = True
                if ended: n += 1
        return n
    for key in ("p_enter", "phys"):
      for K in (10, 20, 30):
        for X in (0.4, 0.5, 0.6):
            res = {g: sum(lost(f, K, X, key) for f in groups[g]) for g in groups}
            gl = sum(v for g, v in res.items() if g not in HAND)
            print(f"{key} cum K={K} X={X}: fold -{res['folding-clothes']} clap -{res['clapping']} gait -{gl} | " + ", ".join(f"{g} {res[g]}" for g in sorted(res) if res[g]))


def screen_gated(d, N, ix):
    groups = collections.defaultdict(list)
    for f in d["files"]: groups[group(f)].append(f)
    HAND = ("clapping", "folding-clothes", "wisdm other", "dsads basketball", "dsads elevator", "dsads cross", "dsads jumping")
    def lost(f, X, key, firstonly):
        tr = f["trace"]
        if not tr["windows"]: return 0, 0
        W = np.array(tr["windows"])
        runs = collections.defaultdict(list)
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if c in ("enter", "continues"): runs[(c, et)].append((t, role))
        n = nsteps = 0
        for (c, et), ss in runs.items():
            ended = False
            for t, role in sorted(ss):
                if role != "stay" or t <= et: continue
                m = (W[:, 0] <= t) & (t < W[:, 1])
                if not m.any(): continue
                if key == "p_enter": v = W[m, ix["p_enter"]].mean()
                else: v = np.maximum(W[m, ix["p_enter"]], W[m, ix["path_stay"]]).mean()
                if v < X:
                    nsteps += 1
                    ended = True
                if ended: n += 1
        return n, nsteps
    for key in ("p_enter", "p_enter_or_pathstay"):
        for X in (0.1, 0.15, 0.2, 0.25, 0.3):
            res = {g: [sum(x) for x in zip(*[lost(f, X, key, False) for f in groups[g]])] for g in groups}
            gl = sum(v[0] for g, v in res.items() if g not in HAND and v)
            print(f"{key} X={X}: fold -{res['folding-clothes'][0]} ({res['folding-clothes'][1]} below) clap -{res['clapping'][0]} ({res['clapping'][1]}) gait -{gl} | " + ", ".join(f"{g} {res[g][0]}({res[g][1]})" for g in sorted(res) if res[g] and res[g][0]))


def screen_held(d, N, ix):
    res = collections.defaultdict(list)
    for f in d["files"]:
        g = group(f); tr = f["trace"]
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if role in ("held", "lookback"): res[g].append((et - t, role))
    for g in sorted(res):
        v = np.array([x for x, _ in res[g]])
        print(f"{g}: held+lookback {len(v)}; before the entering step >5s {np.sum(v>5)}, >8s {np.sum(v>8)}, >10s {np.sum(v>10)}, >12s {np.sum(v>12)}, >15s {np.sum(v>15)}, >20s {np.sum(v>20)}, >30s {np.sum(v>30)}")


def screen_entries(d, N, ix):
    want = (sys.argv[3] if len(sys.argv) > 3 else "folding-clothes,clapping").split(",")
    cols = ["p", "p_enter", "trees", "repeat_f", "hands_f", "vector_allow", "path_own", "vector_stride", "along_stride", "stride_cv", "r_stride", "along_step", "along_own_share", "along_share", "arm_swing", "gravity_steadiness", "stride_turn", "body_sway", "r_two_strides", "peak_rate", "log_std"]
    print("file et " + " ".join(c[:8] for c in cols))
    for f in d["files"]:
        g = group(f)
        if g not in want: continue
        tr = f["trace"]; W = np.array(tr["windows"]) if tr["windows"] else None
        seen = set()
        for (t, et), c, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if c not in ("enter", "continues") or et in seen: continue
            seen.add(et)
            m = (W[:, 0] <= et) & (et < W[:, 1])
            ws = W[m]
            n = sum(1 for (tt, e2), c2 in zip(tr["steps"], tr["causes"]) if e2 == et and c2 == c)
            print(f["row"]["file"].split("/")[-1][:22], f"{et:.0f} n={n} {c[:4]}", " ".join(f"{ws[:, ix[k]].mean():.2f}" for k in cols))


if __name__ == "__main__":
    data = json.load(open(sys.argv[1]))
    names = data["names"]
    globals()["screen_" + sys.argv[2]](data, names, {n: i for i, n in enumerate(names)})
