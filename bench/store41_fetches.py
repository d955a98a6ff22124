#!/usr/bin/env python3
"""Session 41 (store41): what each fetch of an Apple Health export in any record order costs, under the agent's
default budget (`[schedule] deadline = "30s"`), binary against binary.

The exports are store40_orders.py's (an iPhone and an Apple Watch record of each 50 s walk, a walk every 7 minutes;
WALKS walks, 62,000 give 26.5 MB, 1,170,000 give 499.8 MB), grouped by source, shuffled or in time order, written once
per order and read by every binary. For each binary: `count --json` of the export (the first binary only with
`--count-once`); a fresh state fetched (16 MiB slices) until a fetch says NoData without a backlog, each fetch a new
process under /usr/bin/time: its wall time, user + system CPU, peak RSS and what its warnings say it did (`gathering`,
`settling`, `settled`, `whole`: main's read again whole in one pass); then the state's `steps` summed, the state file's
size and the records left in `reading_spill`. (`fetch --json` has no backlog flag: fetching stops once the saved cursor
is at the export's end with nothing gathered.) With `--newer`, a newer export (500 more walks, every 10th walk's values
changed, the same order) renamed over it and fetched the same way, against its `count`.

usage: python3 bench/store41_fetches.py WALKS ORDER[,ORDER...] BINARY... [--newer] [--count-once] [--per-fetch]
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from store40_orders import count, stored, walks, write  # noqa: E402


def phase(warnings):
    text = " ".join(warnings)
    for word, name in (("read again whole", "whole"), ("were gathered and settled", "settled"),
                       ("being settled", "settling"), ("gathering its records", "gathering")):
        if word in text:
            return name
    return "slice" if "not in time order" not in text else "gathering"


def one_fetch(binary, c, now):
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", binary, "fetch", "--config", c, "--now", now, "--json"],
                       capture_output=True, text=True, timeout=7200)
    wall = time.monotonic() - t0
    u, s, m = p.stderr.strip().splitlines()[-1].split()
    j = json.loads(p.stdout)
    return wall, float(u) + float(s), int(m), j


def read_to_end(state, path):
    """Whether the saved cursor is at the end of the export and settled (`fetch --json` says no backlog)."""
    db = sqlite3.connect(state)
    row = db.execute("select cursor from source_cursor").fetchone()
    db.close()
    cursor = json.loads(row[0]) if row and row[0] else {}
    return cursor.get("offset") == os.path.getsize(path) and "gathering" not in cursor


def fetch_all(binary, c, state, path, now, per_fetch):
    rows = []
    for _ in range(2000):
        wall, cpu, rss, j = one_fetch(binary, c, now)
        rows.append((wall, cpu, rss, phase(j.get("warnings", [])), j["result"]))
        if per_fetch:
            print(f"    fetch {len(rows)}: wall {wall:.1f} s, cpu {cpu:.1f} s, {rss / 1024:.0f} MB, {rows[-1][3]}, "
                  f"{j['result']}, stored {stored(state)}", flush=True)
        if read_to_end(state, path):
            break
    return rows


def spilled(state):
    db = sqlite3.connect(state)
    try:
        return db.execute("select count(*) from reading_spill").fetchone()[0]
    except sqlite3.OperationalError:
        return None  # main's schema has no such table
    finally:
        db.close()


def summary(label, rows, state, whole):
    walls = [r[0] for r in rows]
    cpus = [r[1] for r in rows]
    worst = max(range(len(rows)), key=lambda i: walls[i])
    phases = {}
    for r in rows:
        phases[r[3]] = phases.get(r[3], 0) + 1
    print(f"  {label}: stored {stored(state)} (count {whole}) in {len(rows)} fetches {phases}; "
          f"longest fetch wall {walls[worst]:.1f} s (cpu {cpus[worst]:.1f} s, {rows[worst][3]}), "
          f"largest cpu {max(cpus):.1f} s; total wall {sum(walls):.1f} s, cpu {sum(cpus):.1f} s; "
          f"peak RSS {max(r[2] for r in rows) / 1024:.0f} MB; state {os.path.getsize(state) / 1e6:.1f} MB, "
          f"spill rows left {spilled(state)}", flush=True)


def case(n, order, binaries, newer, count_once, per_fetch):
    root = tempfile.mkdtemp(prefix="store41-")
    try:
        path = os.path.join(root, "export.xml")
        write(path, walks(n), order)
        print(f"{order} {os.path.getsize(path) / 1e6:.1f} MB", flush=True)
        whole = None
        for binary in binaries:
            run = tempfile.mkdtemp(prefix="run-", dir=root)
            state, c = os.path.join(run, "state.sqlite"), os.path.join(run, "c.toml")
            with open(c, "w") as f:
                f.write(f'[source]\npath = "{path}"\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                        'deadline = "30s"\n[text]\ntime_zone = "UTC"\n[state]\npath = "state.sqlite"\n')
            if whole is None or not count_once:
                whole, ccpu, crss, _ = count(binary, path)
                print(f"  count {whole} (cpu {ccpu:.1f} s, {crss / 1024:.0f} MB) by {binary}", flush=True)
            rows = fetch_all(binary, c, state, path, "2045-01-01T00:00:00Z", per_fetch)
            summary(binary, rows, state, whole)
            if newer:
                write(path, walks(n + 500, changed=True), order)
                newer_whole, _, _, _ = count(binary, path)
                rows = fetch_all(binary, c, state, path, "2045-01-01T01:00:00Z", per_fetch)
                summary(binary + " newer export", rows, state, newer_whole)
                write(path, walks(n), order)
            shutil.rmtree(run)
    finally:
        shutil.rmtree(root)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n, orders, binaries = int(args[0]), args[1].split(","), [os.path.abspath(b) for b in args[2:]]
    for order in orders:
        case(n, order, binaries, "--newer" in sys.argv, "--count-once" in sys.argv, "--per-fetch" in sys.argv)


if __name__ == "__main__":
    main()
