#!/usr/bin/env python3
"""Session 38 audit: Fitbit Takeout inputs through `steptweet count`, against the totals written.

1. A `Physical Activity/` folder as a Fitbit Takeout lays it out: twelve `steps-YYYY-MM-DD.json` (one a month, a year of
   UTC minutes, every minute with data as Fitbit writes them, the last minute of each month repeated at the start of
   the next as the UTC shift makes it) beside `calories-`, `distance-`, `heart_rate-` files and a CSV. The total
   counted against the total written (each minute once).
2. The same year as one file: the peak memory of `count` (`/usr/bin/time -v`, maximum resident set size), the per-read
   minute table (`FitbitStepsFormat.counted`) being what grows with the minutes read.

usage: python3 bench/audit38_fitbit.py BINARY [FOLDER]   (FOLDER: where to write, default a new folder in /tmp)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

BIN = os.path.abspath(sys.argv[1])
ROOT = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="audit38-fitbit-")


def steps_at(minute):
    """A day of walks: 0 at night, bursts by day (deterministic)."""
    hour = (minute // 60) % 24
    return 0 if hour < 7 or hour > 21 else (minute * 7919) % 97


def month_file(start, end):
    out = []
    t = start
    while t < end:
        m = int((t - datetime(2025, 1, 1, tzinfo=timezone.utc)).total_seconds() // 60)
        out.append({"dateTime": t.strftime("%m/%d/%y %H:%M:%S"), "value": str(steps_at(m))})
        t += timedelta(minutes=1)
    return out


def main():
    folder = os.path.join(ROOT, "Takeout", "Fitbit", "Physical Activity")
    os.makedirs(folder, exist_ok=True)
    total = 0
    year = []
    for month in range(1, 13):
        start = datetime(2025, month, 1, tzinfo=timezone.utc)
        end = datetime(2025 + month // 12, month % 12 + 1, 1, tzinfo=timezone.utc)
        rows = month_file(start, end)
        total += sum(int(r["value"]) for r in rows)
        year += rows
        if month > 1:  # the previous month's last minute again, as Fitbit's UTC shift repeats it
            prev = month_file(start - timedelta(minutes=1), start)
            rows = prev + rows
        with open(os.path.join(folder, f"steps-{start:%Y-%m-%d}.json"), "w") as f:
            json.dump(rows, f, indent=2)
        with open(os.path.join(folder, f"calories-{start:%Y-%m-%d}.json"), "w") as f:
            json.dump([{"dateTime": r["dateTime"], "value": "1.1"} for r in rows[:100]], f)
        with open(os.path.join(folder, f"distance-{start:%Y-%m-%d}.json"), "w") as f:
            json.dump([{"dateTime": r["dateTime"], "value": "0"} for r in rows[:100]], f)
    with open(os.path.join(folder, "heart_rate-2025-01-01.json"), "w") as f:
        json.dump([{"dateTime": "01/01/25 00:00:05", "value": {"bpm": 60, "confidence": 2}}], f)
    with open(os.path.join(folder, "Active Zone Minutes (AZM).csv"), "w") as f:
        f.write("date_time,heart_zone_id,total_minutes\n")
    p = subprocess.run([BIN, "count", "--json", folder], capture_output=True, text=True, timeout=600)
    counted = json.loads(p.stdout).get("steps") if p.returncode == 0 else None
    print(f"folder: {len(year)} minutes in 12 files, written {total}, counted {counted}"
          + ("" if p.returncode == 0 else f" (exit {p.returncode}: {p.stderr.strip()[:300]})"))
    one = os.path.join(ROOT, "steps-2025-01-01.json")
    with open(one, "w") as f:
        json.dump(year, f, indent=2)
    p = subprocess.run(["/usr/bin/time", "-v", BIN, "count", "--json", one], capture_output=True, text=True,
                       timeout=600)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    counted = json.loads(p.stdout).get("steps") if p.returncode == 0 else None
    print(f"one file: {os.path.getsize(one) // 1_000_000} MB, {len(year)} minutes, written {total}, counted {counted}, "
          f"peak RSS {int(rss.group(1)) // 1024 if rss else '?'} MiB")
    if len(sys.argv) <= 2:
        shutil.rmtree(ROOT)


main()
