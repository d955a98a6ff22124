#!/usr/bin/env python3
"""Why the four wrist_watch slow walks count 0 (issue #36): every gate's numbers on them, beside WISDM hand activity,
the other wrist_watch recordings and normal walks. From ../shared only; numpy.

    swift build -c release --product steptweet
    python3 bench/slow_walk_diagnosis.py [--binary B] [--shared ../shared] > bench/slow_walk_diagnosis_result.txt

What it runs (all in a temporary folder):
- `steptweet eval --features` with the shipped parameters on both manifests: the rhythm's steps and the windows the
  recognizer scored, with their features and P(walking);
- the same with parameters that make every candidate peak (the strong tracker's peaks of `minSwing`, 0.25 s apart or
  more) a rhythm step and score every window that holds one (`confirmSteps` 1, `minBoutSteps` 1, no rhythm or swing
  tolerance, no interval limit, no fills): the candidates themselves, and the features of every window with motion;
- `steptweet eval --rhythm-only` and `--enter P` for a sweep of P (in sample: the shipped model).
It reads the raw recordings for one thing `eval` does not write: the autocorrelation of the 3 Hz low-passed |a|
(resampled at 12.5 Hz, as the recognizer does) in windows of 10.24 s and 20.48 s, to see what a longer window shows.
"""
import collections, json, os, sys, tempfile
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bout_eval import entries as manifest_entries  # noqa: E402
from detector_study import arguments, eval_counts, eval_features, low_pass, magnitude  # noqa: E402
from train_walking import LONG_WALKS, run  # noqa: E402

MAX_STEP_INTERVAL = 2.0  # DetectorParameters.maxStepInterval: the rhythm's cadence floor (30 steps/min)
FEATURES = ["log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis", "crest", "crossings_hz",
            "log_impulse", "peak_rate", "stride_cv"]
EVERY_CANDIDATE = {"confirmSteps": 1, "minBoutSteps": 1, "rhythmTolerance": 1e9, "swingTolerance": 1e9,
                   "irregularIntervalsAllowed": 1000000, "fillMissedSteps": False, "shortLongGait": False,
                   "fillStrideStart": False, "maxStepInterval": 1e6, "minSwingInWalk": 1e9,
                   "recognizer": {"enabled": True, "enter": 0.7, "stay": 0.1, "confident": 2}}
GROUPS = ["ww_slow", "ww_normal", "ww_fast", "ww_pc", "wisdm_walking", "bangle_walk", "wisdm_clapping",
          "wisdm_folding-clothes", "wisdm_brushing-teeth", "wisdm_eating-sandwich", "wisdm_eating-pasta",
          "wisdm_eating-soup", "wisdm_eating-chips", "wisdm_drinking"]
HAND = [g for g in GROUPS if g.startswith("wisdm_") and g != "wisdm_walking"]


def group_of(entry):
    f = entry["file"]
    if f.startswith("wrist_watch/"):
        return "ww_" + next(g for g in ("slow", "normal", "fast", "pc") if g in f)
    if f.startswith("wisdm_watch/"):
        return "wisdm_" + entry["activity"]
    if f.startswith("bangle_wrist/"):
        t = entry["truth_steps"]
        return "bangle_walk" if t and int(t) >= 100 and f not in LONG_WALKS else "bangle_other"
    return "oxford"


def dump(binary, manifests, params, out):
    """`eval --features` on both manifests with these parameters: {file: [step times]}, [window rows]."""
    steps, windows = collections.defaultdict(list), []
    os.makedirs(out, exist_ok=True)
    for name, manifest in manifests.items():
        manifest_steps, manifest_windows = eval_features(binary, manifest, os.path.join(out, name), params)
        for f, times in manifest_steps.items():
            steps[f] += times
        windows += manifest_windows
    return steps, windows


def low_pass_ticks(t, m):
    """The detector's 3 Hz low-pass of |a| on the 12.5 Hz tick grid (times in ns)."""
    seconds = t / 1e9
    return np.interp(np.arange(seconds[0], seconds[-1], 0.08), seconds, low_pass(t, m))


def best_autocorrelation(y, ticks, lo_s, hi_s):
    """For each window of `ticks` (hop 12 ticks), the largest autocorrelation at lags lo_s..hi_s."""
    out = []
    for s in range(0, len(y) - ticks + 1, 12):
        w = y[s:s + ticks] - y[s:s + ticks].mean()
        v = (w * w).mean()
        if v < 1e-8:
            continue
        lags = range(int(round(lo_s / 0.08)), int(round(hi_s / 0.08)) + 1)
        out.append(max((w[:ticks - k] * w[k:]).mean() / v for k in lags))
    return out


def auc(a, b):
    """P(a value of `a` > one of `b`) (ties half)."""
    a, b = np.asarray(a), np.asarray(b)
    _, inverse, counts = np.unique(np.concatenate([a, b]), return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]  # average ranks over ties, from 1
    return (ranks[:len(a)].sum() - len(a) * (len(a) + 1) / 2) / (len(a) * len(b))


def runs(times, gap):
    """Runs of step times with no gap over `gap` s: (start, end, steps)."""
    out = []
    for t in times:
        if out and t - out[-1][1] <= gap:
            out[-1] = (out[-1][0], t, out[-1][2] + 1)
        else:
            out.append((t, t, 1))
    return out


def pct(x, q):
    return float(np.percentile(x, q)) if len(x) else float("nan")


def synthetic_counts(binary, work):
    """`steptweet count` on 60 s synthetic magnitude-only signals at 0.6-0.8 Hz, 12.5 and 25 Hz: a smooth walk
    (a sine at the step rate, a smaller one at the stride, noise 0.2 m/s^2) and a clap train (impulses of 30 ms,
    12 m/s^2, at the same rate)."""
    rng = np.random.default_rng(36)
    out = {}
    for hz in (12.5, 25.0):
        for f in (0.6, 0.7, 0.8):
            t = np.arange(0, 60, 1 / hz)
            walk = 9.81 + 2.5 * np.sin(2 * np.pi * f * t) + 0.8 * np.sin(np.pi * f * t + 0.3)
            clap = np.full(len(t), 9.81)
            for k in np.arange(1, 60, 1 / f):
                clap += 12 * np.exp(-(((t - k) / 0.03) ** 2))
            for kind, y in (("walk", walk), ("clap train", clap)):
                y = y + 0.2 * rng.standard_normal(len(t))
                path = os.path.join(work, "synthetic.csv")
                with open(path, "w") as fh:
                    fh.write("t_ms,magnitude\n" + "".join(f"{a * 1000:.1f},{b:.4f}\n" for a, b in zip(t, y)))
                out[(kind, hz, f)] = json.loads(run([binary, "count", "--json", path]))["steps"]
    return out


def main():
    a = arguments(__doc__).parse_args()
    manifests = {n: os.path.join(a.shared, "data", n, "manifest.csv") for n in ("steps", "activities")}
    entries = {}
    for r in manifest_entries(a.shared):
        r["path"] = os.path.join(os.path.dirname(r["manifest"]), r["file"])
        entries[r["file"]] = r
    by_group = collections.defaultdict(list)
    for f, e in entries.items():
        by_group[group_of(e)].append(f)
    with tempfile.TemporaryDirectory() as work:
        shipped_steps, shipped_windows = dump(a.binary, manifests, None, os.path.join(work, "shipped"))
        cand_steps, cand_windows = dump(a.binary, manifests, EVERY_CANDIDATE, os.path.join(work, "every"))
        counted, rhythm_only = {}, {}
        for m in manifests.values():
            counted.update(eval_counts(a.binary, [m]))
            rhythm_only.update(eval_counts(a.binary, ["--rhythm-only", m]))
        floor = {}
        for limit in (2.0, 2.5, 3.0, 4.0):
            pfile = os.path.join(work, "floor.json")
            json.dump({"maxStepInterval": limit}, open(pfile, "w"))
            floor[limit] = {}
            for m in manifests.values():
                floor[limit].update(eval_counts(a.binary, ["--rhythm-only", "--parameters", pfile, m]))
        synthetic = synthetic_counts(a.binary, work)
        sweep = {}
        for p in (0.7, 0.5, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02):
            sweep[p] = {}
            for m in manifests.values():
                sweep[p].update(eval_counts(a.binary, ["--enter", str(p), m]))

    slow = sorted(by_group["ww_slow"])
    print("# Slow walking on the wrist: why it counts 0 (issue #36)\n")
    print("Generated by `python3 bench/slow_walk_diagnosis.py` from ../shared with the shipped detector.\n")

    # 1. The rhythm gate: candidates (amplitude gate), intervals (cadence floor), what the rhythm keeps.
    print("## 1. Candidates and the rhythm gate, per wrist_watch recording\n")
    print("cadence = true steps / duration (a floor: the walk may not fill the recording); candidates = peaks of the")
    print("strong tracker (swing >= minSwing 1.2 m/s^2); '>2 s' = candidate intervals over maxStepInterval (the")
    print("cadence floor: it empties the rhythm's pending run); 'irregular' = intervals off the file's median interval")
    print("by more than rhythmTolerance (1.5x); rhythm = steps the shipped rhythm credits (recognizer off);")
    print("mean |a| (1 g = 9.81 m/s^2 on a well-scaled device).\n")
    print("| recording | true | s | cadence /min | mean \\|a\\| | candidates /min | candidates / true | >2 s |"
          " irregular |"
          " rhythm only | counted |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for f in sorted(by_group["ww_slow"] + by_group["ww_normal"] + by_group["ww_fast"] + by_group["ww_pc"]):
        e = entries[f]
        truth, dur = int(e["truth_steps"]), float(e["duration_s"])
        c = np.array(sorted(cand_steps.get(f, [])))
        iv = np.diff(c)
        med = np.median(iv) if len(iv) else float("nan")
        irregular = ((iv > 1.5 * med) | (iv < med / 1.5)).mean() if len(iv) else float("nan")
        _, m = magnitude(e["path"])
        print(f"| {f.split('/')[1][:-4]} | {truth} | {dur:.0f} | {truth / dur * 60:.0f} | {m.mean():.1f} | "
              f"{len(c) / dur * 60:.0f} | {len(c) / truth if truth else float('nan'):.2f} | "
              f"{(iv > MAX_STEP_INTERVAL).mean() * 100:.0f} % | {irregular * 100:.0f} % | {rhythm_only[f]} | "
              f"{counted[f]} |")

    print("\nWISDM and Bangle.js, median over the files of each activity (3 min each; walking has no count):\n")
    print("| group | files | candidates /min | median candidate interval s | >2 s | rhythm steps /min |"
          " longest rhythm run s | time in rhythm runs | counted /min |")
    print("|---|---|---|---|---|---|---|---|---|")
    for g in GROUPS:
        rows = []
        for f in by_group[g]:
            dur = float(entries[f]["duration_s"])
            c = np.array(sorted(cand_steps.get(f, [])))
            iv = np.diff(c)
            r = runs(sorted(shipped_steps.get(f, [])), 3.0)
            rows.append((len(c) / dur * 60, np.median(iv) if len(iv) else np.nan,
                         (iv > MAX_STEP_INTERVAL).mean() if len(iv) else np.nan,
                         len(shipped_steps.get(f, [])) / dur * 60, max([b - s for s, b, _ in r], default=0),
                         sum(b - s for s, b, _ in r) / dur, counted[f] / dur * 60))
        R = np.array(rows)
        print(f"| {g} | {len(R)} | {np.nanmedian(R[:, 0]):.0f} | {np.nanmedian(R[:, 1]):.2f} | "
              f"{np.nanmedian(R[:, 2]) * 100:.0f} % | {np.nanmedian(R[:, 3]):.0f} | {np.median(R[:, 4]):.0f} "
              f"(max {R[:, 4].max():.0f}) | {np.median(R[:, 5]) * 100:.0f} % | {np.median(R[:, 6]):.1f} |")

    print("\nThe cadence floor raised, rhythm only (no recognizer): what the rhythm alone would hand the recognizer.\n")
    wisdm_zero = [f for f, e in entries.items() if f.startswith("wisdm_watch/") and e["truth_steps"] == "0"]
    wisdm_hours = sum(float(entries[f]["duration_s"]) for f in wisdm_zero) / 3600
    print("| maxStepInterval s | " + " | ".join(f.split('/')[1][:-4] for f in slow) +
          " | PC work steps/file | WISDM eating and drinking steps/h | WISDM 12 activities steps/h |")
    print("|---|" + "---|" * (len(slow) + 3))
    eating = [f for f in wisdm_zero if entries[f]["activity"].startswith(("eating", "drinking"))]
    eating_hours = sum(float(entries[f]["duration_s"]) for f in eating) / 3600
    for limit, c in floor.items():
        print(f"| {limit} | " + " | ".join(f"{c[f]} of {entries[f]['truth_steps']}" for f in slow) +
              f" | {sum(c[f] for f in by_group['ww_pc']) / len(by_group['ww_pc']):.1f} | "
              f"{sum(c[f] for f in eating) / eating_hours:.0f} | {sum(c[f] for f in wisdm_zero) / wisdm_hours:.0f} |")

    # 2. The window against a slow stride.
    print("\n## 2. The window and its lags against a slow stride\n")
    print("The recognizer's autocorrelation lags: r_step 0.32-0.96 s, r_stride 0.64-2.0 s, r_two_strides 2.08-3.92 s,")
    print("in a 10.24 s window. T = duration / true steps (the mean step interval; shorter if the walk does not fill")
    print("the recording).\n")
    print("| recording | T s | stride 2T s | strides per window | step lag in | stride lag in |")
    print("|---|---|---|---|---|---|")

    def lag_name(x):
        names = [n for n, (lo, hi) in (("r_step", (0.32, 0.96)), ("r_stride", (0.64, 2.0)),
                                       ("r_two_strides", (2.08, 3.92))) if lo <= x <= hi]
        return ", ".join(names) or "none (beyond 3.92 s)"
    for f in slow:
        e = entries[f]
        T = float(e["duration_s"]) / int(e["truth_steps"])
        print(f"| {f.split('/')[1][:-4]} | {T:.2f} | {2 * T:.2f} | {10.24 / (2 * T):.1f} | {lag_name(T)} | "
              f"{lag_name(2 * T)} |")
    print("\nLargest autocorrelation of the 12.5 Hz low-passed |a| at lags 0.64-3.92 s (what r_stride and")
    print("r_two_strides together can see) in 10.24 s windows, and at 0.64-7.92 s in 20.48 s windows (a window twice")
    print("as long, lags to two strides of 4 s), every 0.96 s; median and 10th-90th percentile over each group's")
    print("windows:\n")
    print("| group | windows | 10.24 s: median (p10-p90) | 20.48 s: median (p10-p90) |")
    print("|---|---|---|---|")
    for g in GROUPS:
        short, long_ = [], []
        for f in by_group[g]:
            t, m = magnitude(entries[f]["path"])
            y = low_pass_ticks(t, m)
            short += best_autocorrelation(y, 128, 0.64, 3.92)
            long_ += best_autocorrelation(y, 256, 0.64, 7.92)
        print(f"| {g} | {len(short)} | {np.median(short):.2f} ({pct(short, 10):.2f}-{pct(short, 90):.2f}) | "
              f"{np.median(long_):.2f} ({pct(long_, 10):.2f}-{pct(long_, 90):.2f}) |")

    # 3. The recognizer.
    print("\n## 3. The recognizer's features and decisions\n")
    print("Every window of 10.24 s holding at least two candidates (the every-candidate run scores them all; the")
    print("features do not depend on the rhythm's parameters), median per group; P = the shipped model's P(walking).\n")
    wins = collections.defaultdict(list)
    for w in cand_windows:
        if float(w["peak_rate"]) * (float(w["end_s"]) - float(w["start_s"])) < 1.5:
            continue
        wins[group_of(entries[w["file"]])].append([float(w["probability"])] + [float(w[k]) for k in FEATURES])
    wins = {g: np.array(v) for g, v in wins.items()}
    print("| group | windows | P median | P >= 0.1 | P >= 0.7 | " + " | ".join(FEATURES) + " |")
    print("|---|---|---|---|---|" + "---|" * len(FEATURES))
    for g in GROUPS:
        X = wins[g]
        print(f"| {g} | {len(X)} | {np.median(X[:, 0]):.2f} | {(X[:, 0] >= 0.1).mean() * 100:.0f} % | "
              f"{(X[:, 0] >= 0.7).mean() * 100:.0f} % | " + " | ".join(f"{v:.2f}" for v in np.median(X[:, 1:], 0))
              + " |")
    print("\nHow well each feature alone tells slow-walk windows from each group: AUC (0.5 = not at all; 1 or 0 =")
    print("fully, 1 meaning the slow walk's values are larger):\n")
    others = ["wisdm_walking", "ww_normal", "wisdm_clapping", "wisdm_folding-clothes", "wisdm_brushing-teeth",
              "wisdm_eating-sandwich", "wisdm_eating-pasta", "ww_pc"]
    print("| feature | " + " | ".join(others) + " |")
    print("|---|" + "---|" * len(others))
    for j, name in enumerate(["P"] + FEATURES):
        print(f"| {name} | " + " | ".join(f"{auc(wins['ww_slow'][:, j], wins[g][:, j]):.2f}" for g in others) + " |")

    print("\nThe slow walks' scored windows (shipped run: windows scored while the rhythm had steps):\n")
    print("| recording | rhythm steps | windows | P median | P max | windows P >= 0.1 | P >= 0.7 |")
    print("|---|---|---|---|---|---|---|")
    for f in slow:
        p = np.array([float(w["probability"]) for w in shipped_windows if w["file"] == f])
        print(f"| {f.split('/')[1][:-4]} | {len(shipped_steps.get(f, []))} | {len(p)} | "
              f"{np.median(p) if len(p) else float('nan'):.3f} | {p.max() if len(p) else float('nan'):.3f} | "
              f"{(p >= 0.1).sum()} | {(p >= 0.7).sum()} |")

    # 4. The threshold sweep, in sample.
    print("\n## 4. Lowering `enter` alone (in sample, shipped model; `stay` 0.1, so below 0.1 the hysteresis enters")
    print("   at `enter`)\n")
    wisdm_low = [f for f, e in entries.items() if f.startswith("wisdm_watch/") and e["truth_steps"] == "0"]
    hours = sum(float(entries[f]["duration_s"]) for f in wisdm_low) / 3600
    print("| enter | " + " | ".join(f.split('/')[1][:-4] for f in slow) + " | WISDM false/h | worst subject /h |"
          " clapping /h | folding /h | PC work false/file | WISDM walking min /min |")
    print("|---|" + "---|" * (len(slow) + 6))
    for p, c in sweep.items():
        false = sum(c[f] for f in wisdm_low)
        subj = collections.defaultdict(lambda: [0, 0.0])
        act = collections.defaultdict(lambda: [0, 0.0])
        for f in wisdm_low:
            e = entries[f]
            subj[e["subject"]][0] += c[f]
            subj[e["subject"]][1] += float(e["duration_s"]) / 3600
            act[e["activity"]][0] += c[f]
            act[e["activity"]][1] += float(e["duration_s"]) / 3600
        worst = max(subj.items(), key=lambda kv: kv[1][0] / kv[1][1])
        pc = [f for f in by_group["ww_pc"]]
        walk = min(c[f] / float(entries[f]["duration_s"]) * 60 for f in by_group["wisdm_walking"])
        print(f"| {p} | " + " | ".join(f"{c[f]} of {entries[f]['truth_steps']}" for f in slow) +
              f" | {false / hours:.1f} | {worst[1][0] / worst[1][1]:.0f} ({worst[0]}) | "
              f"{act['clapping'][0] / act['clapping'][1]:.0f} | "
              f"{act['folding-clothes'][0] / act['folding-clothes'][1]:.0f} | "
              f"{sum(c[f] for f in pc) / len(pc):.2f} | {walk:.1f} |")

    # 5. Persistence: a rhythm run that has gone on for D seconds, counted on weaker evidence.
    print("\n## 5. Persistence: rhythm runs of at least D s counted when their steps' mean P reaches x (replayed")
    print("   on the shipped run's steps and windows, in sample)\n")
    print("A run = the rhythm's steps with no gap over 3 s; a step's P = the mean of the scored windows holding it.")
    print("Every step of a qualifying run counts (hand activity: all false).\n")
    prob = collections.defaultdict(list)
    for w in shipped_windows:
        prob[w["file"]].append((float(w["start_s"]), float(w["end_s"]), float(w["probability"])))

    def qualifying(f, duration, x):
        ws = prob.get(f, [])
        total = 0
        for s, e, n in runs(sorted(shipped_steps.get(f, [])), 3.0):
            if e - s < duration:
                continue
            ts = [t for t in shipped_steps[f] if s <= t <= e]
            ps = [np.mean([p for a0, b0, p in ws if a0 <= t < b0] or [0]) for t in ts]
            if np.mean(ps) >= x:
                total += len(ts)
        return total
    print("| D s | x | " + " | ".join(f.split('/')[1][:-4] for f in slow) + " | WISDM false/h | clapping /h |"
          " folding /h | brushing /h | PC work false/file |")
    print("|---|---|" + "---|" * (len(slow) + 5))
    for duration in (20, 40):
        for x in (0.2, 0.1, 0.05, 0.02):
            q = {f: qualifying(f, duration, x) for f in wisdm_low + slow + by_group["ww_pc"]}
            act = collections.defaultdict(int)
            for f in wisdm_low:
                act[entries[f]["activity"]] += max(q[f], counted[f])
            ah = {k: sum(float(entries[f]["duration_s"]) for f in wisdm_low if entries[f]["activity"] == k) / 3600
                  for k in act}
            print(f"| {duration} | {x} | " + " | ".join(f"{max(q[f], counted[f])} of {entries[f]['truth_steps']}"
                                                       for f in slow)
                  + f" | {sum(act.values()) / hours:.0f} | {act['clapping'] / ah['clapping']:.0f} | "
                  f"{act['folding-clothes'] / ah['folding-clothes']:.0f} | "
                  f"{act['brushing-teeth'] / ah['brushing-teeth']:.0f} | "
                  f"{sum(max(q[f], counted[f]) for f in by_group['ww_pc']) / len(by_group['ww_pc']):.2f} |")

    print("\n## 6. Synthetic magnitude-only signals, 60 s (the shipped detector, `count`)\n")
    print("| signal | rate Hz | 0.6 Hz | 0.7 Hz | 0.8 Hz |")
    print("|---|---|---|---|---|")
    for kind in ("walk", "clap train"):
        for hz in (12.5, 25.0):
            expected = {f: round(f * 60) if kind == "walk" else 0 for f in (0.6, 0.7, 0.8)}
            print(f"| {kind} | {hz} | " + " | ".join(f"{synthetic[(kind, hz, f)]} of {expected[f]}"
                                                   for f in (0.6, 0.7, 0.8)) + " |")


if __name__ == "__main__":
    main()
