#!/usr/bin/env python3
"""Where the missed steps of short bouts go (issue #47): every reference step of the spliced free-living streams
(`bench/free_living_splice.py`, the same streams, seed and reference) and every timed-up-and-go run, attributed to
what the detector did with it.

The detector's own state is read by `bench/bout_trace.swift` (built here with `swiftc -O` together with
Sources/StepDetection, as bench/detector_instructions.sh builds its bench): the counted and refused steps, the peak
trackers' peaks, the rhythm's bouts and every scored window (the trees' probability, after the gravity and own-share
gates, the physical paths, the short-bout evidence). Its counts are checked against `steptweet eval` file by file.

A bout of a stream is its spliced walk segment; its reference steps are those of the walk inside the cut (SensorWatch
slow walks: the cut's length times the file's cadence, spread evenly). Classes of a missed reference step:
- whole bout never counted (no counted step in the segment), and why:
  - `too few peaks`: fewer than `confirmSteps` (3) strong peaks in the segment;
  - `rhythm never started`: peaks enough, no rhythm bout over the segment (strides or swings not regular);
  - `rhythm not credited`: a rhythm bout, ended before `minBoutSteps` with too few steps to be judged (or irregular);
  - `gate: trees P`, `gate: gravity gate`, `gate: own-share gate`: the rhythm credited steps, the walking gate
    refused them; the best refused step's windows averaged under `enter` because of the trees' probability, or of
    the gate that scaled it (the one whose input lay nearer its threshold);
  - `short-bout judgement`: the windows averaged `enter` or more, yet the bout counted nothing (a bout of 4-6 steps
    counts only in a group; a group or short bout refused on its cadence, spread or evidence);
  with, for bouts the hysteresis refused, what the short-bout judgement lacked (`sb:` columns).
- a counted bout's first steps (reference steps before its first counted step), last steps (after its last), and
  middle (the rest of the shortfall; negative when the bout counted more than its reference in between).
- recall by 10 s stretch (h47slow35), as the judge measures it: a stretch's band is its own reference steps a minute,
  so a stretch holding a bout's first or last steps beside rest is slow whatever the walk's cadence (the cut's band,
  above, is the walk's). The splice's bout ends are cuts from the middle of a walk (no slowing down).

    swift build -c release --product steptweet
    python3 bench/bout_misses.py [--binary B] [--set KEY=JSON ...] > bench/bout_misses_result.md
"""
import collections, json, os, statistics, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import free_living_splice as fls  # noqa: E402
from bout_eval import overridden, overrides_of  # noqa: E402
from tracer_build import compile_tracer  # noqa: E402

ENTER, CONFIRM, SHORT_MIN, SHORT_MAX = 0.7, 3, 7, 24
MIN_ALONG, MIN_OWN, SB_ALONG, SB_ENTER, SB_CV = 0.3, 0.15, 0.3, 0.25, 0.3


class RecordingStream(fls.Stream):
    """A spliced stream that remembers each segment's span (rest, bout, rest, ... in stream seconds)."""

    made = []

    def __init__(self, dt):
        super().__init__(dt)
        self.spans = []
        RecordingStream.made.append(self)

    def add(self, t, v):
        span = super().add(t, v)
        self.spans.append(span)
        return span


fls.Stream = RecordingStream


def build_tracer(work):
    return compile_tracer(os.path.join(work, "tracer"), os.path.join(ROOT, "bench", "bout_trace.swift"), "BoutTrace",
                          "bout_trace")


def traces(tracer, work, files_by_dataset, params_for):
    out = {}
    for dataset, files in sorted(files_by_dataset.items()):
        path = os.path.join(work, f"trace_params_{dataset}.json")
        json.dump(params_for(dataset), open(path, "w"))
        for i in range(0, len(files), 200):
            run = subprocess.run([tracer, path] + [os.path.join(work, f) for f in files[i:i + 200]], check=True,
                                 capture_output=True, text=True)
            for line in run.stdout.splitlines():
                t = json.loads(line)
                out[os.path.relpath(t["file"], work)] = t
    return out


def inside(times, a, b):
    return [t for t in times if a <= t <= b]


def window_reason(trace, refused):
    """Why the walking gate refused a bout's steps: the step whose windows averaged the highest probability."""
    best = None
    for s in refused:
        ws = [w for w in trace["windows"] if w[0] <= s < w[1]]
        if not ws:
            continue
        mean = lambda k: sum(w[k] for w in ws) / len(ws)
        cand = (mean(2), mean(3), mean(4), ws)
        if best is None or cand[0] > best[0]:
            best = cand
    if best is None:
        return "gate: trees P"
    p, trees, gated, ws = best
    if p >= ENTER:
        return "short-bout judgement"
    if trees < ENTER:
        return "gate: trees P"
    share = sum(w[8] for w in ws) / len(ws)
    own = sum(w[9] for w in ws) / len(ws)
    return "gate: gravity gate" if share - MIN_ALONG < own - MIN_OWN else "gate: own-share gate"


def short_bout_lack(trace, refused, a, b):
    """What the short-bout judgement lacked for the bout's refused steps (judged alone; a group may add more)."""
    n = len(refused)
    if n < SHORT_MIN:
        return f"sb: {n} steps (< {SHORT_MIN})"
    if n > SHORT_MAX:
        return "sb: > 24 steps"
    iv = np.diff(refused)
    if not 0.4 <= iv.mean() <= 1.0:
        return "sb: cadence"
    if iv.std() > SB_CV * iv.mean():
        return "sb: interval spread"
    ws = [w for w in trace["windows"] if w[0] <= refused[-1] and refused[0] < w[1]]
    if not any(w[7] for w in ws):
        return "sb: no axes"
    if max((w[6] for w in ws), default=0) >= SB_ENTER:
        return "sb: met (group/timing)"
    if max((w[8] for w in ws if w[7]), default=0) < SB_ALONG:
        return "sb: along share < 0.3"
    return "sb: P < 0.25"


def classify(trace, a, b, refs):
    """One bout: (counted, misses by class, reason of a whole miss, short-bout lack)."""
    counted = inside(trace["steps"], a, b)
    n = len(refs)
    if not counted:
        refused = inside(trace["refused"], a, b)
        if refused:
            reason = window_reason(trace, refused)
            lack = short_bout_lack(trace, refused, a, b) if reason != "short-bout judgement" else ""
        else:
            lack = ""
            strong = [p for p in trace["strong"] if a <= p[0] <= b and p[1] > 0]
            bouts = [r for r in trace["rhythm"] if r[0] <= b and r[1] >= a]
            reason = ("too few peaks" if len(strong) < CONFIRM else
                      "rhythm not credited" if bouts else "rhythm never started")
        return 0, {"whole": n}, reason, lack
    tol = 0.5 * (float(np.median(np.diff(refs))) if n > 1 else 0.5)
    first = sum(r < counted[0] - tol for r in refs)
    last = sum(r > counted[-1] + tol for r in refs)
    middle = n - first - last - len(counted)
    return len(counted), {"first": first, "last": last, "middle": middle}, None, None


def source_of(name):
    s = name.split("_")[0]
    return "bangle" if s == "bangle" else ("sensorwatch" if s.startswith("sw") else "wisdm")


def bouts_of(rows, streams):
    """(row, source, segment span, reference step times, cadence band) for every bout of every stream."""
    for row, stream in zip(rows, streams):
        if row["kind"] == "tug":
            continue
        placed = row["placed"]
        spans = stream.spans[1::2]
        for a, b in spans:
            refs = [p for p in placed if a <= p <= b]
            if not placed:  # a cadence reference: the cut's steps spread evenly
                k = int(round((b - a) * row["cadence"] / 60)) if row["kind"] == "potter" else int(row["steps"])
                refs = [a + (i + 0.5) * (b - a) / k for i in range(k)]
            yield row, source_of(row["name"]), (a, b), refs, "< 100" if row["cadence"] < 100 else ">= 100"


def report(rows, streams, entries, trace_of, title):
    name_to_file = {os.path.basename(e["file"])[:-4]: e["file"] for e in entries}
    table = collections.defaultdict(lambda: collections.Counter())
    reasons = collections.defaultdict(lambda: collections.Counter())
    lacks = collections.defaultdict(lambda: collections.Counter())
    for row, src, (a, b), refs, band in bouts_of(rows, streams):
        trace = trace_of[name_to_file[row["name"]]]
        got, miss, reason, lack = classify(trace, a, b, refs)
        for key in ((src, row["kind"], row["steps"], band), (src, "all", "any", band), ("all", "all", "any", band)):
            t = table[key]
            t["bouts"] += 1
            t["ref"] += len(refs)
            t["counted"] += got
            t["counted bouts"] += got > 0
            for k, v in miss.items():
                t[k] += v
            if reason:
                reasons[key][reason] += len(refs)
                reasons[key]["bouts: " + reason] += 1
                if lack:
                    lacks[key][lack] += len(refs)
    print(f"### {title}\n")
    print("Reference steps missed, by class (a counted bout's middle is net: negative when it counted more).\n")
    print("| source | kind | bout steps | cadence | bouts | counted bouts | reference | counted | whole bout | "
          "first | last | middle |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    order = sorted(table, key=lambda k: (k[0] == "all", k[0], k[1] == "all", k[1], str(k[2]), k[3]))
    for key in order:
        t = table[key]
        print(f"| {' | '.join(str(k) for k in key)} | {t['bouts']} | {t['counted bouts']} | {t['ref']} | "
              f"{t['counted']} | {t['whole']} | {t['first']} | {t['last']} | {t['middle']} |")
    classes = ["too few peaks", "rhythm never started", "rhythm not credited", "gate: trees P", "gate: gravity gate",
               "gate: own-share gate", "short-bout judgement"]
    print("\nWhole bouts never counted, by why (reference steps; bouts in brackets).\n")
    print("| source | kind | bout steps | cadence | " + " | ".join(classes) + " |")
    print("|---|---|---|---|" + "---|" * len(classes))
    for key in order:
        r = reasons[key]
        if sum(r[c] for c in classes):
            print(f"| {' | '.join(str(k) for k in key)} | "
                  + " | ".join(f"{r[c]} ({r['bouts: ' + c]})" if r[c] else "" for c in classes) + " |")
    print("\nWhat the short-bout judgement lacked for the bouts the hysteresis refused (reference steps; judged alone: "
          "a potter group may add steps).\n")
    lack_names = sorted({k for c in lacks.values() for k in c})
    print("| source | kind | bout steps | cadence | " + " | ".join(lack_names) + " |")
    print("|---|---|---|---|" + "---|" * len(lack_names))
    for key in order:
        if lacks[key]:
            print(f"| {' | '.join(str(k) for k in key)} | " + " | ".join(str(lacks[key][c] or "") for c in lack_names)
                  + " |")
    tug = collections.Counter()
    runs = []
    for row, stream in zip(rows, streams):
        if row["kind"] != "tug":
            continue
        a, b = stream.spans[1]
        trace = trace_of[name_to_file[row["name"]]]
        got, _, reason, lack = classify(trace, a, b, [])
        runs.append(got)
        if not got:
            tug[reason] += 1
            if lack:
                tug[lack] += 1
    print(f"\n- TUG: {len(runs)} runs, median {statistics.median(runs):.0f} counted, {sum(r == 0 for r in runs)} at 0: "
          + ", ".join(f"{k} {v}" for k, v in tug.most_common()))
    print()
    stretch_table(rows, streams, name_to_file, trace_of)


def stretch_table(rows, streams, name_to_file, trace_of):
    """Recall by 10 s stretch, as the judge measures it: each stream cut into 10 s stretches from its start, a
    stretch's band its own reference steps a minute (so a stretch holding a bout's first or last steps and the rest
    beside it is slow whatever the walk's cadence), counted steps capped at the reference in each stretch (the rest's
    false steps do not make up for missed ones). `edge`: the stretch holds a bout's first or last reference step."""
    table = collections.defaultdict(lambda: [0, 0, 0, 0])
    for row, stream in zip(rows, streams):
        if row["kind"] == "tug":
            continue
        trace = trace_of[name_to_file[row["name"]]]
        bouts = [refs for r, _, _, refs, _ in bouts_of([row], [stream])]
        refs = sorted(t for b in bouts for t in b)
        ends = {b[0] for b in bouts if b} | {b[-1] for b in bouts if b}
        steps = np.array(trace["steps"])
        group = "|a| only" if source_of(row["name"]) == "sensorwatch" else "3 axes"
        for k in range(int(stream.spans[-1][1] // 10) + 1):
            a, b = 10.0 * k, 10.0 * (k + 1)
            n = sum(a <= t < b for t in refs)
            if n == 0:
                continue
            got = int(((steps >= a) & (steps < b)).sum())
            where = "edge" if any(a <= t < b for t in ends) else "middle"
            band = "< 100" if 6 * n < 100 else ">= 100"
            for key in ((group, band, where), (group, band, "any"), ("all", band, "any")):
                t = table[key]
                t[0] += 1
                t[1] += n
                t[2] += min(got, n)
                t[3] += got
    print("Recall by 10 s stretch (the judge's measure: a stretch's band is its own reference steps a minute; counted "
          "capped at the reference per stretch, uncapped in brackets).\n")
    print("| sources | stretch steps/min | stretch | stretches | reference | counted | recall |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(table, key=lambda k: (k[0] == "all", k[0], k[1], k[2] == "any", k[2])):
        n, ref, got, raw = table[key]
        print(f"| {' | '.join(key)} | {n} | {ref} | {got} ({raw}) | {100 * got / ref:.1f} % |")
    print()


def main():
    args = fls.arguments(__doc__, "the streams, traces and tracer")
    overrides = overrides_of(args)
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        tracer = build_tracer(work)
        entries, rows = [], []
        for source, walks, rests, dt in fls.sources(args.shared, args.reference_binary or args.binary):
            rows += fls.build(source, walks, rests, dt, work, rng, entries)
        rows += fls.tug_streams(args.shared, work, entries, rng)
        streams = RecordingStream.made[0::2]  # each row made its stream, then its twin
        assert len(streams) == len(rows)
        full = collections.defaultdict(list)
        for e in entries:
            if not e["file"].endswith("_rest.csv"):
                full[e["file"].split("/")[0]].append(e["file"])
        print(f"## Missed steps of spliced bouts (seed {args.seed}" + (f"; {', '.join(args.set)}" if args.set else "")
              + f"): {len(rows)} streams\n")
        for leave_out, title in ((True, "Out of dataset (each source counted by the model trained without it)"),
                                 (False, "In sample (the shipped model)")):
            params_for = (lambda d: overridden(json.load(open(os.path.join(args.models, f"{d}.json"))), overrides)
                          ) if leave_out else (lambda d: overridden({}, overrides))
            trace_of = traces(tracer, work, full, params_for)
            counts = fls.count(args.binary, work, entries, args.models, overrides, leave_out)
            wrong = [f for fs in full.values() for f in fs if counts[f] != len(trace_of[f]["steps"])]
            report(rows, streams, entries, trace_of, title)
            print(f"- the tracer's counts equal `steptweet eval`'s in {sum(map(len, full.values())) - len(wrong)} of "
                  f"{sum(map(len, full.values()))} streams" + (f" (differ: {', '.join(wrong[:5])})" if wrong else "")
                  + "\n")


if __name__ == "__main__":
    main()
