#!/usr/bin/env python3
"""What a fetch costs once many Sensor Logger sessions have ended: a real `steptweet agent` receives SESSIONS sessions
(default 365, a year of one recording a day) of 2 s at 100 Hz each, is stopped, one fetch after `reorder` (1 s here)
closes them all, and then
5 one-shot fetches with nothing new are timed (median, min-max). Each ended session used to be read by every fetch.

    python3 bench/ended_sessions.py BINARY [BINARY...] > bench/ended_sessions_result.txt
"""
import datetime, json, os, shutil, signal, subprocess, sys, tempfile, time

from receiver_client import free_port, post, wait_listening

SESSIONS = int(os.environ.get("SESSIONS", "365"))
TOKEN = "bench-token"


def message(session, start_ns):
    payload = [{"name": "totalacceleration", "time": start_ns + i * 10_000_000,
                "values": {"x": 0.1, "y": 9.8 + (0.5 if i % 50 < 25 else -0.5), "z": 0.2}} for i in range(200)]
    return json.dumps({"messageId": 1, "sessionId": f"session-{session}", "deviceId": "bench-phone",
                       "payload": payload}).encode()


def fetch(binary, config, env):
    t = time.perf_counter()
    out = subprocess.run([binary, "fetch", "--config", config, "--json"], capture_output=True, text=True, env=env)
    took = time.perf_counter() - t
    return json.loads(out.stdout), took


def run(binary):
    work = tempfile.mkdtemp(prefix="steptweet-sessions-bench-")
    try:
        port = free_port()
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\nreorder = "1s"\n'
                    f'[state]\npath = "{work}/state.sqlite"\n[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
        env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
        agent = subprocess.Popen([binary, "agent", "--config", config], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=env)
        wait_listening(port)
        day = 86_400 * 1_000_000_000
        first = int((time.time() - 400 * 86_400) * 1e9)
        for s in range(SESSIONS):
            post(port, message(s, first + s * day), TOKEN)
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=60)
        time.sleep(1.5)  # the sessions are quiet for longer than `reorder`: the next fetch closes them
        _, closing = fetch(binary, config, env)
        took = sorted(fetch(binary, config, env)[1] for _ in range(5))
        print(f"{binary}: {SESSIONS} ended sessions; the fetch that closed them {closing:.2f} s; then a fetch with "
              f"nothing new {1000 * took[2]:.0f} ms (median of 5; {1000 * took[0]:.0f}-{1000 * took[-1]:.0f} ms)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().nodename}, "
      f"{os.cpu_count()} cores")
for b in sys.argv[1:]:
    run(b)
