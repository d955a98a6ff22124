#!/usr/bin/env python3
"""Reading speed of the whole-input formats (issue #14) and the health-app CSV exports: generates
  - a Gadgetbridge database with a year of minutes (525,600 rows of MI_BAND_ACTIVITY_SAMPLE, one device),
  - a folder of 365 daily Garmin FIT monitoring files (one message a minute for 16 waking hours, timestamp_16,
    walking and running running totals),
  - a Samsung Health pedometer_step_count CSV with a year of minutes from a phone and a watch overlapping for
    16 waking hours a day (2 x 350,400 rows; the watch counts more, so the expected total is the watch's), and
  - a Zepp Life ACTIVITY_MINUTE CSV with a year of minutes (525,600 rows, local time, read in Europe/Berlin),
then times `steptweet inspect` on each (best of 3; the process start included) and checks the totals.
Usage: bench/formats_speed.py [path/to/steptweet]   (default .build/release/steptweet)
"""
import datetime, os, random, sqlite3, struct, subprocess, sys, tempfile, time

FIT_EPOCH = 631065600
CRC_TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]


def crc16(data):
    crc = 0
    for b in data:
        for nibble in (b & 0xF, b >> 4):
            tmp = CRC_TABLE[crc & 0xF]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ CRC_TABLE[nibble]
    return crc


def gadgetbridge(path, rng):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE DEVICE (_id INTEGER PRIMARY KEY, NAME TEXT, ALIAS TEXT)")
    db.execute("INSERT INTO DEVICE VALUES (1, 'Mi Band 6', NULL)")
    db.execute("CREATE TABLE MI_BAND_ACTIVITY_SAMPLE (TIMESTAMP INTEGER NOT NULL, DEVICE_ID INTEGER NOT NULL, "
               "USER_ID INTEGER, RAW_INTENSITY INTEGER, STEPS INTEGER, RAW_KIND INTEGER, HEART_RATE INTEGER, "
               "PRIMARY KEY (TIMESTAMP, DEVICE_ID)) WITHOUT ROWID")
    start = 1735689600  # 2025-01-01T00:00Z
    total = 0
    rows = []
    for m in range(525_600):
        steps = rng.choice((-1, 0, 0, 0, rng.randint(1, 120)))
        total += max(steps, 0)
        rows.append((start + 60 * m, 1, 1, 10, steps, 1, 70))
    db.executemany("INSERT INTO MI_BAND_ACTIVITY_SAMPLE VALUES (?,?,?,?,?,?,?)", rows)
    db.commit()
    db.close()
    return total


def fit_day(midnight, rng):
    """One monitoring file: file_id, monitoring_info, then a message a minute 07:00-23:00 with timestamp_16."""
    data = bytearray()
    data += bytes([0x40, 0, 0]) + struct.pack("<HB", 0, 1) + bytes([0, 1, 0x00])
    data += bytes([0x00, 32])
    data += bytes([0x41, 0, 0]) + struct.pack("<HB", 103, 2) + bytes([253, 4, 0x86, 0, 4, 0x86])
    data += bytes([0x01]) + struct.pack("<II", midnight - FIT_EPOCH, midnight - FIT_EPOCH)
    data += bytes([0x42, 0, 0]) + struct.pack("<HB", 55, 3) + bytes([26, 2, 0x84, 3, 4, 0x86, 5, 1, 0x00])
    cumulative = {6: 0, 1: 0}
    for minute in range(7 * 60, 23 * 60):
        kind = 1 if rng.random() < 0.1 else 6
        cumulative[kind] += rng.randint(0, 100)
        t = midnight + 60 * minute - FIT_EPOCH
        data += bytes([0x02]) + struct.pack("<HIB", t & 0xFFFF, cumulative[kind], kind)
    header = bytearray([14, 0x20]) + struct.pack("<HI", 2100, len(data)) + b".FIT"
    header += struct.pack("<H", crc16(header))
    body = bytes(header) + bytes(data)
    return body + struct.pack("<H", crc16(body)), sum(cumulative.values())


def samsung_minutes(path, rng):
    p = 'com.samsung.health.step_count.'
    cols = [p + 'start_time', p + 'end_time', p + 'time_offset', p + 'count', p + 'deviceuuid', 'walk_step']
    start = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    expected = 0
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\ufeffcom.samsung.shealth.tracker.pedometer_step_count,6313005,6\n' + ','.join(cols) + '\n')
        for day in range(365):
            for minute in range(7 * 60, 23 * 60):
                t = start + datetime.timedelta(days=day, minutes=minute)
                a = t.strftime('%Y-%m-%d %H:%M:%S.000')
                b = (t + datetime.timedelta(minutes=1)).strftime('%Y-%m-%d %H:%M:%S.000')
                phone = rng.choice((0, 0, rng.randint(1, 100)))
                watch = phone + rng.randint(1, 20) if phone else 0
                expected += watch
                for n, dev in ((phone, 'phone0001'), (watch, 'watch0002')):
                    f.write(f'{a},{b},UTC+0100,{n},{dev},{n},\n')
    return expected


def zepp_minutes(path, rng):
    start = datetime.datetime(2025, 1, 1)
    expected = 0
    with open(path, 'w') as f:
        f.write('date,time,steps\n')
        for m in range(525_600):
            t = start + datetime.timedelta(minutes=m)
            n = rng.choice((0, 0, 0, rng.randint(1, 120)))
            expected += n
            f.write(f'{t:%Y-%m-%d},{t:%H:%M},{n}\n')
    return expected


def timed(binary, path, *extra):
    best, out = None, ""
    for _ in range(3):
        t = time.perf_counter()
        out = subprocess.run([binary, "inspect", "--json", *extra, path], capture_output=True, text=True,
                             check=True).stdout
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/steptweet"
    rng = random.Random(14)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "Gadgetbridge")
        expected = gadgetbridge(db, rng)
        seconds, out = timed(binary, db)
        print(f"gadgetbridge 525,600 rows: {seconds:.3f} s, expected {expected} steps: {out.strip()}")
        folder = os.path.join(tmp, "GARMIN", "Monitor")
        os.makedirs(folder)
        expected = 0
        for day in range(365):
            midnight = 1735689600 + 86400 * day
            blob, steps = fit_day(midnight, rng)
            expected += steps
            with open(os.path.join(folder, f"{day:03d}.FIT"), "wb") as f:
                f.write(blob)
        seconds, out = timed(binary, os.path.join(tmp, "GARMIN"))
        print(f"garmin-fit 365 daily monitoring files: {seconds:.3f} s, expected {expected} steps: {out.strip()}")
        samsung = os.path.join(tmp, "com.samsung.shealth.tracker.pedometer_step_count.20260101000000.csv")
        expected = samsung_minutes(samsung, rng)
        seconds, out = timed(binary, samsung)
        print(f"samsung-health 700,800 rows ({os.path.getsize(samsung) / 1e6:.1f} MB): {seconds:.3f} s, "
              f"expected {expected} steps: {out.strip()}")
        zepp = os.path.join(tmp, "ACTIVITY_MINUTE_1.csv")
        expected = zepp_minutes(zepp, rng)
        seconds, out = timed(binary, zepp, "--time-zone", "Europe/Berlin")
        print(f"zepp-life 525,600 rows ({os.path.getsize(zepp) / 1e6:.1f} MB): {seconds:.3f} s, "
              f"expected {expected} steps: {out.strip()}")


if __name__ == "__main__":
    main()
