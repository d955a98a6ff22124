#!/usr/bin/env python3
"""Session 37 audit: an export's own totals per day and per hour against what `steptweet` stores and posts.

Builds realistic exports in a temporary folder (a year of Apple Health records in Europe/London with both clock
changes, phone + watch overlap, exact duplicates, records across midnight and across hour boundaries; an older export
and a newer one that overlaps it), runs `fetch` on them as the agent's source, then reads the state database: steps
per second summed per local hour and day, and the outbox's posted windows. Prints every mismatch.

usage: python3 bench/audit37_exports.py BINARY [--keep]
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
from collections import defaultdict
from zoneinfo import ZoneInfo

BIN = os.path.abspath(sys.argv[1])
KEEP = "--keep" in sys.argv
ZONE = ZoneInfo("Europe/London")
UTC = dt.timezone.utc


def run(*args, check=False):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    if check and p.returncode not in (0,):
        print("FAILED", args, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return p


def ah_time(t):
    local = t.astimezone(ZONE)
    off = local.utcoffset()
    sign = "+" if off >= dt.timedelta(0) else "-"
    m = abs(int(off.total_seconds())) // 60
    return local.strftime("%Y-%m-%d %H:%M:%S") + f" {sign}{m // 60:02d}{m % 60:02d}"


HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
]>
<HealthData locale="en_GB">
 <ExportDate value="2026-01-01 00:00:00 +0000"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth=""/>
"""


def record(source, start, end, value):
    return (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{source}" sourceVersion="18.1" '
            f'device="&lt;&lt;HKDevice: 0x1&gt;, name:iPhone&gt;" unit="count" creationDate="{ah_time(end)}" '
            f'startDate="{ah_time(start)}" endDate="{ah_time(end)}" value="{value}"/>\n')


def year_records(seed=37):
    """(source, start, end, steps) for 2025 in Europe/London; expected per-second steps (max of overlapping
    sources that share an interval, duplicates once)."""
    rnd = random.Random(seed)
    out = []
    day = dt.datetime(2025, 1, 1, tzinfo=ZONE)
    while day.year == 2025:
        walks = []
        # walks that do not overlap one another (a phone's records follow each other); the hours of the clock
        # changes (01:00-02:00 on the change days) are among them
        hours = rnd.sample([1, 6, 7, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 22], rnd.randint(3, 8))
        for hour in hours:
            start = dt.datetime(day.year, day.month, day.day, hour, rnd.randint(0, 40), rnd.randint(0, 59),
                                tzinfo=ZONE)
            walks.append((start, rnd.randint(60, 900)))
        # across an hour boundary and across midnight
        walks.append((dt.datetime(day.year, day.month, day.day, 12, 58, 30, tzinfo=ZONE), 300))
        walks.append((dt.datetime(day.year, day.month, day.day, 23, 57, 0, tzinfo=ZONE), 360))
        for start_local, seconds in walks:
            start = start_local.astimezone(UTC)
            # the zoneinfo round trip normalises times the clocks skip
            end = start + dt.timedelta(seconds=seconds)
            steps = int(seconds * rnd.uniform(1.2, 2.0))
            out.append(("Taro’s iPhone", start, end, steps))
            r = rnd.random()
            if r < 0.5:
                out.append(("Taro’s Apple Watch", start, end, steps + rnd.randint(-40, 40)))
            elif r < 0.6:
                out.append(("Taro’s iPhone", start, end, steps))  # exact duplicate
        day = (day + dt.timedelta(days=1)).replace(hour=0)
        day = dt.datetime(day.year, day.month, day.day, tzinfo=ZONE)
    out.sort(key=lambda r: (r[1], r[0]))
    return out


def expected_intervals(records):
    """Per distinct interval: the most steps any source gave it (duplicates once)."""
    best = {}
    for src, s, e, n in records:
        k = (s, e)
        best[k] = max(best.get(k, 0), n)
    return best


def spread(intervals):
    """Steps per UTC second, spread evenly over each interval (fractions kept)."""
    per_hour = defaultdict(float)
    per_day = defaultdict(float)
    for (s, e), n in intervals.items():
        total = (e - s).total_seconds()
        t = s
        while t < e:
            nxt = min(e, (t.replace(minute=0, second=0) + dt.timedelta(hours=1)))
            share = n * (nxt - t).total_seconds() / total
            local = t.astimezone(ZONE)
            per_hour[local.strftime("%Y-%m-%d %H") + local.strftime("%z")] += share
            per_day[local.strftime("%Y-%m-%d")] += share
            t = nxt
    return per_hour, per_day


def stored(state):
    db = sqlite3.connect(state)
    per_hour = defaultdict(int)
    per_day = defaultdict(int)
    for sec, n in db.execute("select second, count from steps"):
        local = dt.datetime.fromtimestamp(sec, UTC).astimezone(ZONE)
        per_hour[local.strftime("%Y-%m-%d %H") + local.strftime("%z")] += n
        per_day[local.strftime("%Y-%m-%d")] += n
    posts = db.execute("select window_start_ns, window_end_ns, steps, target from outbox order by window_start_ns").fetchall()
    late = db.execute("select coalesce(sum(late_steps),0) from fetch_history").fetchone()[0]
    return per_hour, per_day, posts, late


def compare(name, want_h, want_d, got_h, got_d, tolerance_h):
    bad_d = [(d, round(want_d.get(d, 0), 2), got_d.get(d, 0)) for d in sorted(set(want_d) | set(got_d))
             if abs(want_d.get(d, 0) - got_d.get(d, 0)) > 1.0]
    bad_h = [(h, round(want_h.get(h, 0), 2), got_h.get(h, 0)) for h in sorted(set(want_h) | set(got_h))
             if abs(want_h.get(h, 0) - got_h.get(h, 0)) > tolerance_h]
    tw, tg = sum(want_d.values()), sum(got_d.values())
    print(f"{name}: total export {tw:.0f}, stored {tg}; days off by >1: {len(bad_d)} of {len(want_d)}; "
          f"hours off by >{tolerance_h}: {len(bad_h)} of {len(want_h)}")
    for row in bad_d[:8]:
        print("   day", row)
    for row in bad_h[:8]:
        print("   hour", row)
    return bad_d, bad_h


def config(folder, path, zone="Europe/London", extra=""):
    c = os.path.join(folder, "c.toml")
    with open(c, "w") as f:
        f.write(f'[source]\npath = "{path}"\n{extra}[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                f'[text]\ntime_zone = "{zone}"\n[state]\npath = "state.sqlite"\n')
    return c


def fetch_until_done(c, now):
    for _ in range(40):
        p = run("fetch", "--config", c, "--now", now, "--json")
        try:
            j = json.loads(p.stdout)
        except ValueError:
            print("not JSON", p.returncode, p.stdout[-500:], p.stderr[-500:])
            return None
        if j["result"] != "NewData":
            return j
    return j


def apple_health_year(root):
    print("== Apple Health: a year in Europe/London, phone + watch, duplicates, across midnight and hours")
    recs = year_records()
    folder = os.path.join(root, "ah-year")
    os.makedirs(folder)
    cut = dt.datetime(2025, 7, 1, tzinfo=UTC)
    old = [r for r in recs if r[2] <= cut]
    export = os.path.join(folder, "export.xml")
    with open(export, "w") as f:
        f.write(HEADER + "".join(record(*r) for r in old) + "</HealthData>\n")
    p = run("count", "--json", export)
    j = json.loads(p.stdout)
    want = expected_intervals(old)
    print(f"count old export: {j.get('steps')} (export's own, one source per interval: {sum(want.values())})")
    c = config(folder, export)
    r1 = fetch_until_done(c, "2025-07-01T12:00:00+01:00")
    print("fetch old:", r1 and r1["result"], r1 and r1.get("error"))
    # the same file again, touched
    os.utime(export)
    r2 = fetch_until_done(c, "2025-07-01T13:00:00+01:00")
    print("fetch same file touched:", r2 and r2["result"], r2 and r2["steps"])
    # a newer export: the whole year; late watch records for June (synced after the old export) too
    late_watch = [("Taro’s Apple Watch", dt.datetime(2025, 6, 30, 20, 0, tzinfo=UTC),
                   dt.datetime(2025, 6, 30, 20, 10, tzinfo=UTC), 999)]
    newer = sorted(recs + late_watch, key=lambda r: (r[1], r[0]))
    tmp = export + ".new"
    with open(tmp, "w") as f:
        f.write(HEADER + "".join(record(*r) for r in newer) + "</HealthData>\n")
    os.replace(tmp, export)
    r3 = fetch_until_done(c, "2026-01-01T12:00:00Z")
    print("fetch newer export:", r3 and r3["result"], r3 and r3.get("error"), "late", r3 and r3.get("late_steps"))
    want = expected_intervals(newer)
    wh, wd = spread(want)
    gh, gd, posts, late = stored(os.path.join(folder, "state.sqlite"))
    bad = compare("apple-health year", wh, wd, gh, gd, 1.5)
    posted = sum(p[2] for p in posts)
    print(f"posted windows {len(posts)}, posted steps {posted}, stored {sum(gd.values())}, late {late}")
    return bad


def apple_health_in_place(root):
    """The newer export copied over the old one in place (`cp`, `unzip -o`): same inode, longer."""
    print("== Apple Health: a newer export copied over the old one in place (same file, longer)")
    recs = year_records(seed=38)
    folder = os.path.join(root, "ah-cp")
    os.makedirs(folder)
    cut = dt.datetime(2025, 3, 1, tzinfo=UTC)
    old = [r for r in recs if r[2] <= cut]
    end = dt.datetime(2025, 6, 1, tzinfo=UTC)
    newer = [r for r in recs if r[2] <= end]
    export = os.path.join(folder, "export.xml")
    other = "".join(
        f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Watch" unit="count/min" '
        f'startDate="2025-01-01 0{i % 10}:00:00 +0000" endDate="2025-01-01 0{i % 10}:00:00 +0000" value="70"/>\n'
        for i in range(200))
    with open(export, "w") as f:
        f.write(HEADER + other[: len(other) // 2] + "".join(record(*r) for r in old) + "</HealthData>\n")
    c = config(folder, export)
    fetch_until_done(c, "2025-03-01T12:00:00Z")
    with open(export, "r+") as f:  # same inode, the newer export has more records of another type before
        f.truncate(0)
        f.write(HEADER + other + "".join(record(*r) for r in newer) + "</HealthData>\n")
    r = fetch_until_done(c, "2025-06-01T12:00:00Z")
    print("fetch newer export (in place):", r and r["result"], r and r.get("error"))
    wh, wd = spread(expected_intervals(newer))
    gh, gd, posts, late = stored(os.path.join(folder, "state.sqlite"))
    compare("apple-health cp in place", wh, wd, gh, gd, 1.5)
    print(f"posted steps {sum(p[2] for p in posts)}, late {late}")


def zepp_life_dst(root):
    """Zepp Life ACTIVITY_MINUTE rows on the band's local clock across both 2025 clock changes (Europe/London)."""
    print("== Zepp Life minutes across both clock changes (the repeated hour written twice, in order)")
    folder = os.path.join(root, "zepp")
    os.makedirs(folder)
    rows = []
    want = defaultdict(int)
    want_h = defaultdict(int)
    for day in ("2025-03-30", "2025-10-26"):
        d0 = dt.datetime.fromisoformat(day).replace(tzinfo=UTC) - dt.timedelta(hours=2)
        t = d0
        while t < d0 + dt.timedelta(hours=28):
            local = t.astimezone(ZONE)
            n = (local.minute % 7) + 1
            rows.append((local.strftime("%Y-%m-%d"), local.strftime("%H:%M"), n))
            want[local.strftime("%Y-%m-%d")] += n
            want_h[local.strftime("%Y-%m-%d %H") + local.strftime("%z")] += n
            t += dt.timedelta(minutes=1)
    path = os.path.join(folder, "ACTIVITY_MINUTE_1.csv")
    with open(path, "w") as f:
        f.write("date,time,steps\n" + "".join(f"{a},{b},{n}\n" for a, b, n in rows))
    c = config(folder, path)
    r = fetch_until_done(c, "2025-11-01T00:00:00Z")
    print("fetch:", r and r["result"], r and r.get("error"), r and r.get("warnings"))
    gh, gd, posts, late = stored(os.path.join(folder, "state.sqlite"))
    compare("zepp-life DST", want_h, want, gh, gd, 0)


def samsung_month(root):
    """Samsung Health pedometer_step_count rows (UTC, a minute each) for March 2025 in Europe/Berlin (clocks change
    on the 30th): phone and watch over the same minutes, watch-only minutes, rows exported twice."""
    print("== Samsung Health pedometer rows, March 2025 in Europe/Berlin: phone + watch, rows twice")
    berlin = ZoneInfo("Europe/Berlin")
    rnd = random.Random(39)
    folder = os.path.join(root, "samsung")
    os.makedirs(folder)
    rows, want = [], {}
    t = dt.datetime(2025, 3, 1, tzinfo=berlin).astimezone(UTC)
    end = dt.datetime(2025, 4, 1, tzinfo=berlin).astimezone(UTC)
    n = 0
    while t < end:
        if rnd.random() < 0.08:  # a walking minute
            local = t.astimezone(berlin)
            off = int(local.utcoffset().total_seconds()) // 3600
            phone, watch = rnd.randint(20, 120), rnd.randint(20, 120)
            who = rnd.random()
            for uuid, steps in (("PHONE", phone), ("WATCH", watch)):
                if (who < 0.2 and uuid == "PHONE") or (who > 0.9 and uuid == "WATCH"):
                    continue  # one device only
                n += 1
                row = (f"6313005,{t:%Y-%m-%d %H:%M:%S}.000,{t + dt.timedelta(minutes=1):%Y-%m-%d %H:%M:%S}.000,"
                       f"UTC+0{off}00,0,{steps},{steps},1.25,28.0,2.5,{uuid},60000,d{n},\n")
                rows.append(row)
                if rnd.random() < 0.05:
                    rows.append(row)
                want[t] = max(want.get(t, 0), steps)
        t += dt.timedelta(minutes=1)
    head = ("\ufeffcom.samsung.shealth.tracker.pedometer_step_count,6313005,13\n"
            + ",".join(["com.samsung.health.step_count.create_sh_ver", "com.samsung.health.step_count.start_time",
                        "com.samsung.health.step_count.end_time", "com.samsung.health.step_count.time_offset",
                        "run_step", "walk_step", "com.samsung.health.step_count.count",
                        "com.samsung.health.step_count.speed", "com.samsung.health.step_count.distance",
                        "com.samsung.health.step_count.calorie", "com.samsung.health.step_count.deviceuuid",
                        "duration", "com.samsung.health.step_count.datauuid"]) + "\n")
    path = os.path.join(folder, "com.samsung.shealth.tracker.pedometer_step_count.20250401000000.csv")
    with open(path, "w") as f:
        f.write(head + "".join(rows))
    c = config(folder, path, zone="Europe/Berlin")
    r = fetch_until_done(c, "2025-04-02T00:00:00Z")
    print("fetch:", r and r["result"], r and r.get("error"))
    wh, wd = defaultdict(int), defaultdict(int)
    for t, steps in want.items():
        local = t.astimezone(berlin)
        wh[local.strftime("%Y-%m-%d %H") + local.strftime("%z")] += steps
        wd[local.strftime("%Y-%m-%d")] += steps
    db = sqlite3.connect(os.path.join(folder, "state.sqlite"))
    gh, gd = defaultdict(int), defaultdict(int)
    for sec, k in db.execute("select second, count from steps"):
        local = dt.datetime.fromtimestamp(sec, UTC).astimezone(berlin)
        gh[local.strftime("%Y-%m-%d %H") + local.strftime("%z")] += k
        gd[local.strftime("%Y-%m-%d")] += k
    compare("samsung-health month", wh, wd, gh, gd, 0)


def main():
    root = tempfile.mkdtemp(prefix="audit37-exports-")
    try:
        apple_health_year(root)
        apple_health_in_place(root)
        zepp_life_dst(root)
        samsung_month(root)
    finally:
        if KEEP:
            print("kept", root)
        else:
            shutil.rmtree(root)


if __name__ == "__main__":
    main()
