#!/usr/bin/env python3
"""Load on the receiver (issue #34): a real `steptweet agent` with [receive] on 127.0.0.1, driven over HTTP, and in the
same run the same requests sent to a peer receiver (bench/receiver_peer.py).

  1. DEVICES Sensor Logger devices (default 10) at 100 Hz, each POSTing a 1 s batch of totalacceleration readings
     every second for SECONDS (default 60), with fetches every minute: the agent's CPU share of one core (utime +
     stime of the process, all its threads, over wall time, from /proc), its peak RSS (VmHWM), and p50/p99 of the
     answer time;
  2. a year of Health Auto Export minute points (525,600) sent as 365 daily requests: the time to answer them, then
     the time one-shot fetches take to count and post them, and whether what was posted is exactly what was sent;
  3. a month (43,200 points, about 3.3 MB) in one request: its answer time.

The peer gets the same requests in each phase, after the agent, each time in a process and a temporary folder of its
own: 1. p50/p99, its CPU share (all its threads) and VmHWM; 2. the 365 requests' time and VmHWM; 3. the month's answer
time and VmHWM. It is FastAPI on uvicorn (one worker) with sqlite3, the shape of the common self-hosted ingest services
for these apps (health-db, apple-health-ingester), none of which installs offline: it checks the bearer token, parses
the JSON, upserts Health Auto Export step points on (source, date) and inserts Sensor Logger readings with duplicates
ignored, commits, then answers. It counts no steps and fetches nothing, so its numbers are a lower bound on the work of
a receiver that counts steps, and there is no counting-by-fetch line for it. Its pinned packages go into .venv-bench/
(git-ignored), made here with `python3 -m venv` and pip from PyPI when missing; the versions are printed.

    python3 bench/receiver_load.py .build/release/steptweet > bench/receiver_load_result.txt

Targets on this machine (for the agent): p99 <= 20 ms per 1 s batch, <= 5 % of one core for 10 devices, the year in
<= 10 s in all, the month answered in <= 1 s, peak RSS <= 40 MB. Everything listens on 127.0.0.1 only; each receiver
is stopped and its folder removed at the end of its phase, on an error too.
"""
import contextlib, datetime, json, math, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, time

from receiver_client import free_port, post, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "steptweet")
DEVICES = int(os.environ.get("DEVICES", "10"))
SECONDS = int(os.environ.get("SECONDS", "60"))
TOKEN = "bench-token"
VENV = os.path.join(ROOT, ".venv-bench")
PEER_SCRIPT = os.path.join(ROOT, "bench", "receiver_peer.py")
PEER_PINS = {"fastapi": "0.165.0", "uvicorn": "0.54.0"}
PEER_PACKAGES = [f"fastapi=={PEER_PINS['fastapi']}", f"uvicorn[standard]=={PEER_PINS['uvicorn']}"]
PEER = {}  # python, versions and label, set by prepare_peer()
YEAR_EXPECTED = 365 * sum((m * 7) % 90 for m in range(1440))


def prepare_peer():
    """The venv's python with the pinned packages (made or completed with pip when they are missing) and what the
    peer is built from."""
    python = os.path.join(VENV, "bin", "python")

    def versions():
        out = subprocess.run([python, PEER_SCRIPT, "--versions"], capture_output=True, text=True, timeout=60)
        return json.loads(out.stdout) if out.returncode == 0 else {}

    found = versions() if os.path.exists(python) else {}
    if any(found.get(name) != pin for name, pin in PEER_PINS.items()) or not found.get("uvloop"):
        print(f"bench: installing {' '.join(PEER_PACKAGES)} into {os.path.relpath(VENV, ROOT)}/", file=sys.stderr)
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True, timeout=300, stdout=sys.stderr)
        subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", *PEER_PACKAGES],
                       check=True, timeout=600, stdout=sys.stderr)
        found = versions()
    if not found:
        raise SystemExit("bench: the peer's packages did not install")
    PEER.update(python=python, versions=found,
                label=f"peer (FastAPI {found['fastapi']} + uvicorn {found['uvicorn']} + sqlite3, stores only)")


def start_agent(work, port):
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\nmax_body = 16777216\n'
                f'[schedule]\ninterval = "1m"\nminimum = "1m"\njitter = "0s"\n[state]\npath = "{work}/state.sqlite"\n'
                f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    return subprocess.Popen([BINARY, "agent", "--config", config], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)


def start_peer(work, port):
    env = dict(os.environ, PEER_TOKEN=TOKEN)
    return subprocess.Popen([PEER["python"], PEER_SCRIPT, str(port), os.path.join(work, "peer.sqlite")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def stop(process):
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@contextlib.contextmanager
def running(start, what):
    """A receiver started by `start` in a temporary folder of its own, listening on a free loopback port; stopped and
    its folder removed when the block ends, however it ends."""
    work = tempfile.mkdtemp(prefix="steptweet-receiver-bench-")
    process = None
    try:
        port = free_port()
        process = start(work, port)
        wait_listening(port, what, seconds=30)
        yield process, port, work
    finally:
        stop(process)
        shutil.rmtree(work, ignore_errors=True)


def peer_stored(peer, work, sql):
    """What the stopped peer's database holds, by `sql`."""
    stop(peer)
    with contextlib.closing(sqlite3.connect(os.path.join(work, "peer.sqlite"))) as db:
        return db.execute(sql).fetchone()


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


def sensor_logger_load(port, pid):
    """DEVICES devices' 1 s batches for SECONDS s (the same readings at every call, timed from now): the answer times
    in ms, and the CPU and wall seconds of the receiver's process over them."""
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
    return [1000 * x for x in latencies], cpu, wall


def answer_times(ms):
    return (f"answer time p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms, "
            f"max {max(ms):.2f} ms")


def sensor_logger():
    with running(start_agent, "the agent") as (agent, port, _):
        ms, cpu, wall = sensor_logger_load(port, agent.pid)
        print(f"sensor logger: {DEVICES} devices x 100 Hz, 1 s batches, {SECONDS} s ({len(ms)} requests, "
              f"{DEVICES * 100 * SECONDS} samples)")
        print(f"  {answer_times(ms)}")
        print(f"  agent CPU {cpu:.2f} s over {wall:.1f} s wall = {100 * cpu / wall:.2f} % of one core "
              f"(receiving, and a fetch each minute)")
        print(f"  agent peak RSS {peak_rss_mb(agent.pid):.1f} MB")
    with running(start_peer, "the peer") as (peer, port, work):
        ms, cpu, wall = sensor_logger_load(port, peer.pid)
        rss = peak_rss_mb(peer.pid)
        stored, = peer_stored(peer, work, "SELECT COUNT(*) FROM sensor_readings")
    print(f"  {PEER['label']}: {answer_times(ms)}")
    print(f"  peer CPU {cpu:.2f} s over {wall:.1f} s wall = {100 * cpu / wall:.2f} % of one core "
          f"(receiving and storing, all its threads)")
    print(f"  peer peak RSS {rss:.1f} MB; {stored:,} readings stored")


def hae_points(day, minutes):
    points = []
    for m in range(minutes):
        t = day + datetime.timedelta(minutes=m)
        points.append({"date": t.strftime("%Y-%m-%d %H:%M:%S +0000"), "qty": (m * 7) % 90, "source": "Bench iPhone"})
    return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}).encode()


def health_auto_export():
    start = datetime.datetime(2025, 1, 1)
    bodies = [hae_points(start + datetime.timedelta(days=d), 1440) for d in range(365)]
    with running(start_agent, "the agent") as (agent, port, work):
        t = time.perf_counter()
        for body in bodies:
            post(port, body, TOKEN)
        year = time.perf_counter() - t
        print(f"health auto export: a year of minute points (525,600) as 365 daily requests: {year:.2f} s in all")
        print(f"  agent peak RSS {peak_rss_mb(agent.pid):.1f} MB")
        # Counting them: the agent stops, and one-shot fetches (each within its budget) post the year.
        stop(agent)
        env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
        t = time.perf_counter()
        fetches = 0
        while fetches < 50:  # a backlog goes on at the next fetch; the last one finds nothing new
            fetches += 1
            out = subprocess.run([BINARY, "fetch", "--config", os.path.join(work, "config.toml"), "--json"],
                                 capture_output=True, text=True, env=env, timeout=300)
            if json.loads(out.stdout)["result"] == "NoData":
                break
        counting = time.perf_counter() - t
        with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db:
            posted = db.execute("SELECT SUM(steps) FROM outbox").fetchone()[0] or 0
        print(f"  counted and posted by {fetches} fetches in {counting:.2f} s: {posted:,} steps "
              f"({'exactly' if posted == YEAR_EXPECTED else 'NOT'} the {YEAR_EXPECTED:,} sent); "
              f"year in all {year + counting:.2f} s")
    with running(start_peer, "the peer") as (peer, port, work):
        t = time.perf_counter()
        for body in bodies:
            post(port, body, TOKEN)
        year = time.perf_counter() - t
        rss = peak_rss_mb(peer.pid)
        points, steps = peer_stored(peer, work, "SELECT COUNT(*), SUM(qty) FROM hae_steps")
    print(f"  {PEER['label']}: the 365 requests in {year:.2f} s in all")
    print(f"  peer peak RSS {rss:.1f} MB; {points:,} points stored, {steps:,.0f} steps "
          f"({'exactly' if steps == YEAR_EXPECTED else 'NOT'} what was sent; it counts and posts nothing)")


def health_auto_export_month():
    month = hae_points(datetime.datetime(2024, 1, 1), 43_200)
    with running(start_agent, "the agent") as (agent, port, _):
        answer = post(port, month, TOKEN)
        print(f"health auto export: a month (43,200 points, {len(month) / 1e6:.1f} MB) in one request: "
              f"answered in {answer * 1000:.0f} ms")
        print(f"  agent peak RSS {peak_rss_mb(agent.pid):.1f} MB")
    with running(start_peer, "the peer") as (peer, port, work):
        answer = post(port, month, TOKEN)
        rss = peak_rss_mb(peer.pid)
        points, = peer_stored(peer, work, "SELECT COUNT(*) FROM hae_steps")
    print(f"  {PEER['label']}: answered in {answer * 1000:.0f} ms")
    print(f"  peer peak RSS {rss:.1f} MB; {points:,} points stored")


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the receivers stop and the folders go
    prepare_peer()
    v = PEER["versions"]
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
          f"{os.cpu_count()} cores, {os.path.relpath(BINARY, ROOT)}")
    print(f"# peer: bench/receiver_peer.py on Python {v['python']}: FastAPI {v['fastapi']} "
          f"(Starlette {v['starlette']}) + uvicorn {v['uvicorn']}")
    print(f"#   (uvloop {v['uvloop']}, httptools {v['httptools']}), one worker on 127.0.0.1, + sqlite3 "
          f"(SQLite {v['sqlite']}, WAL, synchronous NORMAL).")
    print("#   It checks the bearer token, parses the JSON, upserts Health Auto Export points on (source, date),")
    print("#   inserts Sensor Logger readings (duplicates ignored), commits and answers. It counts no steps: a lower")
    print("#   bound on the work of a receiver that counts them.")
    for phase in (sensor_logger, health_auto_export, health_auto_export_month):
        phase()
        sys.stdout.flush()


main()
