#!/usr/bin/env python3
"""acc42 (issue #47): which mechanism counts the false steps after a walk in acc41_after_walk_splice.py's streams.

Each false step (after the walk's last reference step + 0.5 s) is put in one class, traced by bout_trace.swift:
- by its rhythm bout: the walk's own bout running on into the hand's peaks (the bout started before the walk's last
  reference step + 0.5 s) or a new rhythm bout after it; for the walk's bout, whether a step was refused between the
  walk's end and this one (the run ended and entered again) or not (the walking gate stayed open: `stay` and
  `gatedStay` held);
- by its peak: a strong peak (`minSwing`), a weak one (`minSwingInWalk`, inside a bout) or none (a filled missed step
  or the bout look-back's interpolation);
- by its windows: the share of the scored windows containing it that began before the walk's last reference step
  (windows that still hold the walk), and their mean probability.

    python3 bench/acc42_mechanism.py --tracer T --streams DIR [--set KEY=JSON ...] > bench/acc42_mechanism_result.md
"""
import argparse, collections, json, os, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from acc38_lone_bouts import run  # noqa: E402
from bout_eval import detector_arguments, overrides_of  # noqa: E402

MARGIN = 0.5


def near(x, peaks):
    return any(abs(p[0] - x) < 0.03 for p in peaks)


def classify(r, t):
    last = r["last"]
    for x in t["steps"]:
        if x <= last + MARGIN:
            continue
        bout = next((b for b in t["rhythm"] if b[0] - 1e-6 <= x <= b[1] + 1e-6), None)
        if bout is None:
            who = "no rhythm bout (look-back)"
        elif bout[0] <= last + MARGIN:
            again = any(last < y < x for y in t["refused"])
            who = "walk's bout runs on, run entered again" if again else "walk's bout runs on, gate stayed open"
        else:
            who = "new rhythm bout"
        peak = "strong" if near(x, t["strong"]) else "weak" if near(x, t["weak"]) else "no peak (filled)"
        ws = [w for w in t["windows"] if w[0] <= x < w[1]]
        held = sum(w[0] < last for w in ws) / len(ws) if ws else 0
        p = sum(w[2] for w in ws) / len(ws) if ws else 0
        yield who, peak, held, p, x - last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    detector_arguments(ap)
    ap.add_argument("--tracer", required=True)
    ap.add_argument("--streams", required=True, help="an acc41_after_walk_splice.py --keep folder")
    args = ap.parse_args()
    rows = [r for r in json.load(open(os.path.join(args.streams, "rows.json"))) if not r["twin"]]
    with tempfile.TemporaryDirectory() as tmp:
        traces = {}
        for d in sorted({r["dataset"] for r in rows}):
            traces.update(run(args.tracer, tmp, [r["file"] for r in rows if r["dataset"] == d], d,
                              overrides_of(args)))
    by = collections.Counter()
    peaks = collections.Counter()
    held = collections.defaultdict(list)
    early = collections.Counter()
    for r in rows:
        for who, peak, h, p, dt in classify(r, traces[r["file"]]):
            by[who] += 1
            peaks[(who, peak)] += 1
            held[who].append((h, p))
            early[(who, dt < 4)] += 1
    total = sum(by.values())
    print(f"## False steps after a walk by mechanism ({len(rows)} streams, {total} false steps"
          + (f"; {', '.join(args.set)}" if args.set else "") + ")\n")
    print("| mechanism | false steps | share | < 4 s after the walk | strong / weak / filled peaks | windows holding "
          "the walk (mean share) | windows' mean P |")
    print("|---|---|---|---|---|---|---|")
    for who, n in by.most_common():
        hs = held[who]
        print(f"| {who} | {n} | {100 * n / total:.1f} % | {early[(who, True)]} | {peaks[(who, 'strong')]} / "
              f"{peaks[(who, 'weak')]} / {peaks[(who, 'no peak (filled)')]} | "
              f"{sum(h for h, _ in hs) / len(hs):.2f} | {sum(p for _, p in hs) / len(hs):.2f} |")


if __name__ == "__main__":
    main()
