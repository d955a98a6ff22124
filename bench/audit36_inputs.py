#!/usr/bin/env python3
"""Damaged input files through `steptweet count` (session 36's audit): each sample of fixtures/formats (and of
../shared/data/formats when present) cut at seeded random offsets, with bytes flipped, emptied, replaced by a
folder, and for the text formats with NaN, huge numbers and dates far in the past or future written into it. Every
run is under a 20 s timeout; the whole script takes a few minutes. Prints one line per run that is suspicious: a
crash (killed by a signal, or exit >= 128), a timeout, an error that does not name the file, or a traceback; and a
summary of exit codes.

    python3 bench/audit36_inputs.py .build/release/steptweet [--seed 36] [--cuts 4] [--flips 4]
"""
import argparse, collections, os, random, re, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = (".csv", ".txt", ".json", ".jsonl", ".xml", ".sql")


def samples():
    roots = [os.path.join(ROOT, "fixtures", "formats"), os.path.join(ROOT, "..", "shared", "data", "formats")]
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                path = os.path.join(folder, name)
                if name.endswith((".md", ".py", ".txt")) and ("LICENSE" in name or "ORIGIN" in name or "NOTES" in name):
                    continue
                if "iio_fake_sysfs" in path or os.path.getsize(path) > 8_000_000:
                    continue
                yield path


def text_mutations(data, rnd):
    """NaN, huge numbers, far dates written over the sample's numbers and years."""
    text = data.decode("utf-8", "replace")
    numbers = list(re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\w.])", text))
    years = list(re.finditer(r"(?<!\d)(19|20)\d\d(?=-\d\d-\d\d)", text))
    out = {}
    for label, repl in (("nan", "NaN"), ("inf", "inf"), ("huge", "1e308"), ("huge-int", "99999999999999999999999"),
                        ("neg", "-1e30")):
        if numbers:
            picks = rnd.sample(numbers, min(5, len(numbers)))
            t = text
            for m in sorted(picks, key=lambda m: -m.start()):
                t = t[:m.start()] + repl + t[m.end():]
            out[label] = t.encode()
    for label, year in (("year-0001", "0001"), ("year-1899", "1899"), ("year-2999", "2999"), ("year-9999", "9999")):
        if years:
            picks = rnd.sample(years, min(3, len(years)))
            t = text
            for m in sorted(picks, key=lambda m: -m.start()):
                t = t[:m.start()] + year + t[m.end():]
            out[label] = t.encode()
    return out


def variants(path, data, rnd, cuts, flips):
    yield "empty", b""
    for _ in range(cuts):
        at = rnd.randrange(1, max(2, len(data)))
        yield f"cut@{at}", data[:at]
    for _ in range(flips):
        b = bytearray(data)
        for _ in range(8):
            if b:
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        yield "flipped", bytes(b)
    if path.endswith(TEXT):
        yield from text_mutations(data, rnd).items()


def run(binary, target, timeout=20):
    start = time.monotonic()
    try:
        p = subprocess.run([binary, "count", target], capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
    except subprocess.TimeoutExpired:
        return "timeout", "", "", time.monotonic() - start
    return p.returncode, p.stdout, p.stderr, time.monotonic() - start


def suspicious(code, out, err, name):
    if code == "timeout":
        return "TIMEOUT"
    if code < 0 or code >= 128:
        return f"CRASH {code}"
    if "Fatal error" in err or "Stack dump" in err or "Backtrace" in err:
        return "TRAP"
    if code != 0 and name not in err:
        return "ERROR WITHOUT FILE NAME"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--cuts", type=int, default=4)
    ap.add_argument("--flips", type=int, default=4)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="steptweet-audit36-inputs-")
    codes = collections.Counter()
    slowest = (0, "")
    try:
        for path in samples():
            data = open(path, "rb").read()
            base = os.path.basename(path)
            for label, mutated in variants(path, data, rnd, a.cuts, a.flips):
                target = os.path.join(work, base)
                with open(target, "wb") as f:
                    f.write(mutated)
                code, out, err, took = run(a.binary, target)
                codes[code] += 1
                slowest = max(slowest, (took, f"{base} {label}"))
                why = suspicious(code, out, err, base)
                if why:
                    print(f"{why:24} {os.path.relpath(path, ROOT)} {label}: exit {code}, {took:.1f} s: "
                          f"{(err.strip().splitlines() or [''])[-1][:200]}", flush=True)
                    keep = os.path.join(work, "kept")
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(target, os.path.join(keep, f"{base}.{label}"))
                os.remove(target)
            target = os.path.join(work, base)
            os.mkdir(target)
            code, out, err, took = run(a.binary, target)
            why = suspicious(code, out, err, base)
            codes[code] += 1
            if why:
                print(f"{why:24} {os.path.relpath(path, ROOT)} as a folder: exit {code}: "
                      f"{(err.strip().splitlines() or [''])[-1][:200]}", flush=True)
            os.rmdir(target)
        print(f"# exit codes: {dict(codes)}; slowest {slowest[0]:.1f} s ({slowest[1]})")
        print(f"# kept suspicious inputs under {work}/kept" if os.path.isdir(os.path.join(work, "kept")) else "")
    finally:
        if not os.path.isdir(os.path.join(work, "kept")):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
