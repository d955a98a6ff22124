#!/usr/bin/env python3
"""Session 40 (store40): an Apple Health export in any record order, followed by the agent in 16 MiB slices, against
`steptweet count` (read whole: the definition of right).

Exports (store39_defects.py's case_scattered walks: an iPhone and an Apple Watch record of the same 50 s per walk,
a walk every 7 minutes from 2025-01-01; WALKS walks, 62,000 give 26.5 MB):
- grouped: every iPhone record, then every Apple Watch record (store39's 5b);
- shuffled: the same records in a random order;
- time: in time order (each walk's iPhone record, then its watch record).
For each: `count --json`; a fresh state fetched until a fetch says NoData under /usr/bin/time (user + system CPU, peak RSS, summed
over the fetches; `--fetch-per-slice` sets `[schedule] deadline` to 1 s: about one slice per fetch, each resumed from the
state a fresh process finds, the largest `source_cursor.cursor` seen after a fetch reported); the state's `steps`
summed; then a newer export (the same order, 500 more walks, every 10th walk's values changed) renamed over it and
fetched until NoData, against its `count`.

usage: python3 bench/store40_orders.py BINARY WALKS ORDER... [--fetch-per-slice] [--no-newer]
"""
import datetime as dt
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

UTC = dt.timezone.utc
FMT = "%Y-%m-%d %H:%M:%S +0000"


def walks(n, seed=11, changed=False):
    rnd = random.Random(seed)
    out, t = [], dt.datetime(2025, 1, 1, 6, tzinfo=UTC)
    while len(out) < n:
        p = rnd.randint(10, 110)
        w = p + rnd.randint(-8, 8)
        if changed and len(out) % 10 == 0:
            p, w = p + 7, w + 13
        out.append((t, t + dt.timedelta(seconds=50), p, w))
        t += dt.timedelta(minutes=7)
    return out


def rec(src, s, e, v):
    return (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{src}" unit="count" '
            f'creationDate="{e.strftime(FMT)}" startDate="{s.strftime(FMT)}" endDate="{e.strftime(FMT)}" '
            f'value="{v}"/>\n')


def write(path, ws, order):
    phone = [rec("iPhone", s, e, p) for s, e, p, _ in ws]
    watch = [rec("Apple Watch", s, e, w) for s, e, _, w in ws]
    if order == "grouped":
        lines = phone + watch
    elif order == "time":
        lines = [x for pair in zip(phone, watch) for x in pair]
    else:
        lines = phone + watch
        random.Random(40).shuffle(lines)
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n')
        f.writelines(lines)
        f.write("</HealthData>\n")
    os.rename(tmp, path)


def fetches(binary, c, state, now):
    cpu, rss, n, biggest = 0.0, 0, 0, 0
    t0 = time.monotonic()
    for _ in range(400):
        p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", binary, "fetch", "--config", c, "--now", now,
                            "--json"], capture_output=True, text=True, timeout=3600)
        u, s, m = p.stderr.strip().splitlines()[-1].split()
        cpu, rss, n = cpu + float(u) + float(s), max(rss, int(m)), n + 1
        db = sqlite3.connect(state)
        biggest = max(biggest, db.execute("select coalesce(max(length(cursor)), 0) from source_cursor").fetchone()[0])
        db.close()
        j = json.loads(p.stdout)
        if j["result"] == "NoData" and not j.get("backlog"):
            break  # (a fetch whose 1 s budget ran out says Failed: its delivery is deferred, its slice saved)
    return time.monotonic() - t0, cpu, rss, n, biggest


def stored(state):
    db = sqlite3.connect(state)
    n = db.execute("select coalesce(sum(count), 0) from steps").fetchone()[0]
    db.close()
    return n


def count(binary, path):
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", binary, "count", path, "--json"], capture_output=True,
                       text=True, timeout=3600)
    u, s, m = p.stderr.strip().splitlines()[-1].split()
    return json.loads(p.stdout)["steps"], float(u) + float(s), int(m), time.monotonic() - t0


def case(binary, n, order, per_slice, newer):
    root = tempfile.mkdtemp(prefix="store40-")
    try:
        path, state = os.path.join(root, "export.xml"), os.path.join(root, "state.sqlite")
        write(path, walks(n), order)
        deadline = 'deadline = "1s"\n' if per_slice else 'deadline = "3600s"\n'
        c = os.path.join(root, "c.toml")
        with open(c, "w") as f:
            f.write(f'[source]\npath = "{path}"\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n{deadline}'
                    '[text]\ntime_zone = "UTC"\n[state]\npath = "state.sqlite"\n')
        whole, ccpu, crss, _ = count(binary, path)
        wall, cpu, rss, k, big = fetches(binary, c, state, "2045-01-01T00:00:00Z")
        print(f"{order} {os.path.getsize(path) / 1e6:.1f} MB: count {whole} (cpu {ccpu:.1f} s, {crss / 1024:.0f} MB); "
              f"fetched {stored(state)} in {k} fetches, wall {wall:.1f} s, cpu {cpu:.1f} s, peak RSS "
              f"{rss / 1024:.0f} MB, largest cursor {big} bytes", flush=True)
        if newer:
            write(path, walks(n + 500, changed=True), order)
            whole, _, _, _ = count(binary, path)
            wall, cpu, rss, k, big = fetches(binary, c, state, "2045-01-01T01:00:00Z")
            print(f"{order} newer export renamed over it: count {whole}; stored {stored(state)} after {k} fetches, "
                  f"cpu {cpu:.1f} s, peak RSS {rss / 1024:.0f} MB, largest cursor {big} bytes", flush=True)
    finally:
        shutil.rmtree(root)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    binary, n, orders = os.path.abspath(args[0]), int(args[1]), args[2:]
    for order in orders:
        case(binary, n, order, "--fetch-per-slice" in sys.argv, "--no-newer" not in sys.argv)


if __name__ == "__main__":
    main()
