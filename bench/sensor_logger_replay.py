#!/usr/bin/env python3
"""Every shared step recording replayed as Sensor Logger would push it (issue #34), through a real agent's receiver:
1 s messages of `totalacceleration` mixed with gyroscope readings and shuffled, one message sent twice and two sent in
swapped order, each recording its own session on its own day. Then one fetch, and per recording the steps stored for
its day (`steptweet steps`) against `steptweet count` on the file. Target: each within 1 %.

    python3 bench/sensor_logger_replay.py .build/release/steptweet > bench/sensor_logger_replay_result.txt
"""
import argparse, atexit, csv, datetime, json, os, random, shutil, signal, subprocess, sys, tempfile, time

from receiver_client import free_port, post, wait_listening

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
_parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build", "release", "steptweet"),
                     help="the steptweet binary (default: .build/release/steptweet)")
BINARY = _parser.parse_args().binary
SHARED = os.environ.get("SHARED", os.path.join(ROOT, "..", "shared"))
MANIFEST = os.path.join(SHARED, "data", "steps", "manifest.csv")
TOKEN = "replay-token"
BASE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def messages(path, day_ns, session, rng):
    """The recording's samples as Sensor Logger messages of one second each, in the order they are sent."""
    batches = {}
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        for row in reader:
            t = day_ns + int(round(float(row[0]) * 1e6))
            if len(header) >= 4:
                x, y, z = float(row[1]), float(row[2]), float(row[3])
            else:
                x, y, z = 0.0, 0.0, float(row[1])  # a magnitude-only recording: the magnitude on one axis
            second = (t - day_ns) // 1_000_000_000
            batch = batches.setdefault(second, [])
            batch.append({"name": "totalacceleration", "time": t, "values": {"x": x, "y": y, "z": z}, "accuracy": 3})
            batch.append({"name": "gyroscope", "time": t + 7, "values": {"x": 0.01, "y": 0.02, "z": 0.03}})
    order = sorted(batches)
    if len(order) > 12:
        order[10], order[11] = order[11], order[10]
        order.insert(12, order[5])
    out = []
    for n, second in enumerate(order):
        payload = list(batches[second])
        rng.shuffle(payload)
        out.append(json.dumps({"messageId": n, "sessionId": session, "deviceId": "replay", "payload": payload}))
    return out


def run(args, env=None):
    return subprocess.run([BINARY] + args, capture_output=True, text=True, env=env)


def main():
    with open(MANIFEST) as f:
        rows = [r for r in csv.DictReader(f)]
    work = tempfile.mkdtemp(prefix="steptweet-replay-")
    atexit.register(shutil.rmtree, work, True)  # also when the agent fails to start or a command fails
    port = free_port()
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\n'
                f'[schedule]\ninterval = "never"\ndeadline = "600s"\n[text]\ntime_zone = "UTC"\n'
                f'[state]\npath = "{work}/state.sqlite"\n[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    agent = subprocess.Popen([BINARY, "agent", "--config", config], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env)
    rng = random.Random(3)
    results = []
    try:
        wait_listening(port)
        start = time.perf_counter()
        sent = 0
        for i, row in enumerate(rows):
            day = BASE + datetime.timedelta(days=2 * i)
            day_ns = int(day.timestamp()) * 1_000_000_000
            for body in messages(os.path.join(SHARED, "data", "steps", row["file"]), day_ns, f"file-{i}", rng):
                post(port, body.encode(), TOKEN)
                sent += 1
        elapsed = time.perf_counter() - start
    finally:
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=60)
    now = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    fetch = run(["fetch", "--config", config, "--now", now], env)
    if fetch.returncode != 0:
        raise SystemExit(f"replay: fetch failed: {fetch.stdout}{fetch.stderr}")
    worst = 0.0
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
          f"{len(rows)} recordings, {sent} messages sent in {elapsed:.1f} s")
    print("file,count,received,diff_pct")
    total_count = total_received = 0
    for i, row in enumerate(rows):
        day = BASE + datetime.timedelta(days=2 * i)
        count = run(["count", "--json", os.path.join(SHARED, "data", "steps", row["file"])])
        counted = json.loads(count.stdout)["steps"]
        steps = run(["steps", "--config", config, "--from", day.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "--to", (day + datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")], env)
        received = int(steps.stdout.split()[0])
        diff = 0.0 if counted == received else 100.0 * (received - counted) / max(counted, 1)
        if counted >= 20:
            worst = max(worst, abs(diff))
        total_count += counted
        total_received += received
        print(f"{row['file']},{counted},{received},{diff:.2f}")
    print(f"# all: count {total_count}, received {total_received}; worst file with >= 20 steps: {worst:.2f} %")


main()
