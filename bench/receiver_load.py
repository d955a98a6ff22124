#!/usr/bin/env python3
"""Load on the receiver (issue #34): a real `steptweet agent` with [receive] on 127.0.0.1, driven over HTTP.

  1. DEVICES Sensor Logger devices (default 10) at 100 Hz, each POSTing a 1 s batch of totalacceleration readings
     every second for SECONDS (default 60), with fetches every minute: the agent's CPU share of one core (utime +
     stime over wall time, from /proc), its peak RSS (VmHWM), and p50/p99 of the answer time;
  2. a year of Health Auto Export minute points (525,600) sent as 365 daily requests: the time to answer them, then
     the time one-shot fetches take to count and post them, and whether what was posted is exactly what was sent;
  3. a month (43,200 points, about 3.5 MB) in one request: its answer time.

    python3 bench/receiver_load.py .build/release/steptweet > bench/receiver_load_result.txt

Targets on this machine: p99 <= 20 ms per 1 s batch, <= 5 % of one core for 10 devices, the year in <= 10 s in all,
the month answered in <= 1 s, peak RSS <= 40 MB. No peer receiver runs here offline; the numbers stand alone.
"""
import datetime, json, math, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, time

from receiver_client import free_port, post, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "steptweet")
DEVICES = int(os.environ.get("DEVICES", "10"))
SECONDS = int(os.environ.get("SECONDS", "60"))
TOKEN = "bench-token"



def start_agent(work, port):
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\nmax_body = 16777216\n'
                f'[schedule]\ninterval = "1m"\nminimum = "1m"\njitter = "0s"\n[state]\npath = "{work}/state.sqlite"\n'
                f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    agent = subprocess.Popen([BINARY, "agent", "--config", config], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env)
    wait_listening(port)
    return agent



def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(math.ceil(p / 100 * len(values))) - 1)]


def sensor_logger(port, pid):
    rng = random.Random(7)
    t0 = time.time_ns()
    latencies = []
    cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
    for second in range(SECONDS):
        tick = wall0 + second
        for device in range(DEVICES):
            readings = []
            for i in range(100):
                t = t0 + second * 1_000_000_000 + i * 10_000_000
                phase = 2 * math.pi * 1.8 * (t - t0) / 1e9
                readings.append({"name": "totalacceleration", "time": t, "values": {
                    "x": 0.3 * math.sin(phase), "y": 0.2 * math.cos(phase),
                    "z": 9.81 + 2.5 * math.sin(phase) + rng.gauss(0, 0.2)}, "accuracy": 3})
            rng.shuffle(readings)
            body = json.dumps({"messageId": second, "sessionId": f"session-{device}",
                               "deviceId": f"device-{device}", "payload": readings}).encode()
            latencies.append(post(port, body, TOKEN))
        pause = tick + 1 - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    wall = time.perf_counter() - wall0
    cpu = cpu_seconds(pid) - cpu0
    ms = [1000 * x for x in latencies]
    print(f"sensor logger: {DEVICES} devices x 100 Hz, 1 s batches, {SECONDS} s ({len(ms)} requests, "
          f"{DEVICES * 100 * SECONDS} samples)")
    print(f"  answer time p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms, max {max(ms):.2f} ms")
    print(f"  agent CPU {cpu:.2f} s over {wall:.1f} s wall = {100 * cpu / wall:.2f} % of one core "
          f"(receiving, and a fetch each minute)")


def hae_points(day, minutes):
    points = []
    for m in range(minutes):
        t = day + datetime.timedelta(minutes=m)
        points.append({"date": t.strftime("%Y-%m-%d %H:%M:%S +0000"), "qty": (m * 7) % 90, "source": "Bench iPhone"})
    return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}).encode()


def health_auto_export(port, agent, work):
    start = datetime.datetime(2025, 1, 1)
    bodies = [hae_points(start + datetime.timedelta(days=d), 1440) for d in range(365)]
    t = time.perf_counter()
    for body in bodies:
        post(port, body, TOKEN)
    year = time.perf_counter() - t
    print(f"health auto export: a year of minute points (525,600) as 365 daily requests: {year:.2f} s in all")
    print(f"  agent peak RSS {peak_rss_mb(agent.pid):.1f} MB")
    # Counting them: the agent stops, and one-shot fetches (each within its budget) post the year.
    agent.send_signal(signal.SIGTERM)
    agent.wait(timeout=60)
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    t = time.perf_counter()
    fetches = 0
    while fetches < 50:  # a backlog goes on at the next fetch; the last one finds nothing new
        fetches += 1
        out = subprocess.run([BINARY, "fetch", "--config", os.path.join(work, "config.toml"), "--json"],
                             capture_output=True, text=True, env=env)
        if json.loads(out.stdout)["result"] == "NoData":
            break
    counting = time.perf_counter() - t
    with sqlite3.connect(os.path.join(work, "state.sqlite")) as db:
        posted = db.execute("SELECT SUM(steps) FROM outbox").fetchone()[0] or 0
    expected = 365 * sum((m * 7) % 90 for m in range(1440))
    print(f"  counted and posted by {fetches} fetches in {counting:.2f} s: {posted:,} steps "
          f"({'exactly' if posted == expected else 'NOT'} the {expected:,} sent); year in all {year + counting:.2f} s")


def health_auto_export_month(port):
    month = hae_points(datetime.datetime(2024, 1, 1), 43_200)
    answer = post(port, month, TOKEN)
    print(f"health auto export: a month (43,200 points, {len(month) / 1e6:.1f} MB) in one request: "
          f"answered in {answer * 1000:.0f} ms")


def main():
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
          f"{os.cpu_count()} cores, {os.path.relpath(BINARY, ROOT)}")
    for phase in (sensor_logger, health_auto_export, health_auto_export_month):
        work = tempfile.mkdtemp(prefix="steptweet-receiver-bench-")
        port = free_port()
        agent = start_agent(work, port)
        try:
            if phase is sensor_logger:
                phase(port, agent.pid)
            elif phase is health_auto_export:
                phase(port, agent, work)
                continue
            else:
                phase(port)
            print(f"  agent peak RSS {peak_rss_mb(agent.pid):.1f} MB")
        finally:
            if agent.poll() is None:
                agent.send_signal(signal.SIGTERM)
                agent.wait(timeout=60)
            shutil.rmtree(work, ignore_errors=True)


main()
