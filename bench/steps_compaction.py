#!/usr/bin/env python3
"""The state database after a year of Health Auto Export minutes: how big the `steps` table grows, and what merging
old seconds into minutes (`Sources/Store/StepsCompaction.swift`) leaves of it.

A real `steptweet agent` receives 365 daily requests of 1,440 minute points (as bench/receiver_load.py sends them),
one-shot fetches post the year, then further one-shot fetches (each merges at most a day) run until nothing is left
to merge. Printed: rows of `steps`, the database's live size (pages in use) and its file size, after posting and
after merging, and the time the merging fetches took.

    python3 bench/steps_compaction.py .build-static/release/steptweet > bench/steps_compaction_result.txt
"""
import datetime, json, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time

from receiver_client import free_port, post, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "steptweet")
TOKEN = "bench-token"


def hae_day(day):
    points = [{"date": (day + datetime.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M:%S +0000"),
               "qty": (m * 7) % 90, "source": "Bench iPhone"} for m in range(1440)]
    return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}).encode()


def measure(path):
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT COUNT(*) FROM steps").fetchone()[0]
        total = db.execute("SELECT SUM(count) FROM steps").fetchone()[0]
        page = db.execute("PRAGMA page_size").fetchone()[0]
        used = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
        tables = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 5").fetchall()
    print("  largest tables and indexes: " + ", ".join(f"{name} {size / 1e6:.1f} MB" for name, size in tables))
    return rows, total, used * page / 1e6, os.path.getsize(path) / 1e6


def fetch(config, env):
    out = subprocess.run([BINARY, "fetch", "--config", config, "--json"], capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


def main():
    work = tempfile.mkdtemp(prefix="steptweet-compaction-bench-")
    try:
        port = free_port()
        config = os.path.join(work, "config.toml")
        state = os.path.join(work, "state.sqlite")
        with open(config, "w") as f:
            f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\nmax_body = 16777216\n'
                    f'[state]\npath = "{state}"\n[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
        env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
        agent = subprocess.Popen([BINARY, "agent", "--config", config], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        wait_listening(port)
        for d in range(365):
            post(port, hae_day(datetime.datetime(2025, 1, 1) + datetime.timedelta(days=d)), TOKEN)
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=60)
        fetches = 0
        t = time.perf_counter()
        while fetch(config, env)["result"] != "NoData" and fetches < 50:
            fetches += 1
        posting = time.perf_counter() - t
        print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
              f"{os.cpu_count()} cores, {os.path.relpath(BINARY, ROOT)}")
        print(f"a year of Health Auto Export minute points (525,600), received and posted by {fetches} fetches "
              f"in {posting:.1f} s (and one that found nothing):")
        rows, total, live, size = measure(state)
        print(f"  steps: {rows:,} rows holding {total:,} steps; database {live:.1f} MB live, file {size:.1f} MB")
        t = time.perf_counter()
        merges, last = 0, None
        while merges < 800:
            fetch(config, env)
            merges += 1
            with sqlite3.connect(state) as db:
                row = db.execute("SELECT until_second FROM steps_compaction").fetchone()
            if row is None or row == last:
                break
            last = row
        took = time.perf_counter() - t
        rows, total, live, size = measure(state)
        print(f"then {merges} fetches merging a day each ({took:.1f} s, {1000 * took / merges:.0f} ms a fetch):")
        print(f"  steps: {rows:,} rows holding {total:,} steps; database {live:.1f} MB live, file {size:.1f} MB "
              f"(the file keeps its freed pages for what comes next)")
        # Day to day after that: an hour of new minutes received, then a fetch counts it. What one fetch costs should
        # not grow with the history kept behind it.
        took = []
        for hour in range(5):
            agent = subprocess.Popen([BINARY, "agent", "--config", config], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=env)
            wait_listening(port)
            start = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0) \
                - datetime.timedelta(hours=6 - hour)
            points = [{"date": (start + datetime.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M:%S +0000"),
                       "qty": 40 + m, "source": "Bench iPhone"} for m in range(60)]
            post(port, json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count",
                                                         "data": points}]}}).encode(), TOKEN)
            agent.send_signal(signal.SIGTERM)
            agent.wait(timeout=60)
            t = time.perf_counter()
            report = fetch(config, env)
            took.append(time.perf_counter() - t)
            assert report.get("result") == "NewData", report
        took.sort()
        print(f"then an hour of new minutes received and counted, 5 times: a fetch takes {1000 * took[2]:.0f} ms "
              f"(median; {1000 * took[0]:.0f}-{1000 * took[-1]:.0f} ms), with the year behind it")
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
