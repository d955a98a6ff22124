#!/usr/bin/env python3
"""h47bag: out-of-dataset figures of several training configurations on one steptweet build's features.

Dumps the features once with --dump-binary (as scripts/train_walking.py does), then for each configuration NAME:KEY=VALUE,... (KEY one
of train_walking's globals: TREES, DEPTH, RATE, L2, BINS, MIN_LEAF, MIN_LEAF_GROUPS, SUBJECT_WEIGHT, UNIT_SUBSAMPLE,
SEED, BAG) fits the six leave-out models and counts each data set with its own, exactly as
`train_walking.py --no-write --no-folds` does (counting with --binary), writing OUT/TAG_NAME.md (the table) and printing one summary line.

    python3 bench/h47bag_sweep.py --binary B --tag a --out bench/h47bag base: d2:DEPTH=2,TREES=80
"""
import argparse, json, os, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import train_walking as tw


def summary(rows, pooled):
    get = {(d, m): v for d, m, v, _ in rows}
    tug = get[("tug_wrist", "TUG steps per run (median)")]
    return {"pooled": round(pooled, 1),
            "wisdm": float(get[("wisdm_watch", "non-walking, false steps/h")].split()[0]),
            "pc": float(get[("wrist_watch", "PC work, false steps per file")]),
            "oxford": float(get[("oxford_opt", "walks, MAPE")].split()[0]),
            "bangle": float(get[("bangle_wrist", "walks, MAPE")].split()[0]),
            "tug6": int(tug.split("(")[1].split()[0])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dump-binary", help="the build whose features are trained on (default: --binary, which counts)")
    ap.add_argument("--tag", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("configs", nargs="+")
    a = ap.parse_args()
    defaults = {k: getattr(tw, k) for k in ("TREES", "DEPTH", "RATE", "L2", "BINS", "MIN_LEAF", "MIN_LEAF_GROUPS",
                                            "SUBJECT_WEIGHT", "UNIT_SUBSAMPLE", "SEED", "BAG", "BAG_SHARE") if hasattr(tw, k)}
    shared = os.path.join(tw.ROOT, "../shared")
    with tempfile.TemporaryDirectory() as work:
        dump = a.dump_binary or a.binary
        entries, windows = tw.load(dump, shared, work)
        by_file = {e["file"]: e for e in entries}
        sources, extra = tw.augmented(dump, shared, work, entries, "degrade:1")
        by_file.update(sources)
        windows += extra
        for spec in a.configs:
            name, _, settings = spec.partition(":")
            for k, v in defaults.items():
                setattr(tw, k, v)
            for kv in filter(None, settings.split(",")):
                k, v = kv.split("=")
                setattr(tw, k, type(defaults[k])(v) if not isinstance(defaults[k], bool) else v == "1")
            models = os.path.join(a.out, f"models_{a.tag}_{name}")
            rows, pooled = tw.out_of_dataset(entries, tw.leave_out_datasets(a.binary, entries, by_file, windows,
                                                                              models))
            open(os.path.join(a.out, f"{a.tag}_{name}.md"), "w").write(tw.markdown(rows, pooled) + "\n")
            print(json.dumps({"tag": a.tag, "config": name, "settings": settings, **summary(rows, pooled)}), flush=True)


if __name__ == "__main__":
    main()
