#!/usr/bin/env python3
"""Session 39 (store39): the defects store38 and records38 left, each through a real binary, stored against truth.

Cases (each in a fresh folder, `steptweet fetch --now` until NoData, the state's `steps` table summed):
- fitbit: a Fitbit Takeout `Physical Activity/` folder followed (October's and November's month files), then exported
  again with 120 minutes a watch synced late written into October's file (the older month), then the same again.
- hc-reverse: Health Connect's day so far from +0000 midnight (sent 12:00Z) and, after a move to -0500, from the new
  midnight (sent 23:00Z), the older send arriving last (a retry); truth 10,800 (audit37b's day). Also Health Auto
  Export's Berlin and Delhi buckets the other way round (Delhi first), truth 10,000. Through a real `steptweet agent`.
- steplog-seq: a followed step-log file; its writer reinstalled on the same boot starts `seq` again at 1 for a second
  walk; then writes its history again under a new `boot_id` with new `seq` (a duplicate).
- samsung: a Samsung Health pedometer CSV of 17.6 MB (over a 16 MiB slice), phone and watch rows of each walk
  together: the fetch (in slices) against `steptweet count` (read whole).
- truncated: a step log counted (12 steps in 10:00's minute), then truncated in place and written again with 18 MB of
  lines (over a 16 MiB slice) starting in that minute.
- scattered: an Apple Health export grouped by source (every iPhone record, then every Apple Watch record: 20 MB,
  the phone's and the watch's record of a walk 10 MB apart), followed from a fresh state, against `count`.

usage: python3 bench/store39_defects.py BINARY [CASE...]
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.abspath(sys.argv[1])
ONLY = sys.argv[2:]
sys.argv = sys.argv[:2]  # audit37b_push reads its binary from sys.argv[1]
import audit37b_push as push  # noqa: E402

UTC = dt.timezone.utc


def config(folder, source, extra=""):
    c = os.path.join(folder, "c.toml")
    with open(c, "w") as f:
        f.write(f'[source]\npath = "{source}"\n{extra}\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
                '[text]\ntime_zone = "UTC"\n[state]\npath = "state.sqlite"\n')
    return c


def fetch(c, now):
    for _ in range(60):
        p = subprocess.run([BIN, "fetch", "--config", c, "--now", now, "--json"], capture_output=True, text=True,
                           timeout=900)
        j = json.loads(p.stdout)
        if j["result"] != "NewData" and not j.get("backlog"):
            return
    raise RuntimeError("no end of the backlog")


def stored(folder):
    db = sqlite3.connect(os.path.join(folder, "state.sqlite"))
    n = db.execute("select coalesce(sum(count), 0) from steps").fetchone()[0]
    db.close()
    return n


def count(path):
    p = subprocess.run([BIN, "count", path, "--json"], capture_output=True, text=True, timeout=900)
    return json.loads(p.stdout)["steps"]


def fitbit_month(minutes):
    return "[" + ",".join(f'{{\n  "dateTime" : "{t.strftime("%m/%d/%y %H:%M:%S")}",\n  "value" : "{n}"\n}}'
                          for t, n in sorted(minutes.items())) + "]\n"


def case_fitbit(root):
    folder = os.path.join(root, "fitbit")
    pa = os.path.join(folder, "Physical Activity")
    os.makedirs(pa)
    rnd = random.Random(39)
    oct_ = {dt.datetime(2026, 10, 22 + d // 600, 8 + (d % 600) // 60, d % 60): rnd.randint(20, 120)
            for d in range(0, 6000, 2)}
    nov = {dt.datetime(2026, 11, 21 + d // 600, 8 + (d % 600) // 60, d % 60): rnd.randint(20, 120)
           for d in range(0, 3000, 2)}
    late = {dt.datetime(2026, 10, 25, 6, 0) + dt.timedelta(minutes=m): 100 for m in range(120)}  # before 08:00

    def export(o):
        for name, minutes in (("steps-2026-10-22.json", o), ("steps-2026-11-21.json", nov)):
            with open(os.path.join(pa, name + ".part"), "w") as f:
                f.write(fitbit_month(minutes))
            os.replace(os.path.join(pa, name + ".part"), os.path.join(pa, name))

    export(oct_)
    c = config(folder, pa)
    fetch(c, "2026-11-26T12:00:00Z")
    first = stored(folder)
    export({**oct_, **late})
    fetch(c, "2026-11-26T13:00:00Z")
    second = stored(folder)
    export({**oct_, **late})
    fetch(c, "2026-11-26T14:00:00Z")
    truth = sum(oct_.values()) + sum(nov.values())
    print(f"fitbit: first export truth {truth}, stored {first}; re-export with 120 late October minutes "
          f"(+12,000): truth {truth + 12000}, stored {second}; the same again: stored {stored(folder)}")


def case_hc_reverse(root):
    day = push.DAY
    minutes = push.walking_minutes(day, [(3, 0, 20, 100), (8, 0, 30, 100), (11, 10, 20, 110), (19, 0, 40, 90)])

    def total(start, end):
        return sum(n for t, n in minutes.items() if start <= t < end)

    h = dt.timedelta(hours=1)
    with push.Case(root, "hc-reverse") as c:
        c.push(push.hc(day + 23 * h, [push.hc_record(day + 5 * h, day + 23 * h, total(day + 5 * h, day + 23 * h))]))
        c.push(push.hc(day + 12 * h, [push.hc_record(day, day + 12 * h, total(day, day + 12 * h))]))
        c.push(push.hc(day + 12 * h, [push.hc_record(day, day + 12 * h, total(day, day + 12 * h))]))
    c.fetch("2026-11-21T06:00:00Z")
    print(f"hc-reverse: Health Connect, the older send last: truth {sum(minutes.values())}, "
          f"stored {sum(c.stored_per_hour().values())}; answers {[a[1][:90] for a in c.answers[1:]]}")
    berlin = [(push.hae_time(day + 2 * h, 60), 3000), (push.hae_time(day + 6 * h, 60), 2000),
              (push.hae_time(day + 7 * h, 60), 2000)]
    delhi = [(push.hae_time(day + 1.5 * h, 330), 2000), (push.hae_time(day + 2.5 * h, 330), 1000),
             (push.hae_time(day + 6.5 * h, 330), 4000), (push.hae_time(day + 13.5 * h, 330), 3000)]
    with push.Case(root, "hae-reverse") as c:
        for points in (delhi, berlin):
            c.push(push.hae([{"date": d, "qty": q, "source": "Taro's iPhone"} for d, q in points]))
    c.fetch("2026-11-21T06:00:00Z")
    print(f"hae-reverse: Health Auto Export, Delhi's buckets then Berlin's: truth 10000, "
          f"stored {sum(c.stored_per_hour().values())} (Berlin then Delhi: 12,000 in store38)")


def steplog_line(t, steps, boot, seq):
    return json.dumps({"v": 1, "ts": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": steps, "boot_id": boot,
                       "seq": seq, "src": "pixel"}) + "\n"


def case_steplog_seq(root):
    folder = os.path.join(root, "steplog-seq")
    os.makedirs(folder)
    path = os.path.join(folder, "steps.jsonl")
    t9, t15 = dt.datetime(2026, 11, 20, 9, tzinfo=UTC), dt.datetime(2026, 11, 20, 15, tzinfo=UTC)
    first = [steplog_line(t9 + dt.timedelta(minutes=m + 1), 100, "b1", m + 1) for m in range(30)]
    with open(path, "w") as f:
        f.writelines(first)
    c = config(folder, path)
    fetch(c, "2026-11-20T10:00:00Z")
    with open(path, "a") as f:  # reinstalled on the same boot: seq from 1 again
        f.writelines(steplog_line(t15 + dt.timedelta(minutes=m + 1), 100, "b1", m + 1) for m in range(30))
    fetch(c, "2026-11-20T16:00:00Z")
    second = stored(folder)
    with open(path, "a") as f:  # the first walk's history again under a new boot_id, new seq
        f.writelines(steplog_line(t9 + dt.timedelta(minutes=m + 1), 100, "b2", 1001 + m) for m in range(30))
    fetch(c, "2026-11-20T17:00:00Z")
    print(f"steplog-seq: seq starting again on the same boot: truth 6000, stored {second}; the history again under "
          f"a new boot_id: truth 6000, stored {stored(folder)}")


def case_samsung(root):
    folder = os.path.join(root, "samsung")
    os.makedirs(folder)
    path = os.path.join(folder, "com.samsung.shealth.tracker.pedometer_step_count.20261201000000.csv")
    rnd = random.Random(5)
    p = "com.samsung.health.step_count."
    t = dt.datetime(2025, 1, 1, 6, tzinfo=UTC)
    with open(path, "w") as f:
        f.write("com.samsung.shealth.tracker.pedometer_step_count,6313005,13\n"
                f"{p}create_sh_ver,{p}start_time,{p}end_time,{p}time_offset,run_step,walk_step,{p}count,{p}speed,"
                f"{p}distance,{p}calorie,{p}deviceuuid,duration,{p}datauuid\n")
        z = "%Y-%m-%d %H:%M:%S.000"
        i = 0
        while f.tell() < 17_600_000:
            e = t + dt.timedelta(minutes=1)
            n = rnd.randint(10, 110)
            for dev, k in (("phone0uuid", n), ("watch0uuid", n + rnd.randint(-8, 8))):
                f.write(f"6313005,{t.strftime(z)},{e.strftime(z)},UTC+0000,0,{k},{k},1.25,28.0,2.5,{dev},60000,"
                        f"d{i},\n")
                i += 1
            t += dt.timedelta(minutes=3)
    c = config(folder, path)
    fetch(c, "2026-01-01T00:00:00Z")
    print(f"samsung: {os.path.getsize(path) / 1e6:.1f} MB, {i} rows: count (whole) {count(path)}, "
          f"fetched in slices {stored(folder)}")


def case_truncated(root):
    folder = os.path.join(root, "truncated")
    os.makedirs(folder)
    path = os.path.join(folder, "steps.jsonl")
    t = dt.datetime(2026, 11, 20, 10, tzinfo=UTC)
    old = [json.dumps({"ts": (t + dt.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": n}) + "\n"
           for s, n in ((10, 5), (20, 7))]
    with open(path, "w") as f:
        f.writelines(old)
    c = config(folder, path)
    fetch(c, "2026-11-20T10:00:30Z")
    truth, s = 12, 40
    with open(path, "r+") as f:  # copytruncate, then the writer goes on, 18 MB before the next fetch
        f.truncate(0)
        f.seek(0)
        while f.tell() < 18_000_000:
            f.write(json.dumps({"ts": (t + dt.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": 3,
                                "src": "iio:device0:steps-counter-of-the-phone"}) + "\n")
            truth, s = truth + 3, s + 10
    fetch(c, (t + dt.timedelta(seconds=s + 60)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    db = sqlite3.connect(os.path.join(folder, "state.sqlite"))
    minute = db.execute("select coalesce(sum(count), 0) from steps where second >= ? and second < ?",
                        (int(t.timestamp()), int(t.timestamp()) + 60)).fetchone()[0]
    db.close()
    # 10:00's minute: the old 5 + 7, and the new lines at :40 (a point), :50 and 10:01:00 (each spread over the 10 s
    # before it).
    print(f"truncated: {os.path.getsize(path) / 1e6:.1f} MB written again: truth {truth}, stored {stored(folder)}; "
          f"10:00's minute truth {12 + 3 * 3}, stored {minute}")


def case_scattered(root):
    folder = os.path.join(root, "scattered")
    os.makedirs(folder)
    path = os.path.join(folder, "export.xml")
    rnd = random.Random(11)
    fmt = "%Y-%m-%d %H:%M:%S +0000"
    walks, t = [], dt.datetime(2025, 1, 1, 6, tzinfo=UTC)
    while len(walks) < 62_000:
        n = rnd.randint(10, 110)
        walks.append((t, t + dt.timedelta(seconds=50), n, n + rnd.randint(-8, 8)))
        t += dt.timedelta(minutes=7)

    def rec(src, s, e, v):
        return (f' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="{src}" unit="count" '
                f'creationDate="{e.strftime(fmt)}" startDate="{s.strftime(fmt)}" endDate="{e.strftime(fmt)}" '
                f'value="{v}"/>\n')

    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_GB">\n')
        f.writelines(rec("iPhone", s, e, p) for s, e, p, _ in walks)
        f.writelines(rec("Apple Watch", s, e, w) for s, e, _, w in walks)
        f.write("</HealthData>\n")
    c = config(folder, path)
    fetch(c, "2026-01-01T00:00:00Z")
    print(f"scattered: {os.path.getsize(path) / 1e6:.1f} MB grouped by source: count (whole) {count(path)}, "
          f"fetched in slices {stored(folder)}, the two summed {sum(p + w for _, _, p, w in walks)}")


def main():
    root = tempfile.mkdtemp(prefix="store39-")
    try:
        for name, case in (("fitbit", case_fitbit), ("hc-reverse", case_hc_reverse), ("steplog-seq", case_steplog_seq),
                           ("samsung", case_samsung), ("truncated", case_truncated), ("scattered", case_scattered)):
            if ONLY and name not in ONLY:
                continue
            try:
                case(root)
            except Exception as e:  # one case failing does not hide the others
                print(name, "failed:", repr(e))
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
