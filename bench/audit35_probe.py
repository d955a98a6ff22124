#!/usr/bin/env python3
"""Hostile traffic the fault harness does not send (session 35's audit): a real `steptweet agent` with [receive] on
127.0.0.1 and tight limits (idle_timeout 5 s, read_timeout 5 s, max_connections 100, max_body 100,000, max_header
4,096), each probe bounded in time and count, every socket with a timeout. Figures only, no pass/fail.

    python3 bench/audit35_probe.py .build/release/steptweet > bench/audit35_probe_result.txt

Probes: a Content-Length over the body then silence; slowloris heads and bodies; 300 idle connections (3x the limit)
and a good request meanwhile, with the CPU share while they are held; chunk sizes that are not hex, overflow, or
promise more than comes; a body of exactly max_body, one byte over (length and chunked), a gzip that inflates over;
invalid UTF-8, 100,000 nested arrays, huge numbers; pipelined requests with a bad one in the middle; 20 copies of one
payload racing; SIGTERM, SIGINT and SIGHUP during slow heads, slow bodies, idle connections and racing posts (time
to exit, exit status); RSS under a bounded flood (2,000 bodies of 90 KB from 20 threads). Afterwards one-shot
fetches post the backlog; the steps posted must equal those of the points answered 200.
"""
import contextlib, datetime, gzip, json, os, re, shutil, signal, socket, sqlite3, subprocess, sys, tempfile
import threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_harness import (  # noqa: E402
    Ledger, closed_by_peer, connections, cpu_seconds, pipelined_statuses, read_status)
from receiver_client import free_port, wait_listening  # noqa: E402

BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/release/steptweet"
TOKEN = "fault-token"
MAX_BODY = 100_000


def note(name, value):
    print(f"{name:62} {value}", flush=True)


def head(length=None, extra="", token=TOKEN):
    line = f"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
    if length is not None:
        line += f"Content-Length: {length}\r\n"
    return (line + extra + "\r\n").encode()


def ask(port, data, timeout=8):
    """Sends `data` on a new connection; (status, answer text, seconds)."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        with contextlib.suppress(OSError):
            s.sendall(data)
        s.settimeout(timeout)
        answer = b""
        with contextlib.suppress(OSError):
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
                m = re.search(rb"Content-Length: (\d+)\r\n", answer, re.I)
                if m and b"\r\n\r\n" in answer and len(answer.split(b"\r\n\r\n", 1)[1]) >= int(m.group(1)):
                    break
    code = re.match(rb"HTTP/1\.1 (\d{3})", answer)
    text = answer.split(b"\r\n\r\n", 1)[-1][:160].decode("utf-8", "replace")
    return (int(code.group(1)) if code else ("closed" if not answer else "?")), text, time.monotonic() - start


def closed_within(socks, seconds):
    """How many of `socks` the agent closed within `seconds`, and the last one's time."""
    t0, closed, last = time.monotonic(), set(), 0.0
    while time.monotonic() - t0 < seconds and len(closed) < len(socks):
        for s in socks:
            if s not in closed and closed_by_peer(s):
                closed.add(s)
                last = time.monotonic() - t0
        time.sleep(0.05)
    for s in socks:
        s.close()
    return len(closed), last


class Agent:
    def __init__(self, work, port):
        self.work, self.port = work, port
        self.log = os.path.join(work, "agent.log")
        self.process = None

    def start(self):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen([BINARY, "agent", "--config", os.path.join(self.work, "config.toml")],
                                            stdout=log, stderr=log, env=dict(os.environ, RECEIVE_TOKEN=TOKEN))
        wait_listening(self.port, seconds=60)

    def stop_with(self, sig):
        start = time.monotonic()
        self.process.send_signal(sig)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            return "not within 60 s: SIGKILL"
        return f"in {time.monotonic() - start:.2f} s, exit {self.process.returncode}"


def point_body(ledger, i):
    return ledger.body(i)


def post_point(port, ledger, i=None, timeout=8):
    i = ledger.new_point() if i is None else i
    status, text, took = ask(port, head(len(ledger.body(i)), "Connection: close\r\n") + ledger.body(i), timeout)
    if status == 200:
        ledger.ok(i)
    return status, took


def probe_slow(port, ledger):
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(head(5000) + b"{" * 100)
        s.setblocking(False)
        n, last = closed_within([s], 15)
    note("Content-Length 5,000, 100 bytes sent, then silence", f"closed {n}/1 after {last:.1f} s (read_timeout 5 s)")
    for name, first, byte in [("slowloris head (a byte each 0.5 s)", b"POST /ingest HTTP/1.1\r\nX-Slow: ", b"a"),
                              ("slowloris body (a byte each 0.5 s)", head(1000), b" ")]:
        socks = connections(port, 10, first)
        stop = threading.Event()

        def drip(socks=socks, byte=byte):
            while not stop.wait(0.5):
                for s in socks:
                    with contextlib.suppress(OSError):
                        s.send(byte)
        threading.Thread(target=drip, daemon=True).start()
        n, last = closed_within(socks, 20)
        stop.set()
        note(name + " x10", f"{n}/10 closed, the last after {last:.1f} s")
    note("slow probes: a good request after", "%s in %.2f s" % post_point(port, ledger))
    return time.monotonic() - t0


def probe_idle(agent, port, ledger):
    socks = connections(port, 300)
    time.sleep(0.5)
    a = cpu_seconds(agent.process.pid)
    time.sleep(2)
    share = 100 * (cpu_seconds(agent.process.pid) - a) / 2
    note("300 idle connections (max_connections 100): CPU while held", f"{share:.1f} % of a core")
    status, took = post_point(port, ledger, timeout=30)
    note("300 idle connections: a good request meanwhile", f"{status} in {took:.2f} s (idle_timeout 5 s)")
    n, last = closed_within(socks, 30)
    note("300 idle connections: closed by the agent", f"{n}/300, the last after {last:.1f} s more")


def probe_chunked(port):
    chunked = "Transfer-Encoding: chunked\r\n"
    cases = {"chunk size 'zz'": b"zz\r\nabc\r\n0\r\n\r\n",
             "chunk size 20 hex digits (overflow)": b"FFFFFFFFFFFFFFFFFFFF\r\nabc\r\n",
             "chunk size -1": b"-1\r\nabc\r\n0\r\n\r\n",
             "chunk size 7fffffffffffffff, 3 bytes, silence": b"7fffffffffffffff\r\nabc",
             "chunk size 100000000 (over max_body), silence": b"100000000\r\nabc",
             "chunk 10 then 3 bytes, silence": b"10\r\nabc",
             "chunked and Content-Length both": None}
    for name, body in cases.items():
        if body is None:
            data = head(5, chunked) + b"3\r\n{}\n\r\n0\r\n\r\n"
        else:
            data = head(None, chunked) + body
        status, text, took = ask(port, data, timeout=12)
        note(f"chunked: {name}", f"{status} in {took:.1f} s {text[:70]!r}")


def probe_sizes(port, ledger):
    i = ledger.new_point()
    body = ledger.body(i)
    exact = body + b" " * (MAX_BODY - len(body))
    status, text, _ = ask(port, head(len(exact)) + exact)
    if status == 200:
        ledger.ok(i)
    note("body of exactly max_body (padded point)", f"{status} {text[:60]!r}")
    over = exact + b" "
    note("body of max_body + 1 (Content-Length)", "%s %r" % ask(port, head(len(over)) + over)[:2])
    chunks = b"%x\r\n" % len(over) + over + b"\r\n0\r\n\r\n"
    note("body of max_body + 1 (chunked)",
         "%s %r" % ask(port, head(None, "Transfer-Encoding: chunked\r\n") + chunks)[:2])
    bomb = gzip.compress(b" " * (MAX_BODY * 50) + b"{}")
    note(f"gzip of {len(bomb):,} bytes inflating to 5 MB",
         "%s %r" % ask(port, head(len(bomb), "Content-Encoding: gzip\r\n") + bomb)[:2])
    trailing = gzip.compress(body) + b"garbage"
    note("gzip followed by garbage", "%s %r" % ask(port, head(len(trailing), "Content-Encoding: gzip\r\n")
                                                  + trailing)[:2])


def probe_payloads(port):
    point = {"date": "2025-02-01 00:00:00 +0000", "qty": 5, "source": "Probe"}

    def hae(p):
        return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": [p]}]}}).encode()

    cases = {"invalid UTF-8 in a source name": hae(point).replace(b"Probe", b"Pr\xff\xfeobe"),
             "invalid UTF-8 outside strings": b"\xff" + hae(point),
             "100,000 nested arrays": b"[" * 100_000 + b"]" * 100_000,
             "100,000 nested objects": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
             "qty 1e400": hae(point).replace(b'"qty": 5', b'"qty": 1e400'),
             "qty 99999999999999999999999": hae(point).replace(b'"qty": 5', b'"qty": 99999999999999999999999'),
             "qty 9.2e18": hae(point).replace(b'"qty": 5', b'"qty": 9.2e18'),
             "qty -5": hae(point).replace(b'"qty": 5', b'"qty": -5'),
             "qty 1e-400": hae(point).replace(b'"qty": 5', b'"qty": 1e-400'),
             "a 90 KB number": hae(point).replace(b'"qty": 5', b'"qty": ' + b"9" * 90_000),
             "step log ts 1e300": b'{"ts": 1e300, "steps": 5, "seq": 1}\n',
             "step log steps 1e300": b'{"ts": 1735689600, "steps": 1e300, "seq": 1}\n',
             "lone surrogate escape": hae(point).replace(b"Probe", b"\\ud800"),
             "NUL in a string": hae(point).replace(b"Probe", b"\\u0000")}
    for name, body in cases.items():
        status, text, took = ask(port, head(len(body)) + body)
        note(f"payload: {name}", f"{status} in {took:.2f} s {text[:80]!r}")


def probe_pipelined(port, ledger):
    points = [ledger.new_point() for _ in range(2)]
    good = [head(len(ledger.body(i))) + ledger.body(i) for i in points]
    bad = head(2, token="wrong") + b"{}"
    statuses = pipelined_statuses(port, [good[0], bad, good[1]], 8)
    for i, st in zip([points[0], None, points[1]], statuses):
        if st == 200 and i is not None:
            ledger.ok(i)
    note("pipelined: good, wrong token, good", f"answers {statuses}")


def probe_race(port, ledger):
    i = ledger.new_point()
    answers, lock = [], threading.Lock()
    barrier = threading.Barrier(20)

    def one():
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(10)
        status, text, _ = ask(port, head(len(ledger.body(i))) + ledger.body(i))
        with lock:
            answers.append((status, text))
    threads = [threading.Thread(target=one) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    readings = sum(json.loads(t).get("readings", 0) for s, t in answers if s == 200)
    dups = sum(json.loads(t).get("duplicates", 0) for s, t in answers if s == 200)
    if any(s == 200 for s, _ in answers):
        ledger.ok(i)
    note("20 copies of one point racing", f"{sum(1 for s, _ in answers if s == 200)}/20 200, readings {readings}, "
         f"duplicates {dups}")


def probe_flood(agent, port):
    def rss(field):
        for line in open(f"/proc/{agent.process.pid}/status"):
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    before = rss("VmRSS")
    day = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
    pts = [{"date": (day + datetime.timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M:%S +0000"), "qty": 1,
            "source": "Flood"} for m in range(1200)]
    body = json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": pts}]}}).encode()
    counts, lock = {}, threading.Lock()

    def worker():
        for _ in range(100):
            status = ask(port, head(len(body)) + body, timeout=30)[0]
            with lock:
                counts[status] = counts.get(status, 0) + 1
    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    after = rss("VmRSS")
    time.sleep(3)
    note(f"flood: 2,000 bodies of {len(body) // 1000} KB, 20 threads",
         f"{counts} in {time.monotonic() - start - 3:.1f} s; RSS {before:.1f} -> {after:.1f} MB "
         f"(3 s later {rss('VmRSS'):.1f}), peak {rss('VmHWM'):.1f} MB")


def probe_signals(agent, port, ledger):
    def slow_heads():
        return connections(port, 20, b"POST /ingest HTTP/1.1\r\nX-Slow: ")

    def slow_bodies():
        return connections(port, 20, head(5000) + b"{")

    def idle():
        return connections(port, 150)

    def racing():
        socks = []
        threads = [threading.Thread(target=post_point, args=(port, ledger), daemon=True) for _ in range(30)]
        for t in threads:
            t.start()
        return socks

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        for name, make in [("slow heads", slow_heads), ("slow bodies", slow_bodies), ("150 idle", idle),
                           ("30 posts racing", racing)]:
            socks = make()
            time.sleep(0.2)
            note(f"{sig.name} during {name}", agent.stop_with(sig))
            for s in socks:
                s.close()
            time.sleep(0.5)
            agent.start()


def post_backlog(work, ledger):
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    for _ in range(20):
        out = subprocess.run([BINARY, "fetch", "--config", os.path.join(work, "config.toml"), "--json"],
                             capture_output=True, text=True, env=env, timeout=300)
        with contextlib.suppress(ValueError, KeyError):
            if json.loads(out.stdout)["result"] == "NoData":
                break
    with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db:
        posted = db.execute("SELECT SUM(steps) FROM outbox").fetchone()[0] or 0
    answered, points, sent = ledger.sent_steps()
    # Not in the ledger: the flood's 1,200 minutes of 1 step ("Flood", 2025-01-01) and the payload probes' minute
    # (2025-02-01 00:00, several devices with 5 steps each: one device counts in a minute).
    extras = 1200 + 5
    exact = answered <= posted - extras <= sent
    note("posted against answered 200", f"{posted - extras:,} posted (besides the flood's and payloads' {extras:,}); "
         f"{answered:,} in the {points} points answered 200, {sent:,} in all sent: "
         f"{'nothing answered 200 lost, nothing unsent posted' if exact else 'MISMATCH'}")


def main():
    work = tempfile.mkdtemp(prefix="steptweet-audit35-")
    port = free_port()
    with open(os.path.join(work, "config.toml"), "w") as f:
        f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\nmax_body = {MAX_BODY}\n'
                'max_header = 4096\nidle_timeout = "5s"\nread_timeout = "5s"\nmax_connections = 100\n'
                f'[schedule]\ninterval = "6h"\njitter = "0s"\n[state]\npath = "{work}/state.sqlite"\n'
                f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
    agent = Agent(work, port)
    try:
        agent.start()
        print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
              f"{BINARY}, load {' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        ledger = Ledger()
        probe_slow(port, ledger)
        probe_idle(agent, port, ledger)
        probe_chunked(port)
        probe_sizes(port, ledger)
        probe_payloads(port)
        probe_pipelined(port, ledger)
        probe_race(port, ledger)
        note("after the probes: a good request", "%s in %.2f s" % post_point(port, ledger))
        probe_flood(agent, port)
        probe_signals(agent, port, ledger)
        note("the agent's exit code before the backlog", agent.stop_with(signal.SIGTERM))
        post_backlog(work, ledger)
        for line in open(agent.log, errors="replace").read().splitlines():
            if "error" in line or "critical" in line or "fatal" in line.lower():
                print(f"# agent log: {line[:200]}")
    finally:
        if agent.process and agent.process.poll() is None:
            agent.process.kill()
            agent.process.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
