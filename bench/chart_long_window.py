#!/usr/bin/env python3
"""A first fetch over an old recording (issue 44): `preview --image` of a 7-year window (2019-07-22 14:30 BST to
2026-11-29 10:00 UTC, Europe/London) over a step log with one 3-minute walk a day, for one or more binaries; prints
each one's wall time and peak RSS (medians of RUNS) and the alt text's first words (the bars chosen).

    python3 bench/chart_long_window.py RUNS BIN [BIN...]
"""
import atexit, datetime, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

runs = int(sys.argv[1])
binaries = sys.argv[2:]
work = tempfile.mkdtemp(prefix="steptweet-long-window-")
atexit.register(shutil.rmtree, work, ignore_errors=True)  # the step log, state and chart go with the run
rng = random.Random(1)
lines = []
t = datetime.datetime(2019, 7, 22, 14, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
end = datetime.datetime(2026, 11, 29, 10, 0, tzinfo=datetime.timezone.utc)
while t < end:
    lines.append(json.dumps({"ts": t.isoformat(), "steps": 0}))
    for m in range(1, 4):
        lines.append(json.dumps({"ts": (t + datetime.timedelta(minutes=m)).isoformat(), "steps": rng.randint(80, 120)}))
    t += datetime.timedelta(days=1, minutes=rng.randint(-200, 200))
log = os.path.join(work, "long.jsonl")
with open(log, "w") as f:
    f.write("\n".join(lines) + "\n")
config = os.path.join(work, "config.toml")
with open(config, "w") as f:
    f.write(f'[source]\npath = "{log}"\n[schedule]\nwindow = "1d"\n[text]\ntime_zone = "Europe/London"\n'
            f'preset = "daily-en"\ngoal = 8000\n[state]\npath = "{work}/state.sqlite"\n')
for binary in binaries:
    walls, peaks, alt = [], [], ""
    for _ in range(runs):
        started = time.perf_counter()
        p = subprocess.Popen([binary, "preview", "--config", config, "--start", "2019-07-22T14:30:00+01:00",
                              "--now", "2026-11-29T10:00:00Z", "--image", os.path.join(work, "chart.png")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, _, usage = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - started)
        peaks.append(usage.ru_maxrss / 1024)
        alt = next((l for l in p.stdout.read().decode().splitlines() if l.startswith("alt:")), "")
    print(f"{binary}\n  wall {statistics.median(walls):.2f} s, peak RSS {statistics.median(peaks):.1f} MB"
          f" ({runs} runs)\n  {alt[:70]}")
