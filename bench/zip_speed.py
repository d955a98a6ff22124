#!/usr/bin/env python3
"""Apple Health export.xml read plain and out of its export.zip: wall time and peak RSS (`/usr/bin/time -v`).
Generates (in bench/out/, git-ignored) an export.xml past 4 GiB from the real shared sample: its DTD and header, then
a day of records repeated day after day (the sample's 10 StepCount records, shifted, and 490 non-step records such as
a real export is mostly made of), so the zip needs zip64 (written by Python's zipfile: sizes past 0xFFFFFFFF in zip64
extra fields, a zip64 end record). Then `steptweet count` on the XML, the deflated zip and a stored zip, interleaved,
RUNS rounds; checks each total against the generator's.
Usage: bench/zip_speed.py [path/to/steptweet] [GiB]   (default .build/release/steptweet, 4.2)

With --entries N: the real shared sample's export.xml in an export.zip beside N small workout routes (a long-time
user's export holds thousands), so the central directory is large; `steptweet count` of it RUNS times for each binary
given (e.g. a build before and after a change), interleaved, median wall time and peak RSS.
Usage: bench/zip_speed.py --entries N path/to/steptweet [path/to/other-steptweet ...]

With --sensor-logger REPEATS: the shared 60 s walk's TotalAcceleration.csv repeated REPEATS times, as that file, as an
Android zip holding it, and as an iOS zip holding Accelerometer.csv (without gravity) and Gravity.csv (a low-pass of
the total) at the same times, which steptweet pairs; `count --jobs J` (J from JOBS, "1" or e.g. "1,2") of each with
each binary given, interleaved, RUNS rounds, medians of cpu, wall time and peak RSS; every count must agree. The
inputs go to OUT (default bench/out/zip_speed; e.g. /tmp for a long one) and are deleted after.
Usage: [OUT=/tmp/zs] [JOBS=1,2] bench/zip_speed.py --sensor-logger 60 path/to/steptweet [path/to/other-steptweet ...]
"""
import datetime, os, re, statistics, subprocess, sys, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "..", "shared", "data", "formats", "apple_health", "export6s3sample.xml")
OUT = os.path.join(ROOT, "bench", "out", "zip_speed")
RUNS = int(os.environ.get("RUNS", "3"))


def generate(path, gib):
    text = open(SAMPLE, encoding="utf-8").read()
    head = text[: text.index(" <Record ")]
    steps = re.findall(r' <Record type="HKQuantityTypeIdentifierStepCount".*?/>\n', text)
    other = re.findall(r' <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning".*?/>\n', text)
    day_steps = sum(int(re.search(r'value="(\d+)"', r).group(1)) for r in steps)
    day = "".join(steps) + "".join(other) * 98  # 10 step records, 490 others
    day = day.replace("2014-09-13", "{d}").replace("2014-09-20", "{d}").replace("2014-09-21", "{d}")
    days, size = 0, len(head)
    start = datetime.date(1980, 1, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head)
        while size < gib * 2**30:
            block = day.replace("{d}", (start + datetime.timedelta(days=days)).isoformat())
            f.write(block)
            size += len(block)
            days += 1
        f.write("</HealthData>\n")
    return days * day_steps, days


def run(binary, path):
    p = subprocess.run(["/usr/bin/time", "-v", binary, "count", path], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{path}: exit {p.returncode}: {p.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    seconds = sum(float(x) * 60**i for i, x in enumerate(reversed(wall.split(":"))))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    steps = int(re.search(r": (\d+) steps", p.stdout).group(1))
    return seconds, rss / 1024, steps


def many_entries(count, binaries):
    os.makedirs(OUT, exist_ok=True)
    z = os.path.join(OUT, f"routes_{count}.zip")
    route = '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="Apple Health Export"/>\n'
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as out:
        out.write(SAMPLE, "apple_health_export/export.xml")
        for k in range(count):
            day = datetime.date(2015, 1, 1) + datetime.timedelta(days=k // 4)
            out.writestr(f"apple_health_export/workout-routes/route_{day.isoformat()}_{k % 4 + 7}.{k:06d}pm.gpx", route)
    results = {b: [] for b in binaries}
    for _ in range(RUNS):
        for b in binaries:
            results[b].append(run(b, z))
    print(f"export.zip: {os.path.getsize(z):,} bytes, {count + 1:,} entries")
    for b in binaries:
        rs = results[b]
        print(f"{b:40s} wall median {statistics.median(r[0] for r in rs):6.3f} s (min {min(r[0] for r in rs):.3f}, "
              f"max {max(r[0] for r in rs):.3f})  peak RSS median {statistics.median(r[1] for r in rs):7.1f} MB  "
              f"steps {rs[0][2]:,}")
    os.remove(z)


def sensor_logger(repeats, binaries):
    walk = os.path.join(ROOT, "..", "shared", "data", "formats", "derived_walk_60s", "sensorlogger_TotalAcceleration.csv")
    rows = [line.rstrip("\n").split(",") for line in open(walk, encoding="utf-8")][1:]
    t0, header = int(rows[0][0]), "time,seconds_elapsed,z,y,x"
    span = int(rows[-1][0]) - t0 + 5_000_000
    out = os.environ.get("OUT", OUT)
    os.makedirs(out, exist_ok=True)
    paths = [os.path.join(out, n) for n in ("TotalAcceleration.csv", "android.zip", "ios.zip")]
    linear_path, gravity_path = os.path.join(out, "Accelerometer.csv"), os.path.join(out, "Gravity.csv")
    count = 0
    with open(paths[0], "w", encoding="utf-8") as total, open(linear_path, "w", encoding="utf-8") as linear, \
            open(gravity_path, "w", encoding="utf-8") as gravity:
        for f in (total, linear, gravity):
            f.write(header + "\n")
        g = [float(v) for v in rows[0][2:5]]
        for rep in range(repeats):
            t_lines, l_lines, g_lines = [], [], []
            for r in rows:
                t = int(r[0]) + rep * span
                e = (t - t0) / 1e9
                v = [float(x) for x in r[2:5]]
                g = [g[i] + 0.02 * (v[i] - g[i]) for i in range(3)]
                t_lines.append(f"{t},{e:.6f},{r[2]},{r[3]},{r[4]}\n")
                l_lines.append(f"{t},{e:.6f},{v[0] - g[0]:.6f},{v[1] - g[1]:.6f},{v[2] - g[2]:.6f}\n")
                g_lines.append(f"{t},{e:.6f},{g[0]:.6f},{g[1]:.6f},{g[2]:.6f}\n")
            total.write("".join(t_lines))
            linear.write("".join(l_lines))
            gravity.write("".join(g_lines))
            count += len(rows)
    with zipfile.ZipFile(paths[1], "w", zipfile.ZIP_DEFLATED) as z:
        z.write(paths[0], "TotalAcceleration.csv")
    with zipfile.ZipFile(paths[2], "w", zipfile.ZIP_DEFLATED) as z:
        z.write(linear_path, "Accelerometer.csv")
        z.write(gravity_path, "Gravity.csv")
    os.remove(linear_path)
    os.remove(gravity_path)
    print(f"{count:,} rows ({repeats} x the 60 s walk)")
    jobs = os.environ.get("JOBS", "1").split(",")
    results = {}
    for _ in range(RUNS):  # interleaved: the binaries and inputs in turn, RUNS rounds
        for path in paths:
            for j in jobs:
                for b in binaries:
                    p = subprocess.run(["/usr/bin/time", "-v", b, "count", "--jobs", j, path],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"{b} {path}: exit {p.returncode}: {p.stderr[-2000:]}")
                    cpu = sum(float(re.search(rf"{k} time \(seconds\): (\S+)", p.stderr).group(1))
                              for k in ("User", "System"))
                    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
                    wall = sum(float(x) * 60**i for i, x in enumerate(reversed(wall.split(":"))))
                    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
                    steps = int(re.search(r": (\d+) steps", p.stdout).group(1))
                    results.setdefault((path, j, b), []).append((cpu, wall, rss, steps))
    for path in paths:
        for j in jobs:
            for b in binaries:
                rs = results[(path, j, b)]
                print(f"{os.path.basename(path):22s} {os.path.getsize(path):>13,} bytes  --jobs {j}  {b:28s} "
                      f"cpu {statistics.median(r[0] for r in rs):6.2f} s  wall {statistics.median(r[1] for r in rs):6.2f} s"
                      f"  peak RSS {statistics.median(r[2] for r in rs):6.1f} MiB  steps {rs[0][3]:,}"
                      + ("" if len({r[3] for r in rs}) == 1 else "  STEPS DIFFER BETWEEN RUNS"))
    counts = {r[3] for rs in results.values() for r in rs}
    print("every input, jobs and binary counts the same" if len(counts) == 1 else f"COUNTS DIFFER: {sorted(counts)}")
    for path in paths:
        os.remove(path)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--sensor-logger":
        return sensor_logger(int(sys.argv[2]), sys.argv[3:])
    if len(sys.argv) > 2 and sys.argv[1] == "--entries":
        return many_entries(int(sys.argv[2]), sys.argv[3:])
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "steptweet")
    gib = float(sys.argv[2]) if len(sys.argv) > 2 else 4.2
    os.makedirs(OUT, exist_ok=True)
    xml = os.path.join(OUT, "export.xml")
    expected, days = generate(xml, gib)
    inputs = {"export.xml": xml}
    for name, method in [("export.zip (deflated)", zipfile.ZIP_DEFLATED), ("export.zip (stored)", zipfile.ZIP_STORED)]:
        z = os.path.join(OUT, "deflated.zip" if method == zipfile.ZIP_DEFLATED else "stored.zip")
        with zipfile.ZipFile(z, "w", method, compresslevel=6 if method == zipfile.ZIP_DEFLATED else None) as out:
            out.write(xml, "apple_health_export/export.xml")
            out.writestr("apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?>\n<ClinicalDocument/>\n")
        inputs[name] = z
    results = {name: [] for name in inputs}
    for _ in range(RUNS):
        for name, path in inputs.items():
            results[name].append(run(binary, path))
    print(f"export.xml: {os.path.getsize(xml):,} bytes, {days:,} days x 500 records, expected {expected:,} steps")
    for name, path in inputs.items():
        rs = results[name]
        ok = all(r[2] == expected for r in rs)
        print(f"{name:24s} {os.path.getsize(path):>15,} bytes  wall median {statistics.median(r[0] for r in rs):6.2f} s "
              f"(min {min(r[0] for r in rs):.2f})  peak RSS median {statistics.median(r[1] for r in rs):7.1f} MB  "
              f"steps {rs[0][2]:,} {'= expected' if ok else 'WRONG'}")
    for path in inputs.values():
        os.remove(path)


if __name__ == "__main__":
    main()
