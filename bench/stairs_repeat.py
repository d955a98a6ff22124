#!/usr/bin/env python3
"""Why the repeat gate (`minGaitRepeat`, h47fold) takes WISDM 1609_stairs in sample, and whether an exemption on a
window feature gives the climb back without giving folding clothes back (issue #47, h47stairs).

Every recording of WISDM folding-clothes, clapping, walking/jogging/stairs and DSADS walking/running/stairs is traced
with the gate OFF by bench/fold_trace.swift (built as bench/fold_paths.py builds it), in sample (the shipped trees,
the gates of bench/leave_out) and out of dataset (bench/leave_out/wisdm_watch.json, dsads_arm.json). Then:

1. the windows over the steps the gate takes (those over the counted steps of a run no step of which reaches `enter`
   0.7 once the gate lowers the trees' part), medians and 10th-90th percentiles, against all windows of other
   people's stairs and walks;
2. the steps of 1609_stairs with the highest mean probability to become walking, gate off and on;
3. a replay of the gate and of candidate exemptions: a run of counted steps (gate off) is kept when one of its steps'
   windows average at least `enter` on max(trees after the gravity gates x the gate's factor, steady-stride evidence,
   held-arm evidence). At `minGaitRepeat` 0.2 the replay gives the detector's own counts (1609_stairs 116 in sample,
   folding 1,980 of the real 1,978 trees-entered steps out of dataset), so an exemption can be swept without a build.

    python3 bench/stairs_repeat.py [--traces CACHE.json] > bench/h47stairs_result.md
"""
import argparse, collections, json, os, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bout_eval import entries, overridden  # noqa: E402
from fold_paths import NAMES, build_tracer, run_traces, windows_over  # noqa: E402
from train_walking import DATASETS, dataset_of, gait_of  # noqa: E402

IX = {k: i for i, k in enumerate(NAMES)}
KEYS = ["trees", "gated", "r_stride", "r_two_strides", "r_step", "along_step", "along_share", "along_own_share",
        "arm_swing", "peak_rate", "stride_cv", "gravity_steadiness", "log_impulse", "log_std"]
ENTER, RAMP, SHIPPED = 0.7, 0.05, 0.2
OFF = [("minGaitRepeat", -2)]


def in_sample_params():
    """As bench/bout_eval.py's in-sample run: the shipped trees inside the gates every held-out model has."""
    model = json.load(open(os.path.join(ROOT, "bench", "walking_model.json")))
    gates = json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{DATASETS[0]}.json")))["recognizer"]
    return {"recognizer": dict(gates, model=model["model"], enter=ENTER, stay=model["stay"])}


def traced(shared):
    es = entries(shared)
    full = lambda e: os.path.join(os.path.dirname(e["manifest"]), e["file"])
    hand = [full(e) for e in es if dataset_of(e) == "wisdm_watch" and e.get("activity") in ("folding-clothes",
                                                                                            "clapping")]
    gait = [full(e) for e in es if gait_of(e) in ("stairs", "walking", "running")
            and dataset_of(e) in ("wisdm_watch", "dsads_arm")]
    leave_out = lambda d: overridden(json.load(open(os.path.join(ROOT, "bench", "leave_out", f"{d}.json"))), OFF)
    with tempfile.TemporaryDirectory() as work:
        tracer = build_tracer(work)
        return {"in sample": run_traces(tracer, work, overridden(in_sample_params(), OFF), hand + gait),
                "out of dataset": {**run_traces(tracer, work, leave_out("wisdm_watch"),
                                                hand + [g for g in gait if "/wisdm_watch/" in g]),
                                   **run_traces(tracer, work, leave_out("dsads_arm"),
                                                [g for g in gait if "/dsads_arm/" in g])}}


def ramped(x):
    """`rampedAcrossThreshold` of x in ramps: 0 at −1, 1 at +1."""
    return min(1.0, max(0.0, (x + 1) / 2))


def gate(threshold):
    """The repeat gate's factor (RepeatGate.swift); 1 for a window without axes."""
    def factor(w):
        if w[IX["r_stride"]] == -9 or w[IX["along_step"]] == -9:
            return 1.0
        return ramped((max(w[IX["r_stride"]], w[IX["along_step"]]) - threshold) / RAMP)
    return factor


def exempt(key, bar, below=False):
    """The shipped gate, with a window exempt (through the same ramp) when `key` reaches `bar` (or is under it)."""
    shipped = gate(SHIPPED)
    sign = -1 if below else 1
    return lambda w: max(shipped(w), ramped(sign * (w[IX[key]] - bar) / RAMP))


def after_repeating(trace, seconds, repeat):
    """The shipped gate, with a window exempt when one ending at most `seconds` before it (or itself) repeated (the
    gate's measure at least `repeat`) with the trees at `enter` or more: a walk seen a moment ago."""
    shipped = gate(SHIPPED)
    ends = [w[1] for w in trace["windows"] if w[IX["r_stride"]] != -9 and w[IX["gated"]] >= ENTER
            and max(w[IX["r_stride"]], w[IX["along_step"]]) >= repeat]
    return lambda w: 1.0 if any(w[1] - seconds <= e <= w[1] for e in ends) else shipped(w)


def enter_mean(trace, t, factor):
    over = windows_over(trace, t)
    if not over:
        return 0.0
    return sum(max(w[IX["gated"]] * factor(w), w[IX["steady"]], w[IX["held"]]) for w in over) / len(over)


def kept_steps(trace, factor):
    """The counted steps (gate off) of the runs that still reach `enter` with `factor`."""
    runs = collections.defaultdict(list)
    for t, entered in trace["steps"]:
        runs[entered].append(t)
    return [t for ts in runs.values() if any(enter_mean(trace, t, factor) >= ENTER - 1e-9 for t in ts) for t in ts]


def group_of(path):
    name = os.path.basename(path)
    if "1609_stairs" in name:
        return "1609_stairs"
    for a in ("folding-clothes", "clapping"):
        if a in name:
            return a
    return ("WISDM " if "/wisdm_watch/" in path else "DSADS ") + ("stairs" if "stairs" in name or "stepper" in name
                                                                  else "walk/run")


def cell(ws, k):
    v = np.array([w[k] for w in ws if w[k] != -9])
    return f"{np.median(v):.2f} ({np.percentile(v, 10):.2f}-{np.percentile(v, 90):.2f})" if len(v) else "-"


def window_table(traces):
    shipped = gate(SHIPPED)
    cols = collections.OrderedDict()
    for where, short in (("in sample", "ins"), ("out of dataset", "ood")):
        for a in ("1609_stairs", "folding-clothes"):
            taken = []
            for path, tr in traces[where].items():
                if group_of(path) != a:
                    continue
                lost = set(t for t, _ in tr["steps"]) - set(kept_steps(tr, shipped))
                seen = {}
                for t in lost:
                    for w in windows_over(tr, t):
                        seen[w[0]] = w
                taken += list(seen.values())
            cols[f"{a} taken, {short}"] = [dict(zip(NAMES, w)) for w in taken]
    for g in ("WISDM stairs", "DSADS stairs", "WISDM walk/run", "DSADS walk/run"):
        cols[f"{g}, all, ins"] = [dict(zip(NAMES, w)) for p, tr in traces["in sample"].items()
                                  if group_of(p) == g for w in tr["windows"]]
    print("## 1. The windows the gate takes, medians (10th-90th percentile)\n")
    print("| feature | " + " | ".join(cols) + " |\n" + "|---" * (len(cols) + 1) + "|")
    for k in KEYS:
        print(f"| {k} | " + " | ".join(cell(ws, k) for ws in cols.values()) + " |")
    print("| windows | " + " | ".join(str(len(ws)) for ws in cols.values()) + " |\n")


def entry_table(traces):
    tr = next(t for p, t in traces["in sample"].items() if group_of(p) == "1609_stairs")
    rows = sorted(((enter_mean(tr, t, lambda w: 1.0), enter_mean(tr, t, gate(SHIPPED)), t) for t, _ in tr["steps"]
                   if t < 90), reverse=True)[:6]
    print("## 2. 1609_stairs in sample: the steps before 90 s closest to becoming walking\n")
    print("| step (s) | mean to enter, gate off | at 0.2 |\n|---:|---:|---:|")
    for off, on, t in rows:
        print(f"| {t:.1f} | {off:.3f} | {on:.3f} |")
    print("\nThe windows that carry them (29.8-39.4 s):\n")
    print("| start | trees (gated) | r_stride | along_step | r_two_strides | along_share | along_own_share | "
          "stride_cv | log_impulse |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in tr["windows"]:
        if 29 <= w[0] <= 40:
            print(f"| {w[0]:.1f} | " + " | ".join(f"{w[IX[k]]:.2f}" for k in (
                "gated", "r_stride", "along_step", "r_two_strides", "along_share", "along_own_share", "stride_cv",
                "log_impulse")) + " |")
    print()


def sweep(traces):
    """Each rule makes, for a trace, the factor its windows' trees are taken with to become walking."""
    same = lambda factor: lambda tr: factor
    rules = [("gate off", same(lambda w: 1.0))] + [(f"minGaitRepeat {x}", same(gate(x))) for x in (0.1, 0.15, 0.2)]
    bars = [("along_share", (0.25, 0.3, 0.35, 0.4, 0.45, 0.5)), ("along_own_share", (0.25, 0.3, 0.35, 0.4, 0.45)),
            ("r_two_strides", (0.15, 0.2, 0.25, 0.3, 0.35)), ("log_impulse", (1.1, 1.2, 1.3)), ("gated", (0.8, 0.9))]
    rules += [(f"exempt {k} >= {x}", same(exempt(k, x))) for k, xs in bars for x in xs]
    rules += [(f"exempt stride_cv <= {x}", same(exempt("stride_cv", x, below=True))) for x in (0.3, 0.35, 0.4, 0.45)]
    rules += [(f"exempt {s} s after a repeating walk window (repeat >= {r})",
               lambda tr, s=s, r=r: after_repeating(tr, s, r)) for r in (0.25, 0.3, 0.35) for s in (5, 10, 20)]
    groups = collections.OrderedDict()
    for where, short in (("in sample", "ins"), ("out of dataset", "ood")):
        for p, tr in sorted(traces[where].items()):
            groups.setdefault(f"{group_of(p)}, {short}", []).append(tr)
    print("## 3. Replayed: steps kept under each rule (gate off: every counted step)\n")
    print("| rule | " + " | ".join(groups) + " |\n" + "|---" * (len(groups) + 1) + "|")
    for name, make in rules:
        print(f"| {name} | " + " | ".join(str(sum(len(kept_steps(tr, make(tr))) for tr in trs))
                                           for trs in groups.values()) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--traces", help="read the traces from this JSON if it exists, else write them there")
    args = ap.parse_args()
    if args.traces and os.path.exists(args.traces):
        traces = json.load(open(args.traces))
    else:
        traces = traced(args.shared)
        if args.traces:
            json.dump(traces, open(args.traces, "w"))
    window_table(traces)
    entry_table(traces)
    sweep(traces)


if __name__ == "__main__":
    main()
