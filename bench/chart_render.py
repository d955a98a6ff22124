#!/usr/bin/env python3
"""Cost of the window's chart (issue 35): a generated day of walks (a step log, Asia/Tokyo) through

    steptweet preview --config C --start DAY --now DAY+1              (text only)
    steptweet preview --config C --start DAY --now DAY+1 --image P    (text, chart PNG, alt text)
    steptweet fetch --config C --dry-run [--image-dir D]              (the fetch path: window closed from the state)

RUNS times each, interleaved; prints medians of wall time and peak RSS (wait4's ru_maxrss) with and without the
chart, so the difference is what drawing one chart adds to a process (librsvg, Pango and fontconfig loaded, the
font cache read, the SVG parsed, 2400x1350 pixels drawn and PNG-encoded).

    python3 bench/chart_render.py .build-static/release/steptweet 15
    python3 bench/chart_render.py BIN 15 --examples docs    # also writes the README's example charts there
"""
import datetime, json, os, platform, random, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build-static", "release", "steptweet")
runs = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else 15
examples = sys.argv[sys.argv.index("--examples") + 1] if "--examples" in sys.argv else None
DAY = "2026-11-21"


def step_log(walks, seed, day=DAY):
    """A day's step log: each walk a zero line at its start, then a line a minute (steps since the previous line)."""
    rng = random.Random(seed)
    lines = []
    for start, minutes in sorted(walks):
        at = datetime.datetime.fromisoformat(f"{day}T00:00:00+09:00") + datetime.timedelta(minutes=start)
        lines.append(json.dumps({"ts": at.isoformat(), "steps": 0}))
        for m in range(1, minutes + 1):
            t = at + datetime.timedelta(minutes=m)
            lines.append(json.dumps({"ts": t.isoformat(), "steps": rng.randint(85, 125)}))
    return "\n".join(lines) + "\n"


def run(arguments):
    started = time.perf_counter()
    process = subprocess.Popen([binary] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    out = process.stdout.read().decode()
    err = process.stderr.read().decode()
    if process.returncode not in (0, None) and usage is None:
        sys.exit(f"{arguments}: {err}")
    return wall, usage.ru_maxrss / 1024, out, err


work = tempfile.mkdtemp(prefix="steptweet-chart-bench-")
try:
    busy = [(7 * 60 + 40, 35), (12 * 60 + 5, 25), (13 * 60, 15), (17 * 60 + 30, 55), (19 * 60 + 10, 20), (21 * 60, 10)]
    log = os.path.join(work, "day.jsonl")
    day_before = [(8 * 60, 30), (12 * 60 + 30, 20), (18 * 60, 40)]
    with open(log, "w") as f:
        f.write(step_log(day_before, 3, "2026-11-20") + step_log(busy, 1))
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f'[source]\npath = "{log}"\n[schedule]\nwindow = "1d"\n'
                f'[text]\ntime_zone = "Asia/Tokyo"\npreset = "daily-en"\nlocale = "en_US"\ngoal = 8000\n'
                f'[state]\npath = "{work}/state.sqlite"\n')
    window = ["--start", f"{DAY}T00:00:00+09:00", "--now", "2026-11-22T00:00:00+09:00"]
    preview = ["preview", "--config", config] + window
    fetch = ["fetch", "--config", config, "--dry-run", "--now", "2026-11-22T00:30:00+09:00"]
    png = os.path.join(work, "chart.png")
    images = os.path.join(work, "charts")
    cases = {
        "preview": preview, "preview --image": preview + ["--image", png],
        "fetch --dry-run": fetch, "fetch --dry-run --image-dir": fetch + ["--image-dir", images],
    }
    results = {name: [] for name in cases}
    run(cases["preview --image"])  # warm the page cache and fontconfig's cache
    for _ in range(runs):
        for name, arguments in cases.items():
            wall, rss, out, err = run(arguments)
            results[name].append((wall, rss))
    _, _, shown, _ = run(cases["preview --image"])
    size = os.path.getsize(png)

    lines = [f"{datetime.date.today()}  {platform.node()}  {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} (other builds running)",
             f"binary: {binary} ({os.path.getsize(binary):,} bytes)", f"{runs} runs each, interleaved; medians", ""]
    for name, values in results.items():
        walls = [v[0] * 1000 for v in values]
        rss = [v[1] for v in values]
        lines.append(f"{name:30} wall {statistics.median(walls):7.1f} ms (min {min(walls):6.1f})   "
                     f"peak RSS {statistics.median(rss):6.1f} MB (max {max(rss):5.1f})")
    for base, with_chart in (("preview", "preview --image"), ("fetch --dry-run", "fetch --dry-run --image-dir")):
        dw = statistics.median(v[0] for v in results[with_chart]) - statistics.median(v[0] for v in results[base])
        dr = statistics.median(v[1] for v in results[with_chart]) - statistics.median(v[1] for v in results[base])
        lines.append(f"chart added to {base:18} +{dw * 1000:5.1f} ms wall, +{dr:4.1f} MB peak RSS")
    lines += ["", f"PNG: {size:,} bytes, 2400x1350", "output:"] + ["  " + l for l in shown.strip().splitlines()]
    print("\n".join(lines))

    if examples:
        quiet = os.path.join(work, "quiet.jsonl")
        with open(quiet, "w") as f:
            f.write(step_log(day_before, 3, "2026-11-20") + step_log([(8 * 60 + 10, 9), (18 * 60 + 40, 14)], 2))
        for name, source, style in (("chart-walk-heavy-day.png", log, "light"), ("chart-quiet-day.png", quiet, "dark")):
            styled = os.path.join(work, f"{style}.toml")
            with open(config) as f, open(styled, "w") as g:
                g.write(f.read().replace("goal = 8000", f'goal = 8000\nchart_style = "{style}"'))
            _, _, out, err = run(["preview", "--config", styled, "--source", source, "--image",
                                  os.path.join(examples, name)] + window)
            print(f"{name}:\n  " + "\n  ".join(out.strip().splitlines()))
finally:
    shutil.rmtree(work)
