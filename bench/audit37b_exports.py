#!/usr/bin/env python3
"""Session 37b audit: Fitbit, Google Fit and Gadgetbridge exports counted against their own totals.

Builds, in a temporary folder: a Fitbit `steps-*.json` month (UTC minutes) clean, with minutes written twice (files
joined) and with a re-synced minute; a Fitbit re-export that overlaps the old one, followed by the agent
(`source.path`, the newer file renamed over the older); Google Fit per-day 15-minute CSVs for both 2025 clock changes
in America/New_York (100 and 92 rows, the offset changing inside the file); a Gadgetbridge database copied from the
real sample with a second device (Mi Band) over the same minutes as the Fossil, with and without
`--prefer-source`. Prints `count`'s total against the
export's own (one value per minute or interval, the larger device per minute).

usage: python3 bench/audit37b_exports.py BINARY
"""
import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from zoneinfo import ZoneInfo

BIN = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "formats")
UTC = dt.timezone.utc


def count(path, prefer=None):
    extra = ["--prefer-source", prefer] if prefer else []
    p = subprocess.run([BIN, "count", path, *extra], capture_output=True, text=True, timeout=120)
    m = re.search(r": (\d+) steps", p.stdout)
    return int(m.group(1)) if m else f"exit {p.returncode}: {(p.stdout + p.stderr).strip()[-300:]}"


def check(name, own, got):
    print(f"{'held ' if own == got else 'BROKE'} {name}: export's own {own}, count {got}")


def fitbit_entries(start, minutes, value=lambda i: 60 + i % 50):
    return [{"dateTime": (start + dt.timedelta(minutes=i)).strftime("%m/%d/%y %H:%M:%S"), "value": str(value(i))}
            for i in range(minutes)]


def fitbit(root):
    month = fitbit_entries(dt.datetime(2026, 10, 1), 30 * 1440 // 4, value=lambda i: (i * 7) % 120)
    own = sum(int(e["value"]) for e in month)
    path = os.path.join(root, "steps-2026-10-01.json")
    json.dump(month, open(path, "w"), indent=1)
    check("Fitbit, 7.5 days of minutes", own, count(path))
    joined = month + month[1000:1600]  # the same minutes again, appended
    json.dump(joined, open(path, "w"), indent=1)
    check("Fitbit, 600 minutes written twice (files joined)", own, count(path))
    resync = list(month)
    resync.insert(2001, {"dateTime": month[2000]["dateTime"], "value": str(int(month[2000]["value"]) + 50)})
    json.dump(resync, open(path, "w"), indent=1)
    check("Fitbit, one minute re-synced with 50 more (the larger kept)", own + 50, count(path))


def fitbit_followed(root):
    folder = os.path.join(root, "follow")
    os.makedirs(folder)
    old = fitbit_entries(dt.datetime(2026, 10, 1), 2000)
    new = fitbit_entries(dt.datetime(2026, 10, 1), 3000)  # a re-export: the old minutes and 1000 more
    path = os.path.join(folder, "steps.json")
    json.dump(old, open(path, "w"), indent=1)
    with open(os.path.join(folder, "c.toml"), "w") as f:
        f.write('[source]\npath = "steps.json"\nfollow = true\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                '[text]\ntime_zone = "UTC"\n[state]\npath = "state.sqlite"\n')

    def fetch():
        for _ in range(20):
            p = subprocess.run([BIN, "fetch", "--config", "c.toml", "--now", "2026-11-01T00:00:00Z", "--json"],
                               cwd=folder, capture_output=True, text=True, timeout=120)
            if '"NewData"' not in p.stdout:
                return

    fetch()
    json.dump(new, open(path + ".new", "w"), indent=1)
    os.replace(path + ".new", path)
    fetch()
    db = sqlite3.connect(os.path.join(folder, "state.sqlite"))
    stored = db.execute("select coalesce(sum(count), 0) from steps").fetchone()[0]
    db.close()
    check("Fitbit re-export overlapping the old, renamed over it while followed",
          sum(int(e["value"]) for e in new), stored)


def google_fit_day(path, date, zone):
    z = ZoneInfo(zone)
    start = dt.datetime(date.year, date.month, date.day, tzinfo=z).astimezone(UTC)
    nxt = date + dt.timedelta(days=1)
    end = dt.datetime(nxt.year, nxt.month, nxt.day, tzinfo=z).astimezone(UTC)

    def stamp(t):
        off = t.strftime("%z")
        return t.strftime("%H:%M:%S.000") + off[:3] + ":" + off[3:]

    rows = ["Start time,End time,Calories (kcal),Distance (m),Step count,Inactive duration (ms)"]
    t, i, own = start, 0, 0
    while t < end:
        u = t + dt.timedelta(minutes=15)
        n = 100 + i if i % 3 else 0
        own += n
        rows.append(f"{stamp(t.astimezone(z))},{stamp(u.astimezone(z))},,,{n or ''},")
        t, i = u, i + 1
    open(path, "w").write("\n".join(rows) + "\n")
    return own, i


def google_fit(root):
    for date in (dt.date(2025, 3, 9), dt.date(2025, 11, 2)):
        path = os.path.join(root, f"{date}.csv")
        own, rows = google_fit_day(path, date, "America/New_York")
        check(f"Google Fit per-day CSV {date} in New York ({rows} rows, the offset changing inside)", own,
              count(path))


def gadgetbridge(root):
    folder = os.path.join(root, "gb")
    os.makedirs(folder)
    db_path = os.path.join(folder, "Gadgetbridge")
    shutil.copy(os.path.join(SHARED, "gadgetbridge", "gadgetbridge-fossil-hybridhr.db"), db_path)
    db = sqlite3.connect(db_path)
    db.execute("delete from HYBRID_HRACTIVITY_SAMPLE")
    t0 = 1767261600  # 2026-01-01T10:00:00Z
    totals = [0, 0]
    for i in range(120):
        fossil, band = (i * 3) % 90, (i * 5) % 80
        db.execute("insert into HYBRID_HRACTIVITY_SAMPLE values (?, 1, 1, ?, 0, 0, 0, 0, 0, 0, 0)",
                   (t0 + 60 * i, fossil))
        db.execute("insert into MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP, DEVICE_ID, USER_ID, RAW_INTENSITY, STEPS, "
                   "RAW_KIND, HEART_RATE) values (?, 2, 1, 0, ?, 1, 0)", (t0 + 60 * i, band))
        totals[0] += fossil
        totals[1] += band
    db.execute("insert into DEVICE (_id, NAME, MANUFACTURER, IDENTIFIER, TYPE, TYPE_NAME, MODEL) values "
               "(2, 'Mi Band 4', 'Xiaomi', 'AA:BB:CC:DD:EE:FF', 0, 'MIBAND4', 'MI_BAND4')")
    db.commit()
    db.close()
    check("Gadgetbridge, Fossil and Mi Band over the same 120 minutes (the device with more steps that day)",
          max(totals), count(folder))
    check("the same, --prefer-source 'Mi Band 4' (its exact name)", totals[1], count(folder, "Mi Band 4"))
    check("the same, --prefer-source 'mi band' (part of its name, as `source.prefer` matches phones)", totals[1],
          count(folder, "mi band"))


def main():
    root = tempfile.mkdtemp(prefix="audit37b-exports-")
    try:
        for case in (fitbit, fitbit_followed, google_fit, gadgetbridge):
            try:
                case(root)
            except Exception as e:
                print(case.__name__, "failed:", e)
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
