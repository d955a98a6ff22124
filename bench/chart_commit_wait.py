#!/usr/bin/env python3
"""How long a write to the state waits behind a fetch that closes windows with a chart (issue #46).

A target with `image = "chart"` makes every closed window's chart be drawn (tens of milliseconds). While the fetch
holds SQLite's write lock, every other writer waits: a phone's push to the agent's receiver commits before it is
answered. This bench runs one-shot `steptweet fetch` processes over a day's step log, each closing one hourly window
with its chart, while a probe thread writes to the same state database as a receiver does (a transaction of its own,
`BEGIN IMMEDIATE`, SQLite's busy handler with a 10 s timeout, the way GRDB waits) every 2 ms, and times each write.
The figures are the probe's write times while a fetch runs: p50, p99, max, and the median of each fetch's longest.

    python3 bench/chart_commit_wait.py BEFORE_BINARY AFTER_BINARY [FETCHES] [ROUNDS]

Both binaries run the same fetches, alternating round by round, each in a temporary folder of its own (removed at the
end). Loopback only: the file target writes lines and PNGs into the folder.
"""
import datetime, json, os, random, shutil, sqlite3, statistics, subprocess, sys, tempfile, threading, time

BINARIES = sys.argv[1:3]
FETCHES = int(sys.argv[3]) if len(sys.argv) > 3 else 20
ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 2
DAY = "2026-11-21"


def step_log(path):
    """A line a minute over the day (Tokyo), with steps in every hour."""
    rng = random.Random(5)
    start = datetime.datetime.fromisoformat(f"{DAY}T00:00:00+09:00")
    with open(path, "w") as f:
        f.write(json.dumps({"ts": start.isoformat(), "steps": 0}) + "\n")
        for m in range(1, 24 * 60 + 1):
            t = start + datetime.timedelta(minutes=m)
            f.write(json.dumps({"ts": t.isoformat(), "steps": rng.randint(0, 120)}) + "\n")


class Probe(threading.Thread):
    """Writes to the state every 2 ms; keeps (start, seconds) of each write."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.db = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
        self.db.execute("CREATE TABLE IF NOT EXISTS bench_probe (id INTEGER PRIMARY KEY, n INTEGER)")
        self.writes, self.stopping = [], threading.Event()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            started = time.perf_counter()
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("INSERT OR REPLACE INTO bench_probe VALUES (1, ?)", (n,))
            self.db.execute("COMMIT")
            self.writes.append((started, time.perf_counter() - started))
            n += 1
            time.sleep(0.002)


def one_round(binary):
    """The probe's write times (ms) during each fetch of one pass over the day."""
    work = tempfile.mkdtemp(prefix="steptweet-chart-wait-")
    try:
        log = os.path.join(work, "day.jsonl")
        step_log(log)
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(f'[source]\npath = "{log}"\n[schedule]\nwindow = "1h"\n[text]\ntime_zone = "Asia/Tokyo"\n'
                    f'[state]\npath = "{work}/state.sqlite"\n'
                    f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\nimage = "chart"\n')
        fetch = lambda hour: subprocess.run(
            [binary, "fetch", "--config", config, "--quiet", "--now", f"{DAY}T{hour:02d}:00:30+09:00"],
            capture_output=True, text=True, timeout=120)
        fetch(0)  # creates the state; no window has closed yet
        probe = Probe(os.path.join(work, "state.sqlite"))
        probe.start()
        spans = []
        for hour in range(1, FETCHES + 1):
            started = time.perf_counter()
            out = fetch(hour)
            spans.append((started, time.perf_counter()))
            if out.returncode != 0:
                raise SystemExit(f"bench: fetch failed: {out.stdout}{out.stderr}")
        probe.stopping.set()
        probe.join()
        with open(os.path.join(work, "posts.jsonl")) as f:
            posts = [json.loads(line) for line in f]
        if len(posts) != FETCHES or not all(p.get("image_file") for p in posts):
            raise SystemExit(f"bench: {len(posts)} posts for {FETCHES} fetches, or one without its chart")
        return [[1000 * s for t, s in probe.writes if a <= t <= b] for a, b in spans]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(p / 100 * len(values))) - 1))]


def main():
    if len(BINARIES) != 2:
        raise SystemExit(__doc__)
    results = {b: [] for b in BINARIES}
    for _ in range(ROUNDS):
        for binary in BINARIES:
            results[binary] += one_round(binary)
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
          f"{os.cpu_count()} cores; {ROUNDS} rounds x {FETCHES} fetches, each closing an hourly window with its chart")
    for label, binary in zip(("before", "after"), BINARIES):
        per_fetch = results[binary]
        writes = [w for fetch in per_fetch for w in fetch]
        longest = [max(fetch) for fetch in per_fetch if fetch]
        print(f"{label}: {binary}")
        print(f"  probe writes during fetches: {len(writes)}, p50 {percentile(writes, 50):.2f} ms, "
              f"p99 {percentile(writes, 99):.2f} ms, max {max(writes):.2f} ms")
        print(f"  longest write wait per fetch: median {statistics.median(longest):.2f} ms, "
              f"min {min(longest):.2f} ms")


main()
