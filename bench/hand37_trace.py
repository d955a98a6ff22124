#!/usr/bin/env python3
"""Where WISDM's hand-activity false steps come from out of dataset (issue #47, hand37): every counted step of the
traced activities (default folding clothes and clapping) by the path that let its run count and by the accept that
counted it, per person and per window, with the gates each entering window passed.

The detector's own state is read by `bench/hand37_trace.swift`, built with `swiftc -O` beside a copy of
Sources/StepDetection with taps (as fold_paths.py builds its tracer): the run's cause (`enter`: the hysteresis at
`enter`; `continues`: path continuity carried a step holding `stay` into the last walk; `shortbout`, `group`, `lone`)
and the step's role (`entering`: the step whose windows reached `enter`; `held`: earlier steps of its run that held
`stay`; `lookback`: the gate look-back's refused start; `stay`: a later step of a walking run; `group-joined`: a
waiting group counted with the run that entered; `shortbout`, `lone`). A run entered at `enter` is split by what
carried its entering step's windows: the trees (after the gravity, repeat, hands and vector repeat gates), or a
physical path (steady stride, held arm).

    swift build -c release
    python3 bench/hand37_trace.py [--set KEY=JSON ...] [--activities A,B] [--json OUT]
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import detector_arguments, entries, overridden, overrides_of  # noqa: E402
from train_walking import DATASETS, dataset_of  # noqa: E402
from tracer_build import compile_tracer, swift_sources  # noqa: E402
from fold_paths import run_traces  # noqa: E402

FEATURES = ["log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis", "crest", "crossings_hz",
            "log_impulse", "peak_rate", "stride_cv", "gravity_steadiness", "direction_steadiness", "gravity_turn",
            "along_share", "along_step", "stride_turn", "arm_swing", "along_own_share", "body_sway"]
NAMES = ["start", "end", "p", "p_enter", "repeat_f", "hands_f", "vector_allow", "trees", "path_own", "path_stay"] \
    + FEATURES + ["vector_stride", "along_stride"]
WINDOW_TAP = "            trees: trees, pathEvidence: path, window.features)\n"
TAPS = [  # (file, text, the text put before it), each exactly once
    ("WalkingGate.swift", "            gate.walkingRun = true\n            gate.shortBoutOpen = false\n",
     "            traceRunCause = pEnter >= r.enter ? \"enter\" : \"continues\"; traceEnterNs = timeNs\n"),
    ("WalkingGate.swift", "            releaseWaitingGroup(counting: true, emit)  // the same walk",
     "            traceRole = \"group-joined\"\n"),
    ("WalkingGate.swift", "            countRefusedStart(enteringAt: timeNs, emit)\n",
     "            traceRole = \"lookback\"\n"),
    ("WalkingGate.swift", "            for t in gate.undecided { accept(t, emit) }\n            gate.undecided.removeAll"
     "(keepingCapacity: true)\n            accept(timeNs, emit)\n", "            traceRole = \"held\"\n"),
    ("WalkingGate.swift", "            accept(timeNs, emit)\n        } else if p >= r.stay ||",
     "            traceRole = \"entering\"\n"),
    ("WalkingGate.swift", "                accept(timeNs, emit)\n            } else {\n                endWalkingRun",
     "                traceRole = \"stay\"\n"),
    ("WalkingGate.swift", "        gate.parkedRefused = 0\n        gate.walkingRun = true\n",
     "        traceRunCause = g.steps > bout.count ? \"group\" : \"shortbout\"; traceEnterNs = bout.first ?? 0; "
     "traceRole = \"shortbout\"\n"),
]
LONE = "releaseWaitingGroup(counting: loneBoutWalks, emit)"
GLOBALS = """
nonisolated(unsafe) var traceRunCause = ""
nonisolated(unsafe) var traceRole = ""
nonisolated(unsafe) var traceEnterNs: Int64 = 0
nonisolated(unsafe) var traceWindow: [Double] = []
"""


def build_tracer(work):
    out = os.path.join(work, "tracer")
    os.makedirs(out, exist_ok=True)
    copies = []
    for path in swift_sources("StepDetection"):
        text = open(path).read()
        name = os.path.basename(path)
        for file, anchor, line in TAPS:
            if file == name:
                assert text.count(anchor) == 1, anchor
                text = text.replace(anchor, line + anchor)
        if name == "WalkingGate.swift":
            assert text.count(LONE) == 2 and text.count(WINDOW_TAP) == 1
            text = text.replace(LONE, "traceRunCause = \"lone\"; traceRole = \"lone\"; traceEnterNs = gate.group.endNs; "
                                + LONE)
            text = text.replace(WINDOW_TAP, WINDOW_TAP + "        traceWindow = [decision.enterProbability ?? "
                                "decision.probability, gaitRepeatFactor(window.features), handMotionFactor("
                                "window.features), vectorRepeatAllowance(window.features), trees, path.own, "
                                "path.toStay]\n")
            text += GLOBALS
        copy = os.path.join(out, name)
        open(copy, "w").write(text)
        copies.append(copy)
    return compile_tracer(out, os.path.join(ROOT, "bench", "hand37_trace.swift"), "Hand37Trace", "hand37_trace",
                          copies)


def windows_over(trace, t):
    return [dict(zip(NAMES, w)) for w in trace["windows"] if w[0] <= t < w[1]]


def entering_path(ws):
    """What carried the entering step's windows to `enter`: the trees after every gate, or a physical path."""
    if not ws:
        return "no window"
    mean = lambda k: sum(w[k] for w in ws) / len(ws)
    if mean("path_own") >= 0.7 and mean("path_own") >= mean("p_enter") - 1e-9:
        return "path"
    return "trees"


def source_of(trace, t):
    near = lambda ts: any(abs(s - t) < 0.02 for s in ts)
    if near(trace["strong"]):
        return "strong"
    return "weak" if near(trace["weak"]) else "filled"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap, binary=False)
    ap.add_argument("--activities", default="folding-clothes,clapping", help="comma-separated, or all")
    ap.add_argument("--dataset", default="wisdm_watch", help="a data set (its leave-out model counts), or all")
    ap.add_argument("--in-sample", action="store_true", help="count with the shipped model instead")
    ap.add_argument("--people", type=int, default=20, help="people shown per activity")
    ap.add_argument("--json", help="write every traced file's trace here")
    args = ap.parse_args()
    overrides = overrides_of(args)
    datasets = DATASETS if args.dataset == "all" else [args.dataset]
    rows = [e for e in entries(args.shared) if dataset_of(e) in datasets]
    activities = args.activities.split(",")
    hand = [r for r in rows if args.activities == "all" or r.get("activity") in activities]
    for r in hand:
        r.setdefault("activity", "walk"), r.setdefault("subject", r["file"])
        r["activity"] = r["activity"] or "walk"
    full = lambda r: os.path.join(os.path.dirname(r["manifest"]), r["file"])
    traces = {}
    with tempfile.TemporaryDirectory() as work:
        tracer = build_tracer(work)
        for d in datasets:
            base = {} if args.in_sample else json.load(open(os.path.join(args.models, d + ".json")))
            traces.update(run_traces(tracer, work, overridden(base, overrides),
                                     [full(r) for r in hand if dataset_of(r) == d]))
    steps = []
    for r in hand:
        tr = traces[full(r)]
        entering = {}
        for (t, enter_t), cause, role in zip(tr["steps"], tr["causes"], tr["roles"]):
            if cause == "enter" and enter_t not in entering:
                entering[enter_t] = entering_path(windows_over(tr, enter_t))
            path = f"enter/{entering[enter_t]}" if cause == "enter" else cause
            ws = windows_over(tr, t)
            ew = windows_over(tr, enter_t) if cause in ("enter", "continues") else []
            steps.append(dict(dataset=dataset_of(r), file=r["file"], truth=r.get("truth_steps", ""),
                              activity=r["activity"], subject=r["subject"], t=t, path=path, role=role,
                              source=source_of(tr, t), windows=ws, entering_windows=ew, run=(r["subject"], enter_t)))
    hours = collections.Counter()
    for r in hand:
        hours[r["activity"]] += float(r["duration_s"]) / 3600
    if args.activities == "all":
        activities = sorted(hours)
    report(steps, activities, hours, hand, args)
    if args.json:  # the traces and their files' rows, for screening
        json.dump({"names": NAMES, "files": [dict(row={k: v for k, v in r.items() if k != "manifest"},
                                                  dataset=dataset_of(r), trace=traces[full(r)]) for r in hand]},
                  open(args.json, "w"))


def pct(v, q):
    return f"{np.percentile(v, q):.2f}" if len(v) else "-"


def report(steps, activities, hours, hand, args):
    label = "in sample" if args.in_sample else "out of dataset"
    print(f"## {args.dataset} counted steps by path and role ({label}{', ' + ', '.join(args.set) if args.set else ''})\n")
    for a in activities:
        mine = [s for s in steps if s["activity"] == a]
        print(f"### {a}: {len(mine)} counted steps, {len(mine) / max(hours[a], 1e-9):.0f}/h, "
              f"{len({s['run'] for s in mine})} runs\n")
        paths = collections.Counter(s["path"] for s in mine)
        roles = collections.Counter(s["role"] for s in mine)
        sources = collections.Counter(s["source"] for s in mine)
        print("| path | steps | entering | held | look-back | stay | other |\n|---|---:|---:|---:|---:|---:|---:|")
        for p, n in paths.most_common():
            c = collections.Counter(s["role"] for s in mine if s["path"] == p)
            other = n - c["entering"] - c["held"] - c["lookback"] - c["stay"]
            print(f"| {p} | {n} | {c['entering']} | {c['held']} | {c['lookback']} | {c['stay']} | {other} |")
        print("\nRoles: " + ", ".join(f"{k} {v}" for k, v in roles.most_common())
              + "; where the rhythm found them: " + ", ".join(f"{k} {v}" for k, v in sources.most_common()) + "\n")
        people = collections.Counter(s["subject"] for s in mine)
        print("| person | steps | runs | paths | mean P to enter of entering windows | trees | repeat | hands | vector |"
              "\n|---|---:|---:|---|---:|---:|---:|---:|---:|")
        for subject, n in people.most_common(args.people):
            ps = [s for s in mine if s["subject"] == subject]
            ew = [w for s in ps if s["role"] == "entering" for w in s["entering_windows"]]
            m = lambda k: f"{np.mean([w[k] for w in ew]):.2f}" if ew else "-"
            pc = collections.Counter(s["path"] for s in ps)
            print(f"| {subject} | {n} | {len({s['run'] for s in ps})} | "
                  + ", ".join(f"{k} {v}" for k, v in pc.most_common()) + f" | {m('p_enter')} | {m('trees')} | "
                  f"{m('repeat_f')} | {m('hands_f')} | {m('vector_allow')} |")
        print()


if __name__ == "__main__":
    main()
