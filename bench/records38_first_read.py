#!/usr/bin/env python3
"""Session 38 (records38): CPU time and peak memory of the first read of a followed export and of a re-import.

For each run and each binary (alternating, so that other builds on the machine weigh on both alike): writes
records37_exports.py's export up to 1 July 2025 (52.7 MB), follows it from a fresh state and fetches until NoData,
then renames the same export over it (a re-import) and fetches until NoData again, under /usr/bin/time: wall,
user + system CPU seconds and peak RSS of the fetches. The CPU time is the figure to compare on a shared machine.

usage: python3 bench/records38_first_read.py RUNS BINARY...
"""
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.argv, ARGS = sys.argv[:2], sys.argv[1:]  # records37_exports reads sys.argv[1] as its binary
import records37_exports as r37  # noqa: E402


def run(binary, records, now):
    """The first read of `records` as a new export, then the same export renamed over it (a re-import)."""
    root = tempfile.mkdtemp(prefix="records38-first-")
    try:
        export = os.path.join(root, "export.xml")
        r37.write(export, records)
        c = os.path.join(root, "c.toml")
        with open(c, "w") as f:
            f.write(f'[source]\npath = "{export}"\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                    '[text]\ntime_zone = "Europe/London"\n[state]\npath = "state.sqlite"\n')
        first = fetches(binary, c, now)
        r37.write(export, records)
        return first, fetches(binary, c, now.replace("12:00", "13:00"))
    finally:
        shutil.rmtree(root)


def fetches(binary, c, now):
    """Wall and CPU seconds and peak RSS of the fetches until NoData."""
    wall, cpu, rss = 0.0, 0.0, 0
    for _ in range(20):
        t0 = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", binary, "fetch", "--config", c, "--now", now,
                            "--json"], capture_output=True, text=True, timeout=600)
        wall += time.monotonic() - t0
        u, s, m = p.stderr.strip().splitlines()[-1].split()
        cpu, rss = cpu + float(u) + float(s), max(rss, int(m))
        j = json.loads(p.stdout)
        if j["result"] != "NewData" and not j.get("backlog"):
            break
    return wall, cpu, rss


def main():
    runs, binaries = int(ARGS[0]), ARGS[1:]
    cut = dt.datetime(2025, 7, 1, tzinfo=r37.UTC)
    records = [r for r in r37.year() if r[2] <= cut]
    for i in range(runs):
        for b in binaries:
            (w1, c1, m1), (w2, c2, m2) = run(b, records, "2025-07-01T12:00:00Z")
            print(f"run {i + 1} {b}: first read wall {w1:.1f} s, cpu {c1:.1f} s, peak RSS {m1 / 1024:.0f} MB; "
                  f"the same export again wall {w2:.1f} s, cpu {c2:.1f} s, peak RSS {m2 / 1024:.0f} MB")


if __name__ == "__main__":
    main()
