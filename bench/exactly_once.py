#!/usr/bin/env python3
"""Exactly-once fault harness for `steptweet fetch` (issue 6).

Runs N fetch cycles (default 220) of the real binary against a recording HTTP server on 127.0.0.1 that keeps each
Idempotency-Key once and, for 30 % of the requests it acts on, drops the response (closes the connection without
answering). Before each fetch, one more copy of the committed 60 s walk is appended to a growing CSV (follow mode);
about half of the fetch processes are SIGKILLed after a random delay. Afterwards the faults stop and the outbox is
drained. Checks:

  * zero lost windows: the posted windows form one contiguous chain (each starts where the previous ended), and the
    steps in the posts add up to the steps a single uninterrupted pass of the detector finds in the whole file
    (`steptweet count`);
  * zero duplicates: no window is kept twice by the server (and no two kept windows overlap).

Also measures a fetch over a day of stored steps (>= 100 k step events) using the fetch's own elapsed time
(`--json` elapsed_ms; stdout target, so no network).

With `--chart` the webhook target has `image = "chart"` and sends the chart in its body: every kept post must carry
its window's chart (the chart is drawn after the commit that closes the window, so kills also land between the commit
and the drawing).

With `--target ntfy` the server is an ntfy topic instead: no idempotency key, every publish it acts on is kept
(a resent post would be a duplicate), and `GET /<topic>/json?poll=1` lists the messages, which the agent polls before
resending after an unconfirmed attempt. Windows are read from the posted texts (an ISO template).

Usage: python3 bench/exactly_once.py [--binary .build/release/steptweet] [--cycles 220] [--seed 6] [--target ntfy]
       [--chart]
Writes bench/exactly_once_result.txt (ntfy: bench/exactly_once_ntfy_result.txt; --chart: exactly_once_chart_result.txt). Uses only the Python standard library; every process it starts is stopped.
"""
import argparse, atexit, http.server, json, os, random, re, shutil, signal, socket, sqlite3, subprocess, sys, tempfile, threading, time
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WALK = os.path.join(ROOT, "fixtures", "demo_walk_50hz.csv")
BASE = datetime(2026, 11, 21, 1, 0, 0, tzinfo=timezone.utc)   # 10:00 in Tokyo


class Recorder:
    def __init__(self, drop_rate, rng):
        self.lock = threading.Lock()
        self.kept = {}            # key -> post
        self.order = []
        self.requests = 0
        self.dropped = 0
        self.replays = 0
        self.drop_rate = drop_rate
        self.rng = rng
        self.messages = []        # ntfy: every message acted on, duplicates included
        self.polls = 0

    def maybe_drop(self):
        drop = self.rng.random() < self.drop_rate
        if drop:
            self.dropped += 1
        return drop


def make_handler(rec):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def drop_response(self):
            # Acted on the post, but the response is lost.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def answer(self, status, out, headers=()):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            for name, value in headers:
                self.send_header(name, value)
            try:
                self.end_headers()
                self.wfile.write(out)
            except OSError:
                pass  # the fetch process was killed while we answered

        def complete_body(self, required):
            """The JSON body when all of it arrived and it has `required`, else None."""
            length = int(self.headers.get("Content-Length", "0"))
            data = self.rfile.read(length)
            try:
                body = json.loads(data)
            except ValueError:
                return None
            return body if len(data) == length and isinstance(body, dict) and required in body else None

        def do_GET(self):
            # ntfy: GET /<topic>/json?poll=1&since=<unix seconds>: the cached messages, one JSON object per line.
            path, _, query = self.path.partition("?")
            params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
            with rec.lock:
                rec.polls += 1
                since = int(params.get("since", "0"))
                lines = [json.dumps(m) for m in rec.messages if m["time"] >= since]
            self.answer(200, ("\n".join(lines) + "\n").encode())

        def do_POST(self):
            key = self.headers.get("Idempotency-Key", "")
            body = self.complete_body("message" if rec.ntfy else "window_start")
            if body is None or not (rec.ntfy or key):
                # The client died while sending: a server does not act on a partial request.
                self.close_connection = True
                return
            if rec.ntfy:
                with rec.lock:
                    rec.requests += 1
                    message = {"id": f"n{len(rec.messages) + 1}", "time": int(time.time()), "event": "message",
                               "topic": body.get("topic"), "message": body["message"]}
                    rec.messages.append(message)
                    drop = rec.maybe_drop()
                if drop:
                    self.drop_response()
                else:
                    self.answer(200, json.dumps(message).encode())
                return
            with rec.lock:
                rec.requests += 1
                replay = key in rec.kept
                if replay:
                    rec.replays += 1
                else:
                    rec.kept[key] = body
                    rec.order.append(key)
                post_id = rec.order.index(key) + 1
                drop = rec.maybe_drop()
            if drop:
                self.drop_response()
                return
            self.answer(200 if replay else 201, json.dumps({"id": str(post_id)}).encode(),
                        [("Idempotent-Replayed", "true")] if replay else [])

    return Handler


# The webhook's default body with the chart (`--chart`).
CHART_TARGET = """image = "chart"
body_template = '{"text": {{text}}, "idempotency_key": {{idempotency_key}}, "window_start": {{window_start}}, "window_end": {{window_end}}, "image_png_base64": {{image_png_base64}}, "image_alt": {{image_alt}}}'
"""


def walk_rows():
    with open(WALK) as f:
        header = f.readline()
        rows = [tuple(float(v) for v in line.split(",")) for line in f if line.strip()]
    return rows


def temporary_folder(prefix):
    """A folder removed when the harness ends."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, True)
    return path


def iso(d):
    return d.isoformat().replace("+00:00", "Z")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--cycles", type=int, default=220)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--kill-rate", type=float, default=0.5)
    ap.add_argument("--drop-rate", type=float, default=0.3)
    ap.add_argument("--target", choices=["webhook", "ntfy"], default="webhook")
    ap.add_argument("--chart", action="store_true", help="webhook: image = \"chart\"; every post must carry its chart")
    ap.add_argument("--out")
    ap.add_argument("--slice-bytes", type=int, default=8192,
                    help="bytes per ingestion slice (STEPTWEET_SLICE_BYTES): small, so kills land inside sliced ingestion")
    args = ap.parse_args()
    ntfy = args.target == "ntfy"
    name = "exactly_once_ntfy_result.txt" if ntfy else "exactly_once_chart_result.txt" if args.chart else "exactly_once_result.txt"
    args.out = args.out or os.path.join(ROOT, "bench", name)
    rng = random.Random(args.seed)
    work = temporary_folder("steptweet-exactly-once-")
    rec = Recorder(args.drop_rate, random.Random(args.seed + 1))
    rec.ntfy = ntfy
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(rec))
    server.handle_error = lambda request, address: None  # killed clients break pipes; not an error here
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    live = os.path.join(work, "live.csv")
    config = os.path.join(work, "config.toml")
    with open(config, "w") as f:
        f.write(f"""[source]
path = "{live}"
start = "{iso(BASE)}"
follow = true
[schedule]
deadline = "5s"
[text]
{'template = "{from}|{to}|{steps}"' if ntfy else ""}
{'date_format = "yyyy-MM-dd' + "'T'" + 'HH:mm:ss.SSS"' if ntfy else ""}
time_zone = "{'UTC' if ntfy else 'Asia/Tokyo'}"
[state]
path = "{work}/state.sqlite"
[[publish]]
""" + (f'kind = "ntfy"\nbase_url = "http://127.0.0.1:{port}"\ntopic = "steps"\n' if ntfy else
       'kind = "webhook"\nurl_env = "STEPTWEET_BENCH_URL"\n' + (CHART_TARGET if args.chart else "")))
    os.environ["STEPTWEET_BENCH_URL"] = f"http://127.0.0.1:{port}/posts"  # webhook URLs are secrets: never inline
    os.environ["STEPTWEET_SLICE_BYTES"] = str(args.slice_bytes)  # many slices per fetch: kills land inside them
    rows = walk_rows()
    t0 = rows[0][0]
    with open(live, "w") as f:
        f.write("t_ms,x,y,z\n")

    def append_walk(i):
        offset_ms = i * 300_000 + 30_000     # one walk per 5-minute cycle, starting 30 s into it
        with open(live, "a") as f:
            for t, x, y, z in rows:
                f.write(f"{offset_ms + (t - t0):.3f},{x},{y},{z}\n")

    def fetch(now, kill_after=None):
        cmd = [args.binary, "fetch", "--config", config, "--now", iso(now), "--json"]
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        killed = False
        if kill_after is not None:
            try:
                p.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                killed = True
        out, err = p.communicate(timeout=30)
        return p.returncode, out.decode(), err.decode(), time.monotonic() - start, killed

    # Warm-up: how long a fetch process takes here (to spread the kills over it).
    durations = []
    results = {"NewData": 0, "NoData": 0, "Failed": 0}
    kills = 0
    now = BASE
    for i in range(args.cycles):
        append_walk(i)
        now = BASE + timedelta(seconds=(i + 1) * 300)
        kill_after = None
        if i >= 5 and rng.random() < args.kill_rate:
            median = sorted(durations)[len(durations) // 2]
            kill_after = rng.uniform(0, median * 1.2)
        code, out, err, took, killed = fetch(now, kill_after)
        if killed:
            kills += 1
            continue
        durations.append(took)
        try:
            key = json.loads(out)["result"]          # `fetch --json` prints one JSON document
        except ValueError:
            key = ""
        if key not in results:
            print(f"cycle {i}: unexpected output (exit {code}): {out!r} {err!r}", file=sys.stderr)
            sys.exit(2)
        results[key] += 1

    # Faults off; drain the outbox (retries may be backed off: step the clock an hour per fetch).
    rec.drop_rate = 0
    drain = 0
    for j in range(30):
        now = now + timedelta(hours=1)
        code, out, err, took, killed = fetch(now)
        drain += 1
        db = sqlite3.connect(os.path.join(work, "state.sqlite"))
        pending = db.execute("SELECT COUNT(*) FROM outbox WHERE status != 'delivered'").fetchone()[0]
        db.close()
        if pending == 0:
            break

    # Verification.
    if ntfy:
        posts = rec.messages
        windows = sorted(tuple(m["message"].split("|")) for m in posts)
        posted_steps = sum(int(w[2]) for w in windows)
    else:
        posts = [rec.kept[k] for k in rec.order]
        windows = sorted((p["window_start"], p["window_end"], p["text"]) for p in posts)
        steps_re = re.compile(r"を持って (\d+) 歩")
        posted_steps = sum(int(steps_re.search(t).group(1)) for _, _, t in windows)
    distinct = sorted({(w[0], w[1]) for w in windows})      # a duplicate is counted once below, not as a gap
    gaps = sum(1 for a, b in zip(distinct, distinct[1:]) if a[1] != b[0])
    overlaps = sum(1 for a, b in zip(distinct, distinct[1:]) if b[0] < a[1])
    same_window = len(windows) - len(distinct)
    count = json.loads(subprocess.run([args.binary, "count", "--json", live], capture_output=True, text=True).stdout)
    whole = count["steps"]
    db = sqlite3.connect(os.path.join(work, "state.sqlite"))
    undelivered = db.execute("SELECT COUNT(*) FROM outbox WHERE status != 'delivered'").fetchone()[0]
    history = db.execute("SELECT COUNT(*) FROM fetch_history").fetchone()[0]
    db.close()
    lost_steps = whole - posted_steps
    chartless = sum(1 for p in posts if not p.get("image_png_base64")) if args.chart else 0
    ok = gaps == 0 and overlaps == 0 and same_window == 0 and lost_steps == 0 and undelivered == 0 and chartless == 0
    summary = [
        f"exactly-once harness ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, seed {args.seed}, binary {os.path.relpath(args.binary, ROOT)}, target {args.target})",
        f"fetch cycles: {args.cycles} (+{drain} drain fetches without faults)",
        f"fetch processes SIGKILLed: {kills}; completed: {sum(results.values())} "
        f"(NewData {results['NewData']}, NoData {results['NoData']}, Failed {results['Failed']}); history rows: {history}",
        (f"ntfy server: {rec.requests} publishes acted on, {rec.dropped} responses dropped after acting, {rec.polls} topic polls"
         if ntfy else
         f"server: {rec.requests} requests, {rec.dropped} responses dropped after acting, {rec.replays} replays answered from the key store"),
        f"posts kept by the server: {len(posts)}; windows: first {windows[0][0]} .. last {windows[-1][1]}",
        f"steps: {posted_steps} posted, {whole} in one uninterrupted pass over the file -> lost {lost_steps}",
        f"lost windows (gaps in the chain): {gaps}; duplicate windows: {same_window}; overlapping windows: {overlaps}; undelivered: {undelivered}",
        *([f"posts without their chart: {chartless} of {len(posts)}"] if args.chart else []),
        f"result: {'PASS' if ok else 'FAIL'}",
    ]
    if ntfy:
        server.shutdown()
        text = "\n".join(summary) + "\n"
        print(text, end="")
        with open(args.out, "w") as f:
            f.write(text)
        sys.exit(0 if ok else 1)

    # A fetch over a day of stored steps (>= 100 k step events), stdout target: no network.
    day = temporary_folder("steptweet-day-")
    dcfg = os.path.join(day, "config.toml")
    with open(dcfg, "w") as f:
        f.write(f'[text]\ntime_zone = "Asia/Tokyo"\n[state]\npath = "{day}/state.sqlite"\n')
    subprocess.run([args.binary, "fetch", "--config", dcfg, "--now", iso(BASE)], capture_output=True)
    db = sqlite3.connect(os.path.join(day, "state.sqlite"))
    day_rng = random.Random(args.seed + 2)
    start_s = int(BASE.timestamp())
    buckets = {}
    events = 0
    while events < 100_000:       # walking bouts of 1-10 minutes at ~1.8 steps/s spread over the day
        s = start_s + day_rng.randrange(0, 86_400 - 600)
        for k in range(day_rng.randrange(60, 600)):
            n = 2 if day_rng.random() < 0.8 else 1
            buckets[s + k] = buckets.get(s + k, 0) + n
            events += n
    db.executemany("INSERT INTO steps (second, count) VALUES (?, ?) ON CONFLICT(second) DO UPDATE SET count = count + excluded.count",
                   sorted(buckets.items()))
    db.execute("INSERT OR REPLACE INTO window_state (id, posted_until_ns) VALUES (1, ?)", (start_s * 1_000_000_000,))
    db.commit()
    db.close()
    timings = []
    for k in range(7):
        # Each run closes a window over the whole day; reset the window start between runs.
        db = sqlite3.connect(os.path.join(day, "state.sqlite"))
        db.execute("UPDATE window_state SET posted_until_ns = ?", (start_s * 1_000_000_000,))
        db.execute("DELETE FROM outbox")
        db.commit()
        db.close()
        r = subprocess.run([args.binary, "fetch", "--config", dcfg, "--now", iso(BASE + timedelta(days=1)), "--json"],
                           capture_output=True, text=True)
        j = json.loads(r.stdout)
        assert j["steps"] == events, (j["steps"], events)
        timings.append(j["elapsed_ms"])
    timings.sort()

    # A hung endpoint: accepts connections, never answers. The fetch must end by its deadline + 1 s.
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(16)
    hung_dir = temporary_folder("steptweet-hung-")
    hcfg = os.path.join(hung_dir, "config.toml")
    with open(hcfg, "w") as f:
        f.write(f'[schedule]\ndeadline = "2s"\n[state]\npath = "{hung_dir}/state.sqlite"\n[[publish]]\nkind = "webhook"\n'
                'url_env = "STEPTWEET_BENCH_HUNG_URL"\n')
    os.environ["STEPTWEET_BENCH_HUNG_URL"] = f"http://127.0.0.1:{hung.getsockname()[1]}/posts"
    # Create the database with one fetch (no source), then put one post in its outbox.
    subprocess.run([args.binary, "fetch", "--config", hcfg, "--now", iso(BASE)], capture_output=True)
    db = sqlite3.connect(os.path.join(hung_dir, "state.sqlite"))
    db.execute("INSERT INTO outbox (window_start_ns, window_end_ns, steps, text, target, idempotency_key, next_attempt_ns, created_ns) "
               "VALUES (0, 1, 1, 'hung test', 'webhook', 'hung-1', 0, 0)")
    db.commit()
    db.close()
    hung_walls = []
    hung_line = ""
    for k in range(3):
        start = time.monotonic()
        r = subprocess.run([args.binary, "fetch", "--config", hcfg, "--now", iso(BASE + timedelta(days=k + 1))],
                           capture_output=True, text=True, timeout=30)
        hung_walls.append(time.monotonic() - start)
        hung_line = r.stdout.strip().splitlines()[-1]
    hung.close()

    # Idle agent: RSS and CPU between fetches (one SIGUSR1 fetch first, then 10 s of idling).
    idle_dir = temporary_folder("steptweet-idle-")
    icfg = os.path.join(idle_dir, "config.toml")
    with open(icfg, "w") as f:
        f.write(f'[source]\npath = "{WALK}"\nstart = "{iso(BASE)}"\n[schedule]\ninterval = "1h"\n'
                f'[state]\npath = "{idle_dir}/state.sqlite"\n')
    agent = subprocess.Popen([args.binary, "agent", "--config", icfg], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        for line in agent.stderr:
            if "ready:" in line or time.monotonic() > deadline:
                break
        agent.send_signal(signal.SIGUSR1)
        for line in agent.stderr:
            if "fetch signal:" in line or time.monotonic() > deadline:
                break

        def proc(pid):
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
            status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
            return ticks, int(status["VmRSS"].split()[0]), int(status["RssAnon"].split()[0])

        t1, _, _ = proc(agent.pid)
        time.sleep(10)
        t2, rss_kb, anon_kb = proc(agent.pid)
    finally:
        agent.send_signal(signal.SIGTERM)
        agent_exit = agent.wait(timeout=30)

    server.shutdown()
    lines = summary + [
        "",
        f"day of stored steps: {events} step events in {len(buckets)} one-second buckets; fetch (stdout target) elapsed ms "
        f"min {timings[0]:.1f} median {timings[len(timings)//2]:.1f} max {timings[-1]:.1f} (target <= 50 ms)",
        f"fetch process wall time during the cycles (incl. start-up, network): median {sorted(durations)[len(durations)//2]*1000:.0f} ms",
        f"hung endpoint (accepts, never answers), deadline 2 s: fetch process wall time {', '.join(f'{w:.2f} s' for w in hung_walls)} "
        f"(target <= 3 s); last line: {hung_line}",
        f"idle agent after one fetch: VmRSS {rss_kb / 1024:.1f} MB (of which anonymous {anon_kb / 1024:.1f} MB; the rest is "
        f"shared library pages), CPU over 10 s idle: {t2 - t1} ticks; exit after SIGTERM: {agent_exit}",
    ]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    with open(args.out, "w") as f:
        f.write(text)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
