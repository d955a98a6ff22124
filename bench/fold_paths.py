#!/usr/bin/env python3
"""Which path of the walking gate counts the false steps of WISDM folding-clothes and clapping (issue #47, h47fold),
out of dataset (the model trained without WISDM, `bench/leave_out/wisdm_watch.json`), and the features of the windows
that let them count beside those of walking windows.

The detector's own state is read by `bench/fold_trace.swift`, built here with `swiftc -O` together with a copy of
Sources/StepDetection in which the gate notes why a run counts (`traceRunCause`): the hysteresis at `enter`
(`enter`), a short bout (`shortbout`), a group of short bouts (`group`), a lone bout (`lone`). A run entered at
`enter` is split by what made its entering step's windows reach `enter`: the trees (after the gravity gates), the
steady-stride path or the held-arm path. Each counted step is also classed by where the rhythm found it: a strong
peak, a weak peak (inside a bout or opening one), or neither (a missed step filled in).

    swift build -c release --product steptweet
    python3 bench/fold_paths.py [--set KEY=JSON ...] [--features OUT.json] > bench/fold_paths_result.md
"""
import argparse, collections, csv, json, os, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from bout_eval import detector_arguments, overridden, overrides_of  # noqa: E402
from tracer_build import compile_tracer, swift_sources  # noqa: E402

NAMES = ["start", "end", "p", "trees", "gated", "steady", "held"] + [
    "log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis", "crest", "crossings_hz",
    "log_impulse", "peak_rate", "stride_cv", "gravity_steadiness", "direction_steadiness", "gravity_turn",
    "along_share", "along_step", "stride_turn", "arm_swing", "along_own_share", "body_sway"]
TAPS = [  # (text in WalkingGate.swift, the line the traced copy puts before it), each exactly once
    ("            gate.walkingRun = true\n            gate.shortBoutOpen = false\n",
     "            traceRunCause = \"enter\"; traceEnterNs = timeNs\n"),
    ("        gate.parkedRefused = 0\n        gate.walkingRun = true\n",
     "        traceRunCause = g.steps > bout.count ? \"group\" : \"shortbout\"; traceEnterNs = bout.first ?? 0\n"),
]
LONE = "releaseWaitingGroup(counting: loneBoutWalks, emit)"


def build_tracer(work):
    out = os.path.join(work, "tracer")
    os.makedirs(out, exist_ok=True)
    copies = []
    for path in swift_sources("StepDetection"):
        text = open(path).read()
        if path.endswith("WalkingGate.swift"):
            for anchor, line in TAPS:
                assert text.count(anchor) == 1, anchor
                text = text.replace(anchor, line + anchor)
            assert text.count(LONE) == 2
            text = text.replace(LONE, "traceRunCause = \"lone\"; traceEnterNs = gate.group.endNs; " + LONE)
            text += "\nnonisolated(unsafe) var traceRunCause = \"\"\nnonisolated(unsafe) var traceEnterNs: Int64 = 0\n"
        copy = os.path.join(out, os.path.basename(path))
        open(copy, "w").write(text)
        copies.append(copy)
    return compile_tracer(out, os.path.join(ROOT, "bench", "fold_trace.swift"), "FoldTrace", "fold_trace", copies)


def run_traces(tracer, work, params, files):
    path = os.path.join(work, f"params_{len(os.listdir(work))}.json")
    json.dump(params, open(path, "w"))
    out = {}
    for i in range(0, len(files), 100):
        run = subprocess.run([tracer, path] + files[i:i + 100], check=True, capture_output=True, text=True)
        for line in run.stdout.splitlines():
            t = json.loads(line)
            out[t["file"]] = t
    return out


def windows_over(trace, t):
    return [w for w in trace["windows"] if w[0] <= t < w[1]]


def entering_path(trace, enter_t):
    """What made the entering step's windows reach `enter`: the trees after the gates, or a physical path."""
    ws = windows_over(trace, enter_t)
    if not ws:
        return "enter: no window"
    mean = lambda k: sum(w[NAMES.index(k)] for w in ws) / len(ws)
    if mean("gated") >= 0.7:
        return "enter: trees"
    return "enter: steady-stride" if mean("steady") >= mean("held") else "enter: held-arm"


def source_of(trace, t):
    near = lambda ts: any(abs(s - t) < 0.02 for s in ts)
    if near(trace["strong"]):
        return "strong peak"
    return "weak peak" if near(trace["weak"]) else "filled"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap, binary=False)
    ap.add_argument("--activities", default="folding-clothes,clapping", help="WISDM activities to trace (comma-separated)")
    ap.add_argument("--candidates", action="store_true",
                    help="also every traced activity's candidate peaks an hour (strong at minSwing, weak at minSwingInWalk)")
    ap.add_argument("--features", help="write the windows that counted false steps, and walking windows, here (JSON)")
    args = ap.parse_args()
    overrides = overrides_of(args)
    manifest = os.path.join(args.shared, "data", "activities", "manifest.csv")
    rows = list(csv.DictReader(open(manifest)))
    wisdm = [r for r in rows if r["file"].startswith("wisdm_watch/")]
    activities = args.activities.split(",")
    hand = [r for r in wisdm if r["activity"] in activities]
    walks = [r for r in wisdm if r["activity"] in ("walking",)]
    full = lambda r: os.path.join(os.path.dirname(manifest), r["file"])
    with tempfile.TemporaryDirectory() as work:
        tracer = build_tracer(work)
        params = overridden(json.load(open(os.path.join(args.models, "wisdm_watch.json"))), overrides)
        traces = run_traces(tracer, work, params, [full(r) for r in hand + walks])
    table = collections.Counter()
    by_person = collections.defaultdict(collections.Counter)
    by_source = collections.Counter()
    accepting, walking = [], []
    hours = collections.Counter()
    for r in hand:
        tr = traces[full(r)]
        hours[r["activity"]] += float(r["duration_s"]) / 3600
        for (t, enter_t), cause in zip(tr["steps"], tr["causes"]):
            path = entering_path(tr, enter_t) if cause == "enter" else cause
            table[(r["activity"], path)] += 1
            by_person[r["activity"]][(r["subject"], path)] += 1
            by_source[(r["activity"], source_of(tr, t))] += 1
            accepting += [dict(zip(NAMES, w), activity=r["activity"], subject=r["subject"], path=path)
                          for w in windows_over(tr, t)]
    for r in walks:
        tr = traces[full(r)]
        walking += [dict(zip(NAMES, w), activity="walking", subject=r["subject"]) for w in tr["windows"]]
    print(f"## WISDM false steps by the path that counted them (out of dataset{', ' + ', '.join(args.set) if args.set else ''})\n")
    for a in activities:
        n = sum(v for (act, _), v in table.items() if act == a)
        print(f"### {a}: {n} false steps, {n / hours[a]:.0f}/h\n")
        print("| path | steps | per hour |\n|---|---:|---:|")
        for (act, path), v in sorted(table.items(), key=lambda kv: -kv[1]):
            if act == a:
                print(f"| {path} | {v} | {v / hours[a]:.0f} |")
        print("\nWhere the rhythm found them: " + ", ".join(
            f"{s} {v}" for (act, s), v in sorted(by_source.items()) if act == a))
        people = collections.Counter()
        for (subject, _), v in by_person[a].items():
            people[subject] += v
        top = people.most_common()
        print(f"\nBy person ({len(top)} of {sum(r['activity'] == a for r in hand)} people count any): "
              + ", ".join(f"{s} {v}" for s, v in top[:12]))
        share = sum(v for _, v in top[:5]) / max(n, 1)
        print(f"(the 5 worst people: {share:.0%} of the activity's false steps)\n")
    keys = ["gated", "steady", "held", "r_stride", "stride_cv", "along_share", "along_own_share", "along_step",
            "arm_swing", "gravity_steadiness", "gravity_turn", "stride_turn", "body_sway", "log_impulse", "peak_rate"]
    print("## Windows over the counted false steps vs WISDM walking windows (medians, 10th-90th percentile)\n")
    print("| feature | " + " | ".join(["folding (counted)", "clapping (counted)", "walking (all)"]) + " |")
    print("|---|---|---|---|")
    groups = [[w for w in accepting if w["activity"] == "folding-clothes"],
              [w for w in accepting if w["activity"] == "clapping"], walking]
    for k in keys:
        cells = []
        for g in groups:
            v = np.array([w[k] for w in g if w[k] != -9])
            cells.append(f"{np.median(v):.2f} ({np.percentile(v, 10):.2f}-{np.percentile(v, 90):.2f})" if len(v) else "-")
        print(f"| {k} | " + " | ".join(cells) + " |")
    if args.candidates:
        print("\n## Candidate peaks an hour (strong: `minSwing`, weak: `minSwingInWalk`)\n")
        print("| activity | strong | weak |\n|---|---:|---:|")
        for a in activities + ["walking"]:
            rs = [r for r in (walks if a == "walking" else hand) if r["activity"] == a]
            h = sum(float(r["duration_s"]) for r in rs) / 3600
            print(f"| {a} | {sum(len(traces[full(r)]['strong']) for r in rs) / h:.0f} | "
                  f"{sum(len(traces[full(r)]['weak']) for r in rs) / h:.0f} |")
    if args.features:
        json.dump({"accepting": accepting, "walking": walking}, open(args.features, "w"))


if __name__ == "__main__":
    main()
