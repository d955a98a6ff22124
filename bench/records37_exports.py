#!/usr/bin/env python3
"""Session 37 (records37): a followed Apple Health export replaced by newer ones, against the newest's own totals.

Builds a year (2025, Europe/London) of Apple Health StepCount records, RECORDS_PER_DAY a day (phone records of a
minute or less, half of them with a watch record over the same interval: the overlap rule keeps the one with more
steps), then: follows the export up to 1 July as `source.path`; renames over it a newer export of the whole year
that also holds watch records synced late into June (before the last record counted): 40 alone (999 steps each) and
40 over phone walks with 300 more steps than the phone (the overlap rule now picks the watch); renames the same
export over it again (a re-import); then one more export with 20 more late records in May. After each step: steps
stored against the export's own (per UTC hour, the most steps any source gave an interval, spread evenly), the state
file's size and the ledger's, and the fetch's wall time (every fetch until NoData).

usage: python3 bench/records37_exports.py BINARY [RECORDS_PER_DAY] [--keep]
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
from collections import defaultdict

BIN = os.path.abspath(sys.argv[1])
PER_DAY = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 1370
KEEP = "--keep" in sys.argv
UTC = dt.timezone.utc
HEADER = ('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n'
          ' <ExportDate value="2026-01-01 00:00:00 +0000"/>\n')


def ah(t):
    return t.strftime("%Y-%m-%d %H:%M:%S +0000")


def record(source, start, end, value):
    return (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{source}" unit="count" '
            f'creationDate="{ah(end)}" startDate="{ah(start)}" endDate="{ah(end)}" value="{value}"/>\n')


def year(seed=37):
    rnd = random.Random(seed)
    out = []
    day = dt.datetime(2025, 1, 1, tzinfo=UTC)
    pairs = PER_DAY * 2 // 3  # a phone record each, half with a watch record: PER_DAY records a day
    while day.year == 2025:
        # non-overlapping slots of a minute or more between 06:00 and 23:00
        starts = sorted(rnd.sample(range(6 * 60, 23 * 60 - 2), min(pairs, 17 * 60 - 2)))
        for m in starts:
            s = day + dt.timedelta(minutes=m, seconds=rnd.randint(0, 20))
            e = s + dt.timedelta(seconds=rnd.randint(30, 40))  # within its minute: slots do not overlap
            n = rnd.randint(5, 110)
            out.append(("iPhone", s, e, n))
            if rnd.random() < 0.5:
                out.append(("Apple Watch", s, e, max(0, n + rnd.randint(-10, 10))))
        day += dt.timedelta(days=1)
    return out


def late(records, rnd, month, alone, over):
    """Watch records synced late: `alone` in free time of `month`, `over` over phone-only walks (300 steps more)."""
    out = []
    for i in range(alone):
        s = dt.datetime(2025, month, 1 + i % 28, 2, i % 50, tzinfo=UTC)  # 02:xx, when no other record is
        out.append(("Apple Watch", s, s + dt.timedelta(minutes=5), 999))
    covered = {(r[1], r[2]) for r in records if r[0] == "Apple Watch"}
    phone = [r for r in records if r[0] == "iPhone" and r[1].month == month and (r[1], r[2]) not in covered]
    for r in rnd.sample(phone, over):
        out.append(("Apple Watch", r[1], r[2], r[3] + 300))
    return out


def write(path, records):
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.write(HEADER + "".join(record(*r) for r in sorted(records, key=lambda r: (r[1], r[0]))) + "</HealthData>\n")
    os.replace(tmp, path)  # how a download lands: renamed over the followed file


def own_hours(records):
    best = {}
    for _, s, e, n in records:
        best[(s, e)] = max(best.get((s, e), 0), n)
    hours = defaultdict(float)
    for (s, e), n in best.items():
        t, total = s, (e - s).total_seconds()
        while t < e:
            nxt = min(e, t.replace(minute=0, second=0) + dt.timedelta(hours=1))
            hours[t.strftime("%Y-%m-%d %H")] += n * (nxt - t).total_seconds() / total
            t = nxt
    return hours


def stored_hours(state):
    db = sqlite3.connect(state)
    hours = defaultdict(int)
    for sec, n in db.execute("select second, count from steps"):
        hours[dt.datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%d %H")] += n
    try:
        ledger = db.execute("select count(*), coalesce(sum(length(counted) + coalesce(length(pending), 0)), 0) "
                            "from reading_ledger").fetchone()
    except sqlite3.OperationalError:
        ledger = (0, 0)
    db.execute("pragma wal_checkpoint(truncate)")
    db.close()
    return hours, ledger


def fetch(c, now):
    t0, n, steps, late_steps = time.monotonic(), 0, 0, 0
    for _ in range(60):
        p = subprocess.run([BIN, "fetch", "--config", c, "--now", now, "--json"], capture_output=True, text=True,
                           timeout=600)
        n += 1
        j = json.loads(p.stdout)
        steps += j.get("steps", 0)
        late_steps += j.get("late_steps", 0) or 0
        if j["result"] != "NewData" and not j.get("backlog"):
            break
    return time.monotonic() - t0, n, steps


def step(name, folder, c, records, now):
    secs, n, _ = fetch(c, now)
    state = os.path.join(folder, "state.sqlite")
    got, ledger = stored_hours(state)
    want = own_hours(records)
    off = [h for h in set(want) | set(got) if abs(want.get(h, 0) - got.get(h, 0)) > 1.5]
    size = os.path.getsize(state)
    print(f"{name}: export's own {sum(want.values()):.0f}, stored {sum(got.values())}, "
          f"hours off by >1.5: {len(off)} of {len(want)}; fetch {secs:.1f} s ({n} runs); "
          f"state {size / 1e6:.2f} MB, ledger {ledger[0]} rows {ledger[1] / 1e6:.2f} MB")
    for h in sorted(off)[:5]:
        print("   hour", h, round(want.get(h, 0), 1), got.get(h, 0))


def main():
    root = tempfile.mkdtemp(prefix="records37-")
    try:
        rnd = random.Random(7)
        recs = year()
        print(f"{len(recs)} records in the year, {PER_DAY} a day asked")
        export = os.path.join(root, "export.xml")
        c = os.path.join(root, "c.toml")
        with open(c, "w") as f:
            f.write(f'[source]\npath = "{export}"\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                    '[text]\ntime_zone = "Europe/London"\n[state]\npath = "state.sqlite"\n')
        cut = dt.datetime(2025, 7, 1, tzinfo=UTC)
        old = [r for r in recs if r[2] <= cut]
        write(export, old)
        print(f"old export {os.path.getsize(export) / 1e6:.1f} MB")
        step("1. old export (to 1 July)", root, c, old, "2025-07-01T12:00:00Z")
        newer = recs + late(recs, rnd, 6, 40, 40)
        write(export, newer)
        print(f"newer export {os.path.getsize(export) / 1e6:.1f} MB")
        step("2. newer export over it (year, 80 late June records)", root, c, newer, "2026-01-01T12:00:00Z")
        write(export, newer)
        step("3. the same export again", root, c, newer, "2026-01-01T13:00:00Z")
        newest = newer + late(recs, rnd, 5, 10, 10)
        write(export, newest)
        step("4. one more (20 late May records)", root, c, newest, "2026-01-01T14:00:00Z")
    finally:
        if KEEP:
            print("kept", root)
        else:
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
