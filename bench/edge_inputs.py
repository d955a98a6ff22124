#!/usr/bin/env python3
"""h47edge: what `steptweet count` costs on inputs from outside the shared data, for one or more binaries.

  python3 bench/edge_inputs.py [--mb 200] BINARY [BINARY...]   # writes nothing; paste into edge_inputs_result.txt

Generated under bench/out/edge_inputs/ (removed after) from the committed 60 s walk (fixtures/demo_walk_50hz.csv):
- `long.csv`: the walk repeated on one time axis to about --mb MB (a long recording streamed: peak RSS must not grow
  with the file);
- `nul_tail.csv`: the walk once, then --mb MB of NUL bytes without a newline (a logger's preallocated file cut off:
  one long malformed line);
- `bom.csv`: the walk behind a UTF-8 byte-order mark (`--strict`: the exit status; the skipped lines reported);
- `mg.csv`: the walk in mg (`x [mg]`): steps counted.
Each binary runs `count --jobs 1` and `--jobs 2` on the two large files (wall time and peak RSS from
`/usr/bin/time -v`; one run each, they are minutes apart when something is wrong) and `count` on the two small ones.
"""
import argparse, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WALK = os.path.join(ROOT, "fixtures", "demo_walk_50hz.csv")
OUT = os.path.join(ROOT, "bench", "out", "edge_inputs")


def generate(mb):
    os.makedirs(OUT, exist_ok=True)
    lines = open(WALK).read().splitlines()
    header, rows = lines[0], [r.split(",") for r in lines[1:]]
    span = float(rows[-1][0]) + 20
    with open(os.path.join(OUT, "long.csv"), "w") as f:
        f.write(header + "\n")
        k = 0
        while f.tell() < mb * 1_000_000:
            f.write("".join("%.3f,%s,%s,%s\n" % (float(r[0]) + k * span, r[1], r[2], r[3]) for r in rows))
            k += 1
    shutil.copy(WALK, os.path.join(OUT, "nul_tail.csv"))
    with open(os.path.join(OUT, "nul_tail.csv"), "ab") as f:
        block = b"\0" * 1_000_000
        for _ in range(mb):
            f.write(block)
    with open(os.path.join(OUT, "bom.csv"), "wb") as f:
        f.write(b"\xef\xbb\xbf" + open(WALK, "rb").read())
    with open(os.path.join(OUT, "mg.csv"), "w") as f:
        f.write("t_ms,x [mg],y [mg],z [mg]\n")
        for r in rows:
            f.write("%s,%.1f,%.1f,%.1f\n" % (r[0], *(float(v) * 1000 / 9.80665 for v in r[1:])))


def timed(binary, args):
    p = subprocess.run(["/usr/bin/time", "-v", binary] + args, capture_output=True, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    msgs = [l for l in p.stderr.splitlines() if l.startswith("steptweet:")]
    return p.returncode, wall, rss, p.stdout.strip(), msgs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("binaries", nargs="+")
    a = ap.parse_args()
    generate(a.mb)
    try:
        for b in a.binaries:
            print("## %s" % b)
            for name in ["long.csv", "nul_tail.csv"]:
                size = os.path.getsize(os.path.join(OUT, name)) / 1e6
                for jobs in ["1", "2"]:
                    rc, wall, rss, out, msgs = timed(b, ["count", "--jobs", jobs, os.path.join(OUT, name)])
                    print("%-13s %4.0f MB --jobs %s: exit %d, wall %s, peak RSS %.0f MB; %s; %d messages"
                          % (name, size, jobs, rc, wall, rss, out.split(": ", 1)[-1], len(msgs)))
            rc, wall, rss, out, msgs = timed(b, ["count", "--strict", os.path.join(OUT, "bom.csv")])
            print("bom.csv --strict: exit %d; %s; %s" % (rc, out.split(": ", 1)[-1], msgs[:2]))
            rc, wall, rss, out, msgs = timed(b, ["count", os.path.join(OUT, "mg.csv")])
            print("mg.csv: exit %d; %s; %d messages" % (rc, out.split(": ", 1)[-1], len(msgs)))
    finally:
        shutil.rmtree(OUT, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
