#!/usr/bin/env python3
"""Trains the walking recognizer (issue #10) on ../shared and writes its coefficients as Swift source.

One command, from the repository root, after `swift build -c release`:

    python3 scripts/train_walking.py            # train, evaluate out of fold, write WalkingModel*.swift
    python3 scripts/train_walking.py --write-only  # write WalkingModel*.swift again from bench/walking_model.json
    python3 scripts/train_walking.py --curve    # also the out-of-fold trade-off curve over the threshold
    python3 scripts/train_walking.py --fit-long-walk --curve   # diagnostic: also train on the 3 h walk; writes nothing
    python3 scripts/train_walking.py --slow-as-walking --curve # diagnostic: slow wrist walks trained as walking

1. `steptweet eval --features` writes, for every recording of the two shared manifests, the recognizer's window
   features (one window of 10.24 s every 0.96 s) and the steps the rhythm gate found.
2. Training windows are those holding at least one rhythm step (the only windows whose decision matters), as the
   plain rhythm finds them (weak peaks inside walks, the short-long gait and the stride-long start off:
   `minSwingInWalk`, `shortLongGait`, `fillStrideStart`), every due one (no skipping). Label 1 (issue #47): any gait,
   whatever its pace: counted walks (>= 100 true steps, or a walk by name, however slow or short), and the uncounted
   walking, jogging, running, stairs, stepper and timed-up-and-go recordings of WISDM, DSADS and the TUG set (a
   pedometer that calls a run "not walking" is wrong). Label 0: recordings with no or few true steps (daily
   activities, desk work, drives, DSADS's sitting to rowing). DSADS's basketball, jumping, cross-trainer and moving
   about in a lift mix steps with play and are not trained on. The two long uncontrolled Bangle.js walks (mixed
   walking and rest) are never trained on. Every dataset and class weighs the same in the fit. With
   `--augment degrade:1` (the default) every recording also has a copy as a cheaper or other sensor gives it:
   12.5-100 Hz, turned at random, noise, clipped at ±1.5-8 g and quantised to 6-10 bits (`degraded`).
3. Gradient-boosted decision trees (logistic loss, 40 trees of depth 3, learning rate 0.2, splits at quantiles of
   each feature) over the twelve magnitude features: |a| does not depend on how a device is worn or which way its
   axes point, so one model serves watches with and without axes and phones alike. The probability may only rise
   with `r1` and `r2` (smoothness): rougher motion never looks more like walking. With three axes a fixed gate from
   physics, not fitted, follows (`--min-along-share`, 0.3): a window whose 0.6-3.5 Hz moving energy lies mostly
   across gravity is not walking (gait pushes along gravity; hands at work move across it), unless its motion across
   gravity swings as an arm in gait does (`--arm-swing-opens`, 0.25: `arm_swing`, a loose or turned watch's walk).
   A second fixed gate (`--min-along-own-share`, 0.15): a window whose motion along gravity is mostly the projection of
   a motion across it (`along_own_share`: a hand moving along one tilted line, clapping, brushing teeth) is not
   walking either, unless the arm swings.
   Axis features in the trees were measured out of dataset and left out (bench/accuracy.md).
4. Out of dataset (issue #47, the figure that predicts a new user): for each data set (WISDM, DSADS, TUG, Bangle.js,
   wrist_watch, Oxford) a model fitted without it is written to bench/leave_out/DATASET.json and counts that data
   set with `steptweet eval --leave-out DATASET`; the table (by data set, the worst person shown) is printed and,
   with --report, written. Out of fold: 36 folds; fold k holds out WISDM, DSADS and TUG subject k, Bangle.js file k,
   Oxford user k and wrist_watch recording k (both rates of one recording together), each counted by the real
   detector with that fold's model (`steptweet eval --parameters`).
5. The final model is fitted on everything and written to Sources/StepDetection/WalkingModel.swift (the
   parameters) and WalkingModelTrees1-N.swift (the trees, 70 to a file).
Results go to bench/walking_model.json. numpy only. `--old-training-set` trains as before issue #47 (magnitude
features, no gate, no new data sets or augmentation) for the before column; it writes no model.

Regularisation and training-data options (issue #36; their defaults reproduce the shipped model, every variant is
measured in bench/accuracy.md, "Generalisation, measured"): --trees, --depth, --rate, --l2, --bins; --min-leaf and
--min-leaf-groups (windows, and distinct held-out units, on each side of a split); --use (the features the trees may
split on); --subject-weight; --scale (amplitude copies of the training windows); --augment resample:HZ or
stretch:FACTOR[:walking|:other] (training-only copies of the recordings, dumped by steptweet, left out with their
source in every fold); --monotone (features the probability may only rise or only fall with); --magnitude-copies
(every window with axes trained again with its axis features missing, NaN, which every split sends right, as the
detector does for a window without axes). --magnitude-only also counts every held-out recording from |a| alone
(`steptweet eval --magnitude-only`). --bag K (h47bag) averages K models, each fitted on a random --bag-share of
every data set's units, as one model of K times the trees (default 5, the shipped trees; 1: one model on all).
--counts writes every recording's out-of-fold count; --model-out the final
model's detector parameters.
"""
import argparse, collections, csv, json, os, re, subprocess, sys, tempfile, textwrap, zlib
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["log_std", "r1", "r2", "r_step", "r_stride", "r_two_strides", "log_kurtosis", "crest", "crossings_hz", "log_impulse",
         "peak_rate", "stride_cv", "gravity_steadiness", "direction_steadiness", "gravity_turn", "along_share",
         "along_step", "stride_turn", "arm_swing", "along_own_share", "body_sway"]
FEATURE_SET = 8  # WindowFeatures.featureSet: the version of these features; the trees are written with it
MAGNITUDE = 12  # the model uses the first twelve (the magnitude features); the rest are written for study
LONG_WALKS = ("bangle_wrist/10134.csv", "bangle_wrist/3058.csv")
TREES, DEPTH, RATE = 40, 3, 0.2  # boosting rounds, depth of each tree, learning rate
BINS = 32  # candidate thresholds per feature: its quantiles in the training windows
L2 = 1.0  # ridge penalty on leaf values
STAY = float(os.environ.get("WALK_STAY", "0.1"))  # the hysteresis' lower probability: a walking run holds while its steps keep it
FOLDS = 36
# Regularisation and training-set knobs (issue #36, "generalise rather than fit"); the defaults are the shipped model's.
MIN_LEAF = 0  # a split needs at least this many training windows on each side (0: only the Hessian floor of 0.05)
MIN_LEAF_GROUPS = 0  # ... and windows from at least this many distinct held-out units (subjects, files) on each side
USE = list(range(MAGNITUDE))  # the features the trees may split on (indices in NAMES)
UNIT_SUBSAMPLE = 1.0  # each tree is grown on this share of the held-out units, drawn at random (1: every unit)
SEED = 36
BAG, BAG_SHARE = 5, 0.8  # bagging (h47bag): the mean of BAG models, each fitted on BAG_SHARE of every data set's units
SUBJECT_WEIGHT = False  # each held-out unit (a WISDM subject, a file, a user) weighs the same within its dataset and class
# The model's probability may only rise with these features (+1) or only fall (-1). r1 and r2 measure how smooth |a| is
# against a sine at its own rhythm: rougher motion (impacts, jitter) must never look more like walking, however few
# training windows were that rough (a clap train counted as walking before; bench/accuracy.md, session 21).
MONOTONE = {1: 1, 2: 1}
MAGNITUDE_COPIES = False  # also train every window that has axes as a magnitude-only window (its axis features missing)
MAGNITUDE_ONLY = False  # also count the held-out recordings from |a| alone (`steptweet eval --magnitude-only`)
# With three axes, windows whose moving energy lies less than this share along gravity are not walking (a fixed gate
# from physics, not fitted: gait pushes along gravity, hands move across it; issue #47). 0: off.
MIN_ALONG_SHARE = 0.3
# ... unless the motion across gravity swings as an arm does in gait (`arm_swing` at least this; a walk with a loose
# or turned watch moves mostly across gravity). Above 1: never.
ARM_SWING_OPENS = 0.25
# Windows whose gravity turns more than this over a stride are not walking either, unless the arm swings (a variant
# measured out of dataset, bench/accuracy.md: it cuts folding clothes but loses whole walks with a turning wrist). 2: off.
MAX_STRIDE_TURN = 2.0
# ... unless their motion along gravity repeats at a step (`along_step` at least this; above 1: never). Measured, off:
# a walk with a turning wrist (WISDM 1620) still loses 44 % of its steps (bench/accuracy.md).
TURN_OPENS_ALONG_STEP = 2.0
# Windows whose moving energy along gravity is mostly the projection of a motion across it (`along_own_share` under
# this: a hand moving along one tilted line, clapping or brushing teeth) are not walking either, unless the arm swings.
# Fixed from physics, below every free-arm gait window of ../shared the gate decides (issue #47). 0: off.
MIN_ALONG_OWN_SHARE = 0.15
# Windows with an own share along gravity under HANDS_MAX_OWN_SHARE and an arm swing under HANDS_MAX_ARM_SWING give the
# trees' probability no say in a run becoming walking (RepeatGate.swift: clapping repeats each beat and neither pushes
# along gravity nor alternates; a swept plateau, bench/h47clap_sweep_result.md). 0: off.
HANDS_MAX_OWN_SHARE = 0.175
HANDS_MAX_ARM_SWING = -0.05
SCALES = []  # amplitude augmentation: copies of the training windows with |a| scaled by each factor (log_std shifted)


def run(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


def group_of(entry):
    """The unit held out together: a WISDM, DSADS or TUG subject, a Bangle.js file, an Oxford user, a wrist_watch
    recording."""
    f = entry["file"]
    ds, name = f.split("/", 1)
    if ds in ("wisdm_watch", "dsads_arm", "tug_wrist"):
        return ds, entry["subject"]
    if ds == "oxford_opt":
        return ds, name.split("_")[1]
    if ds == "wrist_watch":
        return ds, re.sub(r"^\d+hz_", "", name)
    return ds, name


SLOW_AS_WALKING = False  # --slow-as-walking: a diagnostic (issue #36); never used for the shipped model


def is_slow_walk(entry):
    return entry["file"].startswith("wrist_watch/") and "slow-walking" in entry["file"]


# The data sets a model can be trained without and tested on (`--leave-out-datasets`): each a folder of a manifest.
DATASETS = ("wisdm_watch", "dsads_arm", "tug_wrist", "bangle_wrist", "wrist_watch", "oxford_opt")
# Activities without a count that are gait: steps, whatever their pace (a pedometer that calls a run "not walking" is
# wrong), by the class their steps per minute are judged in. DSADS's other uncounted activities (basketball, jumping,
# the cross-trainer, moving about in a lift) mix steps with play and are neither trained on nor scored.
GAIT = {"walking": "walking", "walking-treadmill-4kmh": "walking", "walking-treadmill-4kmh-15deg": "walking",
        "jogging": "running", "running-treadmill-8kmh": "running", "stairs": "stairs", "stairs-up": "stairs",
        "stairs-down": "stairs", "stepper": "stairs", "timed-up-and-go": "tug"}
# --old-training-set: the training data and labels of the model before issue #47 (the steps manifest, WISDM's 12
# activities and its walking; every recording under 100 true steps, slow and short walks too, as not walking).
OLD_TRAINING_SET = False


def dataset_of(entry):
    return entry["file"].split("/")[0]


def gait_of(entry):
    """walking, running, stairs or tug for a recording of gait without a count; None otherwise."""
    return GAIT.get(entry.get("activity", "")) if entry["truth_steps"] == "" else None


def label_of(entry):
    """1 walking (any gait), 0 not, None: not trained on."""
    t = entry["truth_steps"]
    if SLOW_AS_WALKING and is_slow_walk(entry):
        return 1
    if OLD_TRAINING_SET:
        if dataset_of(entry) in ("dsads_arm", "tug_wrist") or entry.get("activity") in ("jogging", "stairs"):
            return None
        return 1 if t == "" or int(t) >= 100 else 0
    if t == "":
        return 1 if gait_of(entry) else None
    # A counted walk is walking however few its steps (the wrist_watch slow and 25 Hz walks have 34-96).
    return 1 if int(t) >= 100 or "walking" in entry["file"] else 0


def load(binary, shared, work):
    entries, windows = [], []
    # The windows the plain rhythm scores (weak peaks off): the model learns motion, not how long a faded stretch
    # keeps a walk going. Every due window (`confident` above 1): the detector's skipping of every other window inside
    # a confident walk depends on the model being trained. Every long interval filled (`shortLongGait` off) and no
    # stride-long start halved (`fillStrideStart` off): which steps of a gait count is the rhythm's business, not the
    # model's. No bout look-back and no short bouts judged on their own (issue #47): which windows the plain rhythm
    # holds steps in, so that the detector's bout side can change without changing the trees. (`enter` does not
    # change which windows are dumped.) All-zero samples read as the recordings hold them (`zeroHoldSeconds` −1):
    # only DSADS p1 and p6 have them (1 s of zeros every 5 s), and trees trained on those ten files held let SensorWatch
    # PC work through, 0 → 2.12-6.88 false steps per file over three bagging seeds (h47zeros2, bench/accuracy.md).
    dump_parameters = os.path.join(work, "dump_parameters.json")
    with open(dump_parameters, "w") as f:
        json.dump({"minSwingInWalk": 1e9, "shortLongGait": False, "fillStrideStart": False, "lookBackSeconds": 0,
                   "shortBoutMinSteps": 0, "zeroHoldSeconds": -1,
                   "recognizer": {"enabled": True, "enter": 0.7, "stay": STAY, "confident": 2}}, f)
    for name in ("steps", "activities"):
        manifest = os.path.join(shared, "data", name, "manifest.csv")
        out = os.path.join(work, name)
        run([binary, "eval", "--features", out, "--json", "--parameters", dump_parameters, manifest])
        rows = list(csv.DictReader(open(manifest)))
        for r in rows:
            r["manifest"] = manifest
        entries += rows
        windows += windows_with_steps(out)
    return entries, windows


def augmented(binary, shared, work, entries, spec):
    """Training-only copies of every recording (issue #36): `resample:R` resamples each recording faster than R Hz to
    R Hz (box low-pass over the samples that fold into one, then linear interpolation); `stretch:S` multiplies its
    times by S (S > 1: slower cadences). A third field `:walking` or `:other` copies the recordings of that class
    only. `degrade:SEED` makes each recording a cheaper or other sensor's (`degraded`), drawn from SEED and the file's
    name. Written under `work`, their features dumped as for the originals. Returns {copy's file: its source entry}
    and the copies' windows; a copy is left out of every fold its source is."""
    kind, value, *only = spec.split(":")
    value = float(value)
    folder = os.path.join(work, "aug_" + re.sub(r"[^0-9a-z.]", "_", spec))
    sources, manifests = {}, collections.defaultdict(list)
    for e in entries:
        if (e["file"] in LONG_WALKS or label_of(e) is None
                or (only and label_of(e) != (1 if only[0] == "walking" else 0))):
            continue
        src = os.path.join(os.path.dirname(e["manifest"]), e["file"])
        with open(src) as fh:
            header = fh.readline().strip()
        data = np.loadtxt(src, delimiter=",", skiprows=1, ndmin=2)
        t = data[:, 0]
        if kind == "stretch":
            out = data.copy()
            out[:, 0] = t * value
        elif kind == "resample":
            rate = (len(t) - 1) / ((t[-1] - t[0]) / 1000)
            if rate < value * 1.2:
                continue
            out = resampled(data, value)
        elif kind == "degrade":
            out = degraded(data, np.random.default_rng([int(value), zlib.crc32(e["file"].encode())]))
        else:
            sys.exit(f"train_walking: unknown augmentation {spec}")
        name = os.path.join(os.path.basename(os.path.dirname(e["manifest"])), e["file"])
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.savetxt(path, out, delimiter=",", header=header, comments="", fmt="%.5f")
        key = f"{spec}/{e['file']}"
        sources[key] = e
        manifests[os.path.basename(os.path.dirname(e["manifest"]))].append((name, e["truth_steps"], key))
    windows = []
    for m, rows in manifests.items():
        manifest = os.path.join(folder, f"manifest_{m}.csv")
        with open(manifest, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["file", "truth_steps"])
            for name, truth, _ in rows:
                w.writerow([name, truth])
        out = os.path.join(folder, f"features_{m}")
        run([binary, "eval", "--features", out, "--json", "--parameters", os.path.join(work, "dump_parameters.json"),
             manifest])
        back = {name: key for name, _, key in rows}
        windows += [(back[f], v, ax) for f, v, ax in windows_with_steps(out)]
    return sources, windows


def resampled(data, hz):
    """`data` (t_ms then value columns) at `hz`: a box low-pass over the samples that fold into one, then linear
    interpolation."""
    t = data[:, 0]
    rate = (len(t) - 1) / ((t[-1] - t[0]) / 1000)
    n = max(1, int(round(rate / hz)))
    kernel = np.ones(n) / n
    smooth = np.stack([np.convolve(data[:, c], kernel, mode="same") for c in range(1, data.shape[1])], 1)
    tn = np.arange(t[0], t[-1], 1000 / hz)
    return np.column_stack([tn] + [np.interp(tn, t, smooth[:, c]) for c in range(smooth.shape[1])])


G = 9.80665
DEGRADED_RATES = (12.5, 16, 20, 25, 32, 50, 100)


def degraded(data, rng):
    """A copy of a recording as a cheaper or other sensor would give it (issue #47): at a lower rate (12.5-100 Hz,
    when below the recording's own), turned to a random orientation, with noise (up to 0.05 g), clipped at a range
    of ±1.5, 2, 4 or 8 g and quantised to 6-10 bits over that range. A magnitude-only recording gets the rate, noise
    and quantisation."""
    t = data[:, 0]
    rate = (len(t) - 1) / ((t[-1] - t[0]) / 1000)
    lower = [hz for hz in DEGRADED_RATES if hz < rate * 0.9]
    if lower:
        data = resampled(data, float(rng.choice(lower)))
    values = data[:, 1:].copy()
    reach = float(rng.choice([1.5, 2, 4, 8], p=[0.3, 0.3, 0.2, 0.2])) * G
    bits = int(rng.integers(6, 11))
    values += rng.normal(0, rng.uniform(0, 0.05) * G, values.shape)
    if values.shape[1] == 3:
        q = rng.normal(size=4)
        w, x, y, z = q / np.linalg.norm(q)
        turn = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        values = values @ turn.T
    return np.column_stack([data[:, 0], as_sensor(values, reach, bits)])


def as_sensor(values, reach, bits):
    """`values` (m/s²) as a sensor of range ±`reach` and `bits` bits reads them: three axes each clipped at ±reach,
    |a| alone (one column) kept positive and not clipped, then rounded to the sensor's step, 2 reach / 2^bits."""
    step = 2 * reach / 2 ** bits
    values = np.clip(values, -reach, reach) if values.shape[1] == 3 else np.abs(values)
    return np.round(values / step) * step


def windows_with_steps(out):
    """The windows `eval --features` wrote to `out` that hold at least one rhythm step: (file, features, has_axes)."""
    steps = collections.defaultdict(list)
    for s in csv.DictReader(open(os.path.join(out, "steps.csv"))):
        steps[s["file"]].append(float(s["t_s"]))
    steps = {f: np.sort(np.array(v)) for f, v in steps.items()}
    windows = []
    reader = csv.DictReader(open(os.path.join(out, "windows.csv")))
    written = reader.fieldnames[reader.fieldnames.index("has_axes") + 1:]
    if written != NAMES:  # the trees refer to features by their index in WindowFeatures.names
        sys.exit(f"train_walking: steptweet writes the features {written}, this script expects {NAMES}: update NAMES "
                 "and FEATURE_SET to match WindowFeatures")
    for w in reader:
        st = steps.get(w["file"])
        if st is None:
            continue
        a, b = float(w["start_s"]), float(w["end_s"])
        if np.searchsorted(st, b) - np.searchsorted(st, a) == 0:
            continue
        windows.append((w["file"], [float(w[k]) for k in NAMES], w["has_axes"] == "1"))
    return windows


def fit(X, y, weight, groups=None):
    """Boosted trees by Newton steps on the weighted logistic loss; returns the Swift layout: every tree complete to
    DEPTH, breadth first (children of node i at 2i+1 for feature < threshold, 2i+2 otherwise), leaves scaled by RATE."""
    weight = weight / weight.mean()
    # A missing value (NaN: an axis feature of a window without axes) bins above every edge and goes right at every
    # split, as `WalkingTrees` sends it (NaN < threshold is false).
    edges = [np.unique(np.nanquantile(X[:, j], np.linspace(0, 1, BINS + 1)[1:-1])) if np.isfinite(X[:, j]).any()
             else np.zeros(0) for j in range(X.shape[1])]
    binned = np.stack([np.searchsorted(edges[j], X[:, j], side="right") for j in range(X.shape[1])], 1)
    if groups is None:
        groups = np.zeros(len(y), dtype=int)
    rng = np.random.default_rng(SEED)
    base = float(np.log((weight * y).sum() / (weight * (1 - y)).sum()))
    score = np.full(len(y), base)
    splits = 2 ** DEPTH - 1
    model = {"featureSet": FEATURE_SET, "depth": DEPTH, "base": base, "features": [], "thresholds": [], "leaves": []}
    for _ in range(TREES):
        p = 1 / (1 + np.exp(-score))
        g, h = weight * (p - y), weight * p * (1 - p)
        features, thresholds, leaves = [0] * splits, [1e300] * splits, [0.0] * (splits + 1)
        rows = np.arange(len(y))
        if UNIT_SUBSAMPLE < 1:  # each tree sees a random share of the held-out units (subjects, files), fixed seed
            units = np.unique(groups)
            chosen = rng.choice(units, max(1, int(round(UNIT_SUBSAMPLE * len(units)))), replace=False)
            rows = rows[np.isin(groups, chosen)]
        grow(X, binned, edges, g, h, rows, 0, 0, features, thresholds, leaves, groups)
        model["features"] += features
        model["thresholds"] += thresholds
        model["leaves"] += [RATE * v for v in leaves]
        score += RATE * np.array(leaves)[leaf_index(X, features, thresholds)]
    return model


def grow(X, binned, edges, g, h, rows, node, level, features, thresholds, leaves, groups, lo=-np.inf, hi=np.inf):
    """Fills node `node` (at `level`) of one complete tree from the windows `rows`. A node that cannot gain by a
    split keeps threshold 1e300 (every window goes left) and copies its value to the leaves below it. With MONOTONE,
    a split on a constrained feature must order its two sides' values the constraint's way, and every value below it
    stays within the bounds the split sets (XGBoost's method), so the whole model moves one way along that feature."""
    G, H = g[rows].sum(), h[rows].sum()
    if level == DEPTH:
        leaves[node - (2 ** DEPTH - 1)] = float(np.clip(-G / (H + L2), lo, hi))
        return
    def side_gain(sg, sh):  # the loss reduction of one side at its value, clipped to the node's bounds
        w = np.clip(-sg / (sh + L2), lo, hi)
        return -(2 * sg * w + (sh + L2) * w * w), w
    parent, _ = side_gain(G, H)
    best = (1e-9, None, None, None)
    for j in USE:
        nb = len(edges[j]) + 1
        cg = np.cumsum(np.bincount(binned[rows, j], g[rows], nb))[:-1]
        ch = np.cumsum(np.bincount(binned[rows, j], h[rows], nb))[:-1]
        gl, wl = side_gain(cg, ch)
        gr, wr = side_gain(G - cg, H - ch)
        gain = gl + gr - parent
        gain[(ch < 0.05) | (H - ch < 0.05)] = -1
        c = MONOTONE.get(j, 0)
        if c:
            gain[c * (wr - wl) < 0] = -1
        if MIN_LEAF:
            cn = np.cumsum(np.bincount(binned[rows, j], None, nb))[:-1]
            gain[(cn < MIN_LEAF) | (len(rows) - cn < MIN_LEAF)] = -1
        if MIN_LEAF_GROUPS:
            gain[~enough_groups(binned[rows, j], groups[rows], nb)] = -1
        k = int(np.argmax(gain))
        if gain[k] > best[0]:
            best = (gain[k], j, float(edges[j][k]), (wl[k] + wr[k]) / 2 if c else None)
    _, j, threshold, mid = best
    if j is None:
        left, right = rows, rows[:0]
    else:
        features[node], thresholds[node] = j, threshold
        left, right = rows[X[rows, j] < threshold], rows[X[rows, j] >= threshold]
    (llo, lhi), (rlo, rhi) = (lo, hi), (lo, hi)
    if mid is not None:  # increasing: the left side stays under the middle, the right above; decreasing, the reverse
        (llo, lhi), (rlo, rhi) = ((lo, mid), (mid, hi)) if MONOTONE[j] > 0 else ((mid, hi), (lo, mid))
    grow(X, binned, edges, g, h, left, 2 * node + 1, level + 1, features, thresholds, leaves, groups, llo, lhi)
    if j is None:  # the right side is never taken: give its leaves the same value
        grow(X, binned, edges, g, h, left, 2 * node + 2, level + 1, features, thresholds, leaves, groups, lo, hi)
    else:
        grow(X, binned, edges, g, h, right, 2 * node + 2, level + 1, features, thresholds, leaves, groups, rlo, rhi)


def enough_groups(bins, groups, nb):
    """For each candidate split (bins 0..k left, k+1.. right): whether both sides hold windows of at least
    MIN_LEAF_GROUPS distinct units."""
    ids, inv = np.unique(groups, return_inverse=True)
    lo = np.full(len(ids), nb)
    hi = np.full(len(ids), -1)
    np.minimum.at(lo, inv, bins)
    np.maximum.at(hi, inv, bins)
    k = np.arange(nb - 1)
    left = (lo[None, :] <= k[:, None]).sum(1)  # units with a window in bins 0..k
    right = (hi[None, :] > k[:, None]).sum(1)
    return (left >= MIN_LEAF_GROUPS) & (right >= MIN_LEAF_GROUPS)


def leaf_index(X, features, thresholds):
    node = np.zeros(len(X), dtype=int)
    for _ in range(DEPTH):
        node = 2 * node + np.where(X[np.arange(len(X)), np.array(features)[node]] < np.array(thresholds)[node], 1, 2)
    return node - (2 ** DEPTH - 1)


def training_set(entries_by_file, windows, held_out_groups, fit_long_walk=False, with_datasets=False):
    """Every window's twelve magnitude features (with or without axes), its label, its weight and its held-out unit.
    With `fit_long_walk`, the 3 h walk's windows are trained on as walking in every fold, its own too (a diagnostic).
    Windows of augmented copies (`windows` entries whose file maps to its source recording's entry) follow their
    source: left out with it, labelled as it is."""
    X, y, keys, units = [], [], [], []
    for f, values, has_axes in windows:
        e = entries_by_file[f]
        source = e["file"]
        if fit_long_walk and source == LONG_WALKS[0]:
            pass
        elif (source in LONG_WALKS or group_of(e) in held_out_groups or dataset_of(e) in held_out_groups
              or label_of(e) is None):
            continue
        axes = [list(values[MAGNITUDE:]) if has_axes else [np.nan] * (len(NAMES) - MAGNITUDE)]
        if MAGNITUDE_COPIES and has_axes:
            axes.append([np.nan] * (len(NAMES) - MAGNITUDE))
        for scale in [1.0] + SCALES:
            for a in axes:
                v = list(values[:MAGNITUDE]) + a
                v[0] += float(np.log(scale))  # log_std: |a| scaled by `scale`; every other feature is scale-free
                X.append(v)
                y.append(label_of(e))
                keys.append((source.split("/")[0], label_of(e)))
                units.append(group_of(e))
    X, y = np.array(X), np.array(y, dtype=float)
    count = collections.Counter(keys)
    if SUBJECT_WEIGHT:
        per_unit = collections.Counter(zip(keys, units))
        units_in = collections.Counter(k for k, _ in per_unit)
        weight = np.array([len(keys) / (len(count) * units_in[k] * per_unit[(k, u)]) for k, u in zip(keys, units)])
    else:
        weight = np.array([len(keys) / (len(count) * count[k]) for k in keys])
    ids = {u: i for i, u in enumerate(sorted(set(units)))}
    groups = np.array([ids[u] for u in units], dtype=int)
    return (X, y, weight, groups) + ((np.array([u[0] for u in units]),) if with_datasets else ())


def folds(entries):
    by_ds = collections.defaultdict(list)
    for e in entries:
        g = group_of(e)
        if g not in by_ds[g[0]]:
            by_ds[g[0]].append(g)
    assignment = collections.defaultdict(set)
    for ds, groups in by_ds.items():
        for i, g in enumerate(sorted(groups)):
            assignment[i % FOLDS].add(g)
    return [assignment[k] for k in range(FOLDS)]


def fit_model(by_file, windows, held, fit_long_walk=False):
    X, y, weight, groups, datasets = training_set(by_file, windows, held, fit_long_walk, with_datasets=True)
    return fit(X, y, weight, groups) if BAG <= 1 else bagged(X, y, weight, groups, datasets)


def bagged(X, y, weight, groups, datasets):
    """Bagging (h47bag): BAG models, each fitted on a random BAG_SHARE of every data set's training units (subjects,
    files; drawn from SEED and the bag's index), averaged as one model: their trees one after another, each leaf and
    the base divided by BAG, so the summed logit is the models' mean logit."""
    models = []
    for k in range(BAG):
        rng = np.random.default_rng([SEED, k])
        chosen = []
        for d in np.unique(datasets):
            units = np.unique(groups[datasets == d])
            chosen += list(rng.choice(units, max(1, int(round(BAG_SHARE * len(units)))), replace=False))
        rows = np.isin(groups, chosen)
        models.append(fit(X[rows], y[rows], weight[rows], groups[rows]))
    model = dict(models[0], base=float(np.mean([m["base"] for m in models])))
    for key in ("features", "thresholds"):
        model[key] = [v for m in models for v in m[key]]
    model["leaves"] = [v / BAG for m in models for v in m["leaves"]]
    return model


def parameters_json(model, enter, stay=None):
    return {"recognizer": {"enabled": True, "model": model, "enter": enter, "stay": STAY if stay is None else stay,
                           "minAlongShare": MIN_ALONG_SHARE, "armSwingOpens": ARM_SWING_OPENS,
                           "maxStrideTurn": MAX_STRIDE_TURN, "turnOpensAlongStep": TURN_OPENS_ALONG_STEP,
                           "minAlongOwnShare": MIN_ALONG_OWN_SHARE, "handsMaxOwnShare": HANDS_MAX_OWN_SHARE,
                           "handsMaxArmSwing": HANDS_MAX_ARM_SWING}}


def evaluate(binary, entries, params, threshold, work, tag, magnitude_only=False):
    """Counts the given entries with these parameters; returns {file: (counted, duration_s)}."""
    results = {}
    by_manifest = collections.defaultdict(list)
    for e in entries:
        by_manifest[e["manifest"]].append(e)
    pfile = os.path.join(work, f"params_{tag}.json")
    json.dump(params, open(pfile, "w"))
    for manifest, es in by_manifest.items():
        # Absolute paths: the fold's manifest lives in the work folder, never beside the shared data.
        folder = os.path.dirname(os.path.abspath(manifest))
        back = {os.path.join(folder, e["file"]): e["file"] for e in es}
        sub = os.path.join(work, f"fold_{tag}.csv")
        with open(sub, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["file", "truth_steps"])
            for path, e in zip(back, es):
                w.writerow([path, e["truth_steps"]])
        only = ["--magnitude-only"] if magnitude_only else []
        out = json.loads(run([binary, "eval", "--json", "--parameters", pfile, "--enter", str(threshold), sub] + only))
        for f in out["files"]:
            results[back[f["file"]]] = (f["counted"], f["duration_s"])
    return results


def summarise(entries, counts):
    """The numbers issue #10 targets, per set."""
    def pick(pred):
        return [e for e in entries if pred(e)]
    def mape(es):
        errs = [abs(counts[e["file"]][0] - int(e["truth_steps"])) / int(e["truth_steps"]) * 100 for e in es]
        return sum(errs) / len(errs) if errs else float("nan")
    def false_steps(es):
        return sum(max(0, counts[e["file"]][0] - int(e["truth_steps"])) for e in es)
    def hours(es):
        return sum(counts[e["file"]][1] for e in es) / 3600
    ds = lambda e: e["file"].split("/")[0]
    walk = lambda e: e["truth_steps"] != "" and int(e["truth_steps"]) >= 100
    low = lambda e: e["truth_steps"] != "" and int(e["truth_steps"]) < 100
    wisdm_low = pick(lambda e: ds(e) == "wisdm_watch" and low(e))
    wisdm_walk = pick(lambda e: ds(e) == "wisdm_watch" and e.get("activity") == "walking")
    bangle_walks = pick(lambda e: ds(e) == "bangle_wrist" and walk(e) and e["file"] not in LONG_WALKS)
    s = collections.OrderedDict()
    s["wisdm_false_per_hour"] = false_steps(wisdm_low) / hours(wisdm_low)
    s["wisdm_walking_min_per_minute"] = min(counts[e["file"]][0] / (counts[e["file"]][1] / 60) for e in wisdm_walk)
    s["bangle_mape"] = mape(bangle_walks)  # the 13 counted walks of 100-150 steps
    s["bangle_mape_15"] = mape(pick(lambda e: ds(e) == "bangle_wrist" and walk(e)))  # with the two long walks
    for f in LONG_WALKS:
        e = next(e for e in entries if e["file"] == f)
        s["long_" + f.split("/")[1][:-4]] = (counts[f][0] - int(e["truth_steps"])) / int(e["truth_steps"]) * 100
    s["bangle_zero_false"] = false_steps(pick(lambda e: ds(e) == "bangle_wrist" and low(e)))
    s["oxford_mape"] = mape(pick(lambda e: ds(e) == "oxford_opt"))
    s["wrist_watch_mape"] = mape(pick(lambda e: ds(e) == "wrist_watch" and walk(e)))
    pc = pick(lambda e: ds(e) == "wrist_watch" and low(e))
    s["wrist_watch_pc_false_per_file"] = false_steps(pc) / len(pc)
    per_activity = collections.OrderedDict()
    for e in wisdm_low:
        per_activity.setdefault(e["activity"], []).append(e)
    s["wisdm_per_activity"] = {a: false_steps(es) / hours(es) for a, es in per_activity.items()}
    return s


def by_subject(entries, counts):
    """Printed beside the targets, never saved (issue #36): the worst WISDM subject's false steps per hour over the
    12 activities, and each wrist_watch slow walk's count against its truth."""
    per = collections.defaultdict(lambda: [0, 0.0])
    for e in entries:
        if e["file"].startswith("wisdm_watch/") and e["truth_steps"] == "0":
            per[e["subject"]][0] += counts[e["file"]][0]
            per[e["subject"]][1] += counts[e["file"]][1] / 3600
    worst = max(per, key=lambda k: per[k][0] / per[k][1])
    ranked = sorted(per, key=lambda k: -per[k][0] / per[k][1])
    slow = {e["file"].split("/")[1][:-4]: f"{counts[e['file']][0]}/{e['truth_steps']}" for e in entries
            if is_slow_walk(e)}
    return {"wisdm_worst_subject": f"{worst} {per[worst][0] / per[worst][1]:.1f}/h",
            "wisdm_subjects_over_250_per_hour": sum(1 for v in per.values() if v[0] / v[1] > 250),
            "wisdm_worst_five": " ".join(f"{k}:{per[k][0] / per[k][1]:.0f}" for k in ranked[:5]),
            "slow_walks": slow}


def leave_out_datasets(binary, entries, by_file, windows, out_dir, fit_long_walk=False):
    """Out of dataset (issue #47): for each data set, a model fitted without it (written to OUT_DIR/DATASET.json, what
    `steptweet eval --leave-out DATASET` reads) counts that data set's recordings. Returns {file: (counted, s)}."""
    os.makedirs(out_dir, exist_ok=True)
    counts = {}
    for d in DATASETS:
        model = fit_model(by_file, windows, {d}, fit_long_walk)
        path = os.path.join(out_dir, f"{d}.json")
        json.dump(parameters_json(model, 0.7), open(path, "w"))
        for manifest in sorted({e["manifest"] for e in entries if dataset_of(e) == d}):
            out = json.loads(run([binary, "eval", "--json", "--leave-out", d, "--models", out_dir, manifest]))
            for f in out["files"]:
                counts[f["file"]] = (f["counted"], f["duration_s"])
    return counts


def person_of(entry):
    """Whose recording it is, for the worst person of a data set: the subject, else the unit held out together."""
    return entry.get("subject") or group_of(entry)[1]


def out_of_dataset(entries, counts):
    """The figures issue #47 targets, per data set and per person (the worst shown), as markdown rows, and the pooled
    non-walking false steps per hour. `counts`: {file: (counted, duration_s)}."""
    rows, pooled = [], [0, 0.0]
    rate = lambda e: counts[e["file"]][0] / (counts[e["file"]][1] / 60)
    ape = lambda e: abs(counts[e["file"]][0] - int(e["truth_steps"])) / int(e["truth_steps"]) * 100
    for d in DATASETS:
        es = [e for e in entries if dataset_of(e) == d and e["file"] in counts and e["file"] not in LONG_WALKS]
        zero = [e for e in es if e["truth_steps"] == "0"]
        if zero:
            per = collections.defaultdict(lambda: [0, 0.0])
            for e in zero:
                per[person_of(e)][0] += counts[e["file"]][0]
                per[person_of(e)][1] += counts[e["file"]][1] / 3600
            total = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
            pooled[0] += total[0]
            pooled[1] += total[1]
            worst = max(per, key=lambda k: per[k][0] / per[k][1])
            rows.append((d, "non-walking, false steps/h", f"{total[0] / total[1]:.1f} ({total[0]} in {total[1]:.1f} h)",
                         f"{worst}: {per[worst][0] / per[worst][1]:.0f}"))
            acts = collections.defaultdict(list)
            for e in zero:
                acts[e.get("activity", "")].append(e)
            for a in ("brushing-teeth", "combing-hair", "clapping", "folding-clothes"):
                if acts.get(a):
                    n, h = sum(counts[e["file"]][0] for e in acts[a]), sum(counts[e["file"]][1] for e in acts[a]) / 3600
                    rows.append((d, f"{a}, false steps/h", f"{n / h:.0f}", ""))
        for g in ("walking", "running", "stairs"):
            gs = sorted((e for e in es if gait_of(e) == g), key=rate)
            if gs:
                rows.append((d, f"{g}, steps/min (median)", f"{np.median([rate(e) for e in gs]):.1f}",
                             f"{gs[0]['file'].split('/')[1][:-4]}: {rate(gs[0]):.0f}"))
        tug = sorted((e for e in es if gait_of(e) == "tug"), key=lambda e: counts[e["file"]][0])
        if tug:
            n = [counts[e["file"]][0] for e in tug]
            rows.append((d, "TUG steps per run (median)", f"{np.median(n):.1f} ({sum(v >= 6 for v in n)} of {len(n)} "
                         "runs >= 6)", f"{tug[0]['file'].split('/')[1][:-4]}: {n[0]}"))
        walks = sorted((e for e in es if e["truth_steps"] not in ("", "0") and label_of_counted(e)), key=ape)
        if walks:
            rows.append((d, "walks, MAPE", f"{np.mean([ape(e) for e in walks]):.2f} % ({len(walks)} walks)",
                         f"{walks[-1]['file'].split('/')[1][:-4]}: {ape(walks[-1]):.1f} %"))
        if d == "wrist_watch":
            pc = [e for e in zero if "pc-working" in e["file"]]
            rows.append((d, "PC work, false steps per file", f"{sum(counts[e['file']][0] for e in pc) / len(pc):.2f}",
                         ""))
    return rows, pooled[0] / pooled[1] if pooled[1] else float("nan")


def label_of_counted(entry):
    """Whether a counted recording is scored by MAPE: 100 true steps or more (fewer say little as a percentage)."""
    return int(entry["truth_steps"]) >= 100


def markdown(rows, pooled):
    lines = ["| held out | measure | out of dataset | worst person or file |", "|---|---|---|---|"]
    lines += [f"| {d} | {m} | {v} | {w} |" for d, m, v, w in rows]
    lines.append(f"| every data set | non-walking, false steps/h pooled | {pooled:.1f} | |")
    return "\n".join(lines)


TREES_PER_FILE = 70  # about 5 lines a tree: every generated file stays under 400 lines


def swift_rows(values, fmt, per_line):
    items = [fmt(v) for v in values]
    return ",\n".join("                " + ", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line))


def swift_sources(model, enter):
    """WalkingModel.swift (the parameters, joining the parts) and WalkingModelTreesN.swift (TREES_PER_FILE trees
    each), as {file name: source}."""
    splits = 2 ** model["depth"] - 1
    leaves = splits + 1
    trees = len(model["leaves"]) // leaves
    parts = [(first, min(first + TREES_PER_FILE, trees)) for first in range(0, trees, TREES_PER_FILE)]
    rises = [NAMES[j] for j, c in sorted(MONOTONE.items()) if c > 0]
    falls = [NAMES[j] for j, c in sorted(MONOTONE.items()) if c < 0]
    monotone = "".join(f"\n/// The probability only {word} as {' and '.join(names)} grow{'s' if len(names) == 1 else ''}."
                       for word, names in (("rises", rises), ("falls", falls)) if names)
    header = "// Generated by scripts/train_walking.py from the recordings in ../shared; do not edit by hand.\n"
    sources = {}
    for number, (first, end) in enumerate(parts, 1):
        sources[f"WalkingModelTrees{number}.swift"] = f"""{header}
extension WalkingModel {{
    /// Trees {first + 1}-{end} of {trees}: per tree one line of {splits} features, then {splits} thresholds and {leaves} leaves.
    static let trees{number} = WalkingTrees(
        depth: {model['depth']},
        base: 0,
        features: [
{swift_rows(model['features'][first * splits:end * splits], str, splits)},
        ],
        thresholds: [
{swift_rows(model['thresholds'][first * splits:end * splits], lambda v: f"{v:.17g}", splits)},
        ],
        leaves: [
{swift_rows(model['leaves'][first * leaves:end * leaves], lambda v: f"{v:.17g}", leaves)},
        ])
}}
"""
    features_doc = "\n".join(textwrap.wrap(
        "Features, by index in WindowFeatures.names: "
        + ", ".join(f"{i}\u00a0{n}" for i, n in enumerate(NAMES) if i in USE) + ".",
        width=116, initial_indent="/// ", subsequent_indent="/// ")).replace("\u00a0", " ")
    joined = ", ".join(f"trees{number}" for number in range(1, len(parts) + 1))
    sources["WalkingModel.swift"] = f"""{header}
/// The walking recognizer's model: {trees} boosted trees of depth {model['depth']} over {"the magnitude features" if max(USE) < MAGNITUDE else "the magnitude and axis features"}, fitted on
/// every shared recording (out-of-fold results in bench/accuracy.md). The trees are in WalkingModelTrees1-{len(parts)}.swift,
/// {TREES_PER_FILE} to a file.{monotone}
{features_doc}
public enum WalkingModel {{
    public static let trained = RecognizerParameters(
        model: WalkingTrees(base: {model['base']:.17g}, joining: [{joined}]),
        enter: {enter},
        stay: {STAY},
        minAlongShare: {MIN_ALONG_SHARE},
        armSwingOpens: {ARM_SWING_OPENS}{f", maxStrideTurn: {MAX_STRIDE_TURN}" if MAX_STRIDE_TURN < 2 else ""}{
            f", turnOpensAlongStep: {TURN_OPENS_ALONG_STEP}" if TURN_OPENS_ALONG_STEP <= 1 else ""}{
            f", minAlongOwnShare: {MIN_ALONG_OWN_SHARE}" if MIN_ALONG_OWN_SHARE > 0 else ""}{
            f", handsMaxOwnShare: {HANDS_MAX_OWN_SHARE}, handsMaxArmSwing: {HANDS_MAX_ARM_SWING}"
            if HANDS_MAX_OWN_SHARE > 0 else ""})
}}
"""
    return sources


def write_swift(model, enter):
    """Writes the generated sources in the committed layout (so they pass `swift format lint` as they are), after
    removing the tree files of an earlier, larger model."""
    folder = os.path.join(ROOT, "Sources/StepDetection")
    for name in os.listdir(folder):
        if name.startswith("WalkingModelTrees") and name.endswith(".swift"):
            os.remove(os.path.join(folder, name))
    paths = []
    for name, source in swift_sources(model, enter).items():
        paths.append(os.path.join(folder, name))
        open(paths[-1], "w").write(source)
    run(["swift", "format", "--in-place", "--configuration", os.path.join(ROOT, ".swift-format")] + paths)


def main():
    global OLD_TRAINING_SET, MIN_ALONG_SHARE, ARM_SWING_OPENS, MAX_STRIDE_TURN, TURN_OPENS_ALONG_STEP, MIN_ALONG_OWN_SHARE
    global UNIT_SUBSAMPLE, MAGNITUDE_COPIES, MAGNITUDE_ONLY, SLOW_AS_WALKING, TREES, DEPTH, RATE, L2, BINS, MIN_LEAF, MIN_LEAF_GROUPS, USE, SUBJECT_WEIGHT, SCALES, MONOTONE, BAG, BAG_SHARE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build/release/steptweet"))
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--enter", dest="threshold", type=float, default=0.7, help="the enter probability to write")
    ap.add_argument("--curve", action="store_true", help="also the out-of-fold curve over thresholds")
    ap.add_argument("--no-write", action="store_true", help="write neither WalkingModel.swift nor bench/walking_model.json")
    ap.add_argument("--slow-as-walking", action="store_true",
                    help="diagnostic (issue #36): train the wrist_watch slow walks as walking; writes nothing")
    ap.add_argument("--thresholds", help="comma-separated enter values for the curve (default: 0.3-0.9)")
    ap.add_argument("--fit-long-walk", action="store_true",
                    help="diagnostic: train every fold on the 3 h walk as walking (in sample for it, as its reference "
                         "says: how far its target can be reached at all); writes nothing")
    g = ap.add_argument_group("regularisation and training data (issue #36; defaults: the shipped model)")
    g.add_argument("--trees", type=int, default=TREES, help="boosting rounds (default %(default)s)")
    g.add_argument("--depth", type=int, default=DEPTH, help="depth of each tree (default %(default)s)")
    g.add_argument("--rate", type=float, default=RATE, help="learning rate (default %(default)s)")
    g.add_argument("--l2", type=float, default=L2, help="ridge penalty on leaf values (default %(default)s)")
    g.add_argument("--bins", type=int, default=BINS, help="candidate thresholds per feature (default %(default)s)")
    g.add_argument("--min-leaf", type=int, default=MIN_LEAF,
                   help="training windows a split leaves on each side at least (default %(default)s: no floor)")
    g.add_argument("--min-leaf-groups", type=int, default=MIN_LEAF_GROUPS,
                   help="distinct held-out units (WISDM subjects, files, users) on each side of a split at least "
                        "(default %(default)s: no floor)")
    g.add_argument("--use", help="comma-separated feature names the trees may split on (default: all twelve "
                                 "magnitude features)")
    g.add_argument("--subject-weight", action="store_true",
                   help="each held-out unit weighs the same within its dataset and class (default: each window)")
    g.add_argument("--scale", help="comma-separated amplitude factors: training copies of every window with "
                                   "log_std shifted by ln(factor) (default: none)")
    g.add_argument("--augment", action="append", default=None,
                   help="training-only copies of every recording, dumped by steptweet: resample:HZ or stretch:FACTOR "
                        "(repeatable; default: degrade:1, one cheaper-sensor copy of each recording; 'none' for none)")
    g.add_argument("--monotone", help="comma-separated NAME+ or NAME-: the model's probability may only rise (+) or "
                   "only fall (-) as that feature grows (default: r1+,r2+; 'none' for no constraint)")
    g.add_argument("--bag", type=int, default=BAG, help="bagging: average this many models, each fitted on a random "
                   "share of every data set's training units (default %(default)s: one model on all)")
    g.add_argument("--bag-share", type=float, default=BAG_SHARE,
                   help="the share of each data set's units one bagged model is fitted on (default %(default)s)")
    g.add_argument("--unit-subsample", type=float, default=UNIT_SUBSAMPLE,
                   help="each tree is grown on this share of the held-out units (WISDM subjects, files, users), "
                        "drawn with a fixed seed (default %(default)s: all). Unlike --bag, the boosting stays one "
                        "chain (each tree corrects the trees before it on every window) and the draw pools the data "
                        "sets; --bag fits whole models, each on a share of every data set, and averages them")
    g.add_argument("--magnitude-copies", action="store_true",
                   help="also train every window that has axes as a magnitude-only one (axis features missing)")
    ap.add_argument("--magnitude-only", action="store_true",
                    help="also count the held-out recordings from |a| alone, as a watch without axes would")
    ap.add_argument("--model-out", help="also write the final model's detector parameters (JSON) here")
    ap.add_argument("--leave-out-dir", default=os.path.join(ROOT, "bench/leave_out"),
                    help="where the models trained without each data set go, one DATASET.json each, for "
                         "`steptweet eval --leave-out DATASET` (default %(default)s)")
    ap.add_argument("--report", help="also write the out-of-dataset table (markdown) here")
    ap.add_argument("--no-folds", action="store_true", help="out of dataset only: skip the 36 out-of-fold models")
    ap.add_argument("--min-along-share", type=float, default=MIN_ALONG_SHARE,
                    help="the gravity gate: windows with axes whose moving energy lies less than this share along "
                         "gravity are not walking (default %(default)s; 0: off)")
    ap.add_argument("--arm-swing-opens", type=float, default=ARM_SWING_OPENS,
                    help="the gravity gate opens for windows whose arm_swing is at least this, whatever their share "
                         "(default %(default)s; above 1: never)")
    ap.add_argument("--max-stride-turn", type=float, default=MAX_STRIDE_TURN,
                    help="windows with axes whose gravity turns more than this over a stride are not walking unless "
                         "the arm swings (default %(default)s: off)")
    ap.add_argument("--turn-opens-along-step", type=float, default=TURN_OPENS_ALONG_STEP,
                    help="a window refused by --max-stride-turn passes when its along_step is at least this "
                         "(default %(default)s: never)")
    ap.add_argument("--min-along-own-share", type=float, default=MIN_ALONG_OWN_SHARE,
                    help="windows with axes whose along_own_share is under this are not walking unless the arm "
                         "swings (default %(default)s; 0: off)")
    ap.add_argument("--old-training-set", action="store_true",
                    help="the training data and labels before issue #47 (for its before column); writes no model")
    ap.add_argument("--counts", help="also write every recording's out-of-fold count (JSON, per threshold) here")
    ap.add_argument("--write-only", action="store_true",
                    help="train nothing: write the Swift sources again from bench/walking_model.json's model")
    a = ap.parse_args()
    SLOW_AS_WALKING = a.slow_as_walking
    OLD_TRAINING_SET = a.old_training_set
    MIN_ALONG_SHARE = 0.0 if a.old_training_set else a.min_along_share
    ARM_SWING_OPENS = 2.0 if a.old_training_set else a.arm_swing_opens
    MAX_STRIDE_TURN = 2.0 if a.old_training_set else a.max_stride_turn
    TURN_OPENS_ALONG_STEP = 2.0 if a.old_training_set else a.turn_opens_along_step
    MIN_ALONG_OWN_SHARE = 0.0 if a.old_training_set else a.min_along_own_share
    MAGNITUDE_COPIES, MAGNITUDE_ONLY, UNIT_SUBSAMPLE = a.magnitude_copies, a.magnitude_only, a.unit_subsample
    TREES, DEPTH, RATE, L2, BINS = a.trees, a.depth, a.rate, a.l2, a.bins
    MIN_LEAF, MIN_LEAF_GROUPS, SUBJECT_WEIGHT = a.min_leaf, a.min_leaf_groups, a.subject_weight
    BAG, BAG_SHARE = a.bag, a.bag_share
    if a.use:
        USE = [NAMES.index(n) for n in a.use.split(",")]
    if a.monotone:
        MONOTONE = {} if a.monotone == "none" else {NAMES.index(n[:-1]): 1 if n[-1] == "+" else -1
                                                    for n in a.monotone.split(",")}
    if a.scale:
        SCALES = [float(v) for v in a.scale.split(",")]
    if a.write_only:
        write_swift(json.load(open(os.path.join(ROOT, "bench/walking_model.json")))["model"], a.threshold)
        return
    with tempfile.TemporaryDirectory() as work:
        entries, windows = load(a.binary, a.shared, work)
        by_file = {e["file"]: e for e in entries}
        for spec in (["degrade:1"] if a.augment is None and not a.old_training_set else a.augment or []):
            if spec == "none":
                continue
            sources, extra = augmented(a.binary, a.shared, work, entries, spec)
            by_file.update(sources)
            windows += extra
        rows, pooled = out_of_dataset(entries, leave_out_datasets(a.binary, entries, by_file, windows,
                                                                  a.leave_out_dir, a.fit_long_walk))
        table_md = markdown(rows, pooled)
        print(table_md)
        if a.report:
            open(a.report, "w").write(table_md + "\n")
        fold_models = []
        for k, held in enumerate([] if a.no_folds else folds(entries)):
            fold_models.append((held, fit_model(by_file, windows, held, a.fit_long_walk)))
        thresholds = [0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9] if a.curve else [a.threshold]
        if a.thresholds:
            thresholds = [float(t) for t in a.thresholds.split(",")]
        if a.no_folds:
            thresholds = []
        table, all_counts = {}, {}
        for t in thresholds:
            counts = {}
            for k, (held, model) in enumerate(fold_models):
                es = [e for e in entries if group_of(e) in held]
                counts.update(evaluate(a.binary, es, parameters_json(model, t), t, work, f"{k}"))
            table[t] = summarise(entries, counts)
            all_counts[str(t)] = counts
            if t == a.threshold:
                print(f"out of fold, enter {t}:\n" + markdown(*out_of_dataset(entries, counts)))
            print(f"threshold {t}: " + json.dumps({k: (round(v, 2) if isinstance(v, float) else v)
                                                   for k, v in table[t].items() if k != "wisdm_per_activity"}))
            print(f"  by subject {t}: " + json.dumps(by_subject(entries, counts)))
            if MAGNITUDE_ONLY:
                only = {}
                for k, (held, model) in enumerate(fold_models):
                    es = [e for e in entries if group_of(e) in held]
                    only.update(evaluate(a.binary, es, parameters_json(model, t), t, work, f"{k}", True))
                summary = summarise(entries, only)
                print(f"  magnitude only {t}: " + json.dumps({k: (round(v, 2) if isinstance(v, float) else v)
                                                             for k, v in summary.items() if k != "wisdm_per_activity"}))
                print(f"  magnitude only, by subject {t}: " + json.dumps(by_subject(entries, only)))
        if a.counts:
            json.dump(all_counts, open(a.counts, "w"), indent=0)
        if a.fit_long_walk or a.slow_as_walking or a.old_training_set:  # diagnostics: never shipped
            return
        model = fit_model(by_file, windows, set())
        if a.model_out:
            json.dump(parameters_json(model, a.threshold), open(a.model_out, "w"))
        if not a.no_write:
            write_swift(model, a.threshold)
            json.dump({"enter": {str(t): v for t, v in table.items()}, "stay": STAY, "model": model},
                      open(os.path.join(ROOT, "bench/walking_model.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
