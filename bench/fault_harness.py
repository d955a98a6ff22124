#!/usr/bin/env python3
"""Hostile traffic against the receiver (issue #45): a real `steptweet agent` with [receive] on 127.0.0.1, abused
while a phone keeps pushing, then stopped with SIGTERM during abuse; what it answered 200 is then posted by one-shot
fetches and compared with what was sent.

    python3 bench/fault_harness.py .build/debug/steptweet            # `make test` runs this (exits 1 on a miss)
    python3 bench/fault_harness.py OLD_BINARY --record > out.txt     # figures only, no pass/fail (a binary from before)

The phases, each bounded in time and count (every socket has a timeout; the whole run takes about 2.5 minutes):
  1. slow: at once, 500 idle connections and 500 that send half a header, 20 slowloris heads (a byte a second), 20
     slowloris bodies (10 bytes a second), 5 endless chunked bodies sent slowly; SIGUSR1 in the middle. Recorded:
     how many the agent closed by 30 s and by 75 s, whether the SIGUSR1 fetch started, the phone's answers.
  2. unterminated headers: 6 connections send `X-Big: ` and 100 KB without an end, wait 2 s and close; the agent's
     CPU share in the 5th second after, and a good request's answer time.
  3. 8 MB header after 1,000 closed idle connections: its answer, the CPU share in the 5th second after.
  4. an oversized head (64 KB, terminated): its answer; an endless chunked body sent fast: its answer.
  5. malformed request lines: each one's answer; pipelined requests: three in one write, their answers.
  6. 200 concurrent good requests: their answers and p99.
  7. SIGTERM while 200 idle connections, 20 half heads and 10 slow bodies are open: the time to exit.
The phone pushes a Health Auto Export minute point every 0.25 s throughout (each point again until it gets a 200),
and every good request of phases 5-6 is a point too. Afterwards `steptweet fetch` posts the backlog; the steps
posted must equal the steps of the points answered 200.

The agent starts with a soft RLIMIT_NOFILE of 1024 (systemd's default) and the hard limit of this shell.
Targets (issue #45): phase 2's CPU <= 10 % of a core, good requests <= 1 s during every phase, 1,000 idle or
half-sent connections closed within 30 s while the phone's pushes get 200, SIGTERM within 5 s, posted == sent.
"""
import contextlib, datetime, json, os, re, resource, shutil, signal, socket, sqlite3, subprocess, sys, tempfile
import threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receiver_client import free_port, wait_listening  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "steptweet")
RECORD_ONLY = "--record" in sys.argv
STRICT = "--strict" in sys.argv
TOKEN = "fault-token"
DAY = datetime.datetime(2025, 3, 1, tzinfo=datetime.timezone.utc)
results = []  # (name, value text, passed or None, timed)


def note(name, value, passed=None, timed=False):
    """One figure; `timed` ones (answer times, CPU share, time to stop) are targets of a benchmark, which fail the run
    only with --strict: `make test` runs a debug build on a shared machine, where they are not the release's."""
    results.append((name, value, passed, timed))
    mark = "" if passed is None else ("  PASS" if passed else ("  MISS (timing)" if timed else "  MISS"))
    print(f"{name:58} {value}{mark}", flush=True)


class Ledger:
    """Minute points sent to the receiver: each gets a number; the ones answered 200 are kept with their steps."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = 0
        self.answered = {}
        self.sent = set()

    def new_point(self):
        with self.lock:
            i = self.next
            self.next += 1
        return i

    @staticmethod
    def steps(i):
        return 1 + (i * 7) % 90

    def body(self, i):
        with self.lock:
            self.sent.add(i)
        when = DAY + datetime.timedelta(minutes=i)
        point = {"date": when.strftime("%Y-%m-%d %H:%M:%S +0000"), "qty": self.steps(i), "source": "Harness iPhone"}
        return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": [point]}]}}).encode()

    def ok(self, i):
        with self.lock:
            self.answered[i] = self.steps(i)

    def sent_steps(self):
        """The steps of the points answered 200, their count, and the steps of every point sent at all."""
        with self.lock:
            return sum(self.answered.values()), len(self.answered), sum(self.steps(i) for i in self.sent)


def request_bytes(body, path="/ingest", token=TOKEN, extra=""):
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n").encode() + body


def pipelined_statuses(port, requests, timeout):
    """The requests written at once on one connection, and the status codes of the answers read back, in order."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(b"".join(requests))
        s.settimeout(timeout)
        data = b""
        with contextlib.suppress(OSError):
            while data.count(b"HTTP/1.1 ") < len(requests):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", data)]


def read_status(sock, timeout):
    """The status code of the answer on `sock`, or 'closed'/'timeout'/'reset'."""
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return "closed" if not data else data[:40].decode("latin-1")
            data += chunk
    except socket.timeout:
        return "timeout"
    except OSError:
        return "reset"
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else data[:40].decode("latin-1")


def good_request(port, ledger, timeout=5):
    """One new point POSTed on its own connection: (status, seconds)."""
    i = ledger.new_point()
    start = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(request_bytes(ledger.body(i), extra="Connection: close\r\n"))
            status = read_status(s, timeout)
    except OSError:
        status = "refused"
    if status == 200:
        ledger.ok(i)
    return status, time.perf_counter() - start


class Phone(threading.Thread):
    """A phone pushing a point every 0.25 s, each point again until it is answered 200."""

    def __init__(self, port, ledger):
        super().__init__(daemon=True)
        self.port, self.ledger, self.stopping = port, ledger, threading.Event()
        self.log = []  # (time, status, seconds)

    def run(self):
        i = self.ledger.new_point()
        while not self.stopping.is_set():
            start = time.perf_counter()
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.sendall(request_bytes(self.ledger.body(i), extra="Connection: close\r\n"))
                    status = read_status(s, 5)
            except OSError:
                status = "refused"
            took = time.perf_counter() - start
            self.log.append((time.monotonic(), status, took))
            if status == 200:
                self.ledger.ok(i)
                i = self.ledger.new_point()
            self.stopping.wait(max(0, 0.25 - took))

    def since(self, t0):
        entries = [e for e in self.log if e[0] >= t0]
        oks = sum(1 for e in entries if e[1] == 200)
        worst = max((e[2] for e in entries), default=0)
        return f"{oks}/{len(entries)} pushes 200, slowest {worst:.2f} s", oks == len(entries) and worst <= 1


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_share(pid, seconds=1.0):
    a = cpu_seconds(pid)
    time.sleep(seconds)
    return 100 * (cpu_seconds(pid) - a) / seconds


def connections(port, n, first=b""):
    """n open connections to the receiver, each having sent `first`."""
    socks = []
    for _ in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            if first:
                s.sendall(first)
            s.setblocking(False)
            socks.append(s)
        except OSError:
            break
    return socks


def closed_by_peer(s):
    try:
        return s.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def drip(socks, byte, stop):
    """Sends `byte` on each socket once a second until `stop` (slowloris)."""
    while not stop.wait(1):
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(byte)


def phase_slow(agent, port, phone, log_path):
    t0 = time.monotonic()
    half = b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bea"
    idle = connections(port, 500)
    halves = connections(port, 500, half)
    heads = connections(port, 20, b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    bodies = connections(port, 20, request_bytes(b"")[:-2].replace(b"Content-Length: 0", b"Content-Length: 100000")
                         + b"\r\n")
    chunked = connections(port, 5, (f"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                                    "Transfer-Encoding: chunked\r\n\r\n").encode())
    note("slow: connections opened", f"{len(idle)} idle, {len(halves)} half heads, {len(heads)} slow heads, "
         f"{len(bodies)} slow bodies, {len(chunked)} slow chunked")
    stop = threading.Event()
    drippers = [threading.Thread(target=drip, args=(heads, b"a", stop), daemon=True),
                threading.Thread(target=drip, args=(bodies, b"{", stop), daemon=True),
                threading.Thread(target=drip, args=(chunked, b"1\r\na\r\n", stop), daemon=True)]
    for d in drippers:
        d.start()
    time.sleep(5)
    status, took = good_request(port, phone.ledger)
    note("slow: a good request meanwhile", f"{status} in {took:.2f} s", status == 200 and took <= 1,
         timed=status == 200)
    signalled = time.monotonic()
    lines_before = open(log_path, errors="replace").read().count("fetch signal")
    agent.send_signal(signal.SIGUSR1)
    fetched = None
    while time.monotonic() - signalled < 10:
        if open(log_path, errors="replace").read().count("fetch signal") > lines_before:
            fetched = time.monotonic() - signalled
            break
        time.sleep(0.1)
    note("slow: SIGUSR1 during abuse starts a fetch", "not within 10 s" if fetched is None else f"in {fetched:.2f} s",
         fetched is not None and fetched <= 5, timed=fetched is not None)
    groups = {"idle": idle, "half heads": halves, "slow heads": heads, "slow bodies": bodies, "slow chunked": chunked}
    closed_at = {}
    while time.monotonic() - t0 < 75:
        for name, socks in groups.items():
            for s in socks:
                if s not in closed_at and closed_by_peer(s):
                    closed_at[s] = time.monotonic() - t0
        if len(closed_at) == sum(len(v) for v in groups.values()):
            break
        time.sleep(0.5)
    stop.set()
    for name, socks in groups.items():
        by30 = sum(1 for s in socks if closed_at.get(s, 99) <= 30)
        by75 = sum(1 for s in socks if s in closed_at)
        target = name in ("idle", "half heads")
        note(f"slow: {name} closed by the agent", f"{by30}/{len(socks)} by 30 s, {by75}/{len(socks)} by 75 s",
             by30 == len(socks) if target else by75 == len(socks))
        for s in socks:
            s.close()
    phone_meanwhile("slow", phone, t0)


def phone_meanwhile(label, phone, t0):
    """The phone's pushes since `t0`: every one must get a 200 (else a miss), within 1 s (a timing target)."""
    entries = [e for e in phone.log if e[0] >= t0]
    oks = sum(1 for e in entries if e[1] == 200)
    summary, within = phone.since(t0)
    note(f"{label}: the phone meanwhile", summary, within, timed=oks == len(entries))


def phase_unterminated(agent, port, phone):
    t0 = time.monotonic()
    socks = connections(port, 6)
    for s in socks:
        s.setblocking(True)
        s.settimeout(3)
        with contextlib.suppress(OSError):
            s.sendall(b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 100_000)
    time.sleep(2)
    for s in socks:
        s.close()
    closed = time.monotonic()
    status, took = good_request(port, phone.ledger)
    note("unterminated 100 KB headers x6: a good request after", f"{status} in {took:.2f} s",
         status == 200 and took <= 1, timed=status == 200)
    time.sleep(max(0, closed + 4 - time.monotonic()))
    share = cpu_share(agent.pid)
    note("unterminated 100 KB headers x6: CPU in the 5th second", f"{share:.0f} % of a core", share <= 10,
         timed=share <= 50)
    phone_meanwhile("unterminated headers", phone, t0)


def phase_big_header(agent, port, phone):
    t0 = time.monotonic()
    for s in connections(port, 1000):
        s.close()
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    answer = "reset"
    with contextlib.suppress(OSError):
        s.sendall(b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (8 << 20) + b"\r\n\r\n")
    answer = read_status(s, 5)
    s.close()
    closed = time.monotonic()
    note("8 MB header after 1,000 closed idle connections: answer", str(answer))
    status, took = good_request(port, phone.ledger)
    note("8 MB header: a good request after", f"{status} in {took:.2f} s", status == 200 and took <= 1,
         timed=status == 200)
    time.sleep(max(0, closed + 4 - time.monotonic()))
    share = cpu_share(agent.pid)
    note("8 MB header: CPU in the 5th second", f"{share:.0f} % of a core", share <= 10, timed=share <= 50)
    phone_meanwhile("8 MB header", phone, t0)


def phase_limits(port, phone):
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with contextlib.suppress(OSError):
            s.sendall(b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")
        answer = read_status(s, 5)
    note("a 64 KB head (terminated): answer", str(answer), answer == 431 if not RECORD_ONLY else None)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall((f"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n").encode())
        chunk = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"
        sent, answer, start = 0, "timeout", time.monotonic()
        s.setblocking(False)
        while time.monotonic() - start < 20:
            with contextlib.suppress(BlockingIOError, OSError):
                sent += s.send(chunk)
            with contextlib.suppress(BlockingIOError):
                data = s.recv(4096)
                answer = int(data.split(b" ")[1]) if data.startswith(b"HTTP/") else "closed"
                break
            time.sleep(0.001)
    note("an endless chunked body sent fast: answer", f"{answer} after {sent / 1e6:.1f} MB",
         answer == 413 if not RECORD_ONLY else None)
    phone_meanwhile("oversized head and body", phone, t0)


def phase_malformed(port, phone):
    t0 = time.monotonic()
    cases = {"garbage line": b"GARBAGE\r\n\r\n", "HTTP/9.9": b"GET / HTTP/9.9\r\n\r\n",
             "space in the target": b"POST /ing est HTTP/1.1\r\nHost: x\r\n\r\n",
             "TLS hello on the plain port": bytes.fromhex("160301020001") + b"\x00" * 100,
             "NUL bytes": b"\x00" * 200, "bad Content-Length": b"POST /ingest HTTP/1.1\r\nContent-Length: x\r\n\r\n"}
    answers = {}
    for name, data in cases.items():
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            with contextlib.suppress(OSError):
                s.sendall(data)
            answers[name] = read_status(s, 3)
    note("malformed request lines: answers", ", ".join(f"{k}: {v}" for k, v in answers.items()),
         all(v in (400, "closed", "reset") for v in answers.values()) if not RECORD_ONLY else None)
    points = [phone.ledger.new_point() for _ in range(3)]
    statuses = pipelined_statuses(port, [request_bytes(phone.ledger.body(i)) for i in points], 5)
    for i, status in zip(points, statuses):
        if status == 200:
            phone.ledger.ok(i)
    note("pipelined: three requests in one write", f"answers {statuses}", statuses == [200, 200, 200])
    phone_meanwhile("malformed and pipelined", phone, t0)


def phase_concurrent(port, phone):
    t0 = time.monotonic()
    answers = []
    lock = threading.Lock()
    barrier = threading.Barrier(200)

    def one():
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(10)
        got = good_request(port, phone.ledger, timeout=10)
        with lock:
            answers.append(got)

    threads = [threading.Thread(target=one) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    oks = sum(1 for status, _ in answers if status == 200)
    times = sorted(took for _, took in answers)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else float("nan")
    note("200 concurrent good requests", f"{oks}/200 answered 200, p99 {p99 * 1000:.0f} ms", oks == 200)
    # Not abuse: the phone's push is one more good request in the same queue of 200 commits.
    summary, _ = phone.since(t0)
    note("concurrent: the phone meanwhile (one of 201 good requests)", summary)


def phase_sigterm(agent, port):
    idle = connections(port, 200)
    halves = connections(port, 20, b"POST /ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
    bodies = connections(port, 10, request_bytes(b"")[:-2].replace(b"Content-Length: 0", b"Content-Length: 9999")
                         + b"\r\n{")
    time.sleep(1)
    start = time.monotonic()
    agent.send_signal(signal.SIGTERM)
    try:
        agent.wait(timeout=30)
        took = time.monotonic() - start
        note("SIGTERM during abuse: the agent stopped", f"in {took:.2f} s (exit {agent.returncode})", took <= 5,
             timed=True)
    except subprocess.TimeoutExpired:
        agent.kill()
        agent.wait(10)
        note("SIGTERM during abuse: the agent stopped", "not within 30 s: SIGKILL", False)
    for s in idle + halves + bodies:
        s.close()


def post_backlog(work, ledger):
    env = dict(os.environ, RECEIVE_TOKEN=TOKEN)
    for _ in range(20):
        out = subprocess.run([BINARY, "fetch", "--config", os.path.join(work, "config.toml"), "--json"],
                             capture_output=True, text=True, env=env, timeout=300)
        try:
            if json.loads(out.stdout)["result"] == "NoData":
                break
        except (ValueError, KeyError):
            break
    with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db:
        posted = db.execute("SELECT SUM(steps) FROM outbox").fetchone()[0] or 0
    answered, points, sent = ledger.sent_steps()
    # Every point answered 200 must be posted, and nothing that was not sent; a point whose answer the client gave up
    # on (a timeout) may or may not have been stored, so only then may more than the answered be posted.
    exact = posted == answered or (answered <= posted <= sent and sent > answered)
    note("posted against answered 200", f"{posted:,} steps posted; {answered:,} in the {points} points answered 200, "
         f"{sent:,} in all the points sent", exact)


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


def stop_process(process):
    if process.poll() is None:
        process.kill()
        process.wait(10)


def soft_nofile(limit):
    def apply():
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(limit, hard), hard))
    return apply


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this harness holds 1,500 sockets at once
    work = tempfile.mkdtemp(prefix="steptweet-fault-")
    agent = None
    try:
        port = free_port()
        with open(os.path.join(work, "config.toml"), "w") as f:
            f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\n'
                    f'[schedule]\ninterval = "6h"\njitter = "0s"\n[state]\npath = "{work}/state.sqlite"\n'
                    f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
        log_path = os.path.join(work, "agent.log")

        def start_agent():
            with open(log_path, "a") as log:
                started = subprocess.Popen([BINARY, "agent", "--config", os.path.join(work, "config.toml")],
                                           stdout=log, stderr=log, env=dict(os.environ, RECEIVE_TOKEN=TOKEN),
                                           preexec_fn=soft_nofile(1024))
            wait_listening(port, "the agent", seconds=60)
            return started

        agent = start_agent()
        print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
              f"{os.path.relpath(BINARY, ROOT) if BINARY.startswith(ROOT) else BINARY}, load "
              f"{' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        ledger = Ledger()
        phone = Phone(port, ledger)
        phone.start()
        time.sleep(1)
        phases = [("slow", lambda: phase_slow(agent, port, phone, log_path)),
                  ("unterminated", lambda: phase_unterminated(agent, port, phone)),
                  ("8 MB header", lambda: phase_big_header(agent, port, phone)),
                  ("limits", lambda: phase_limits(port, phone)), ("malformed", lambda: phase_malformed(port, phone)),
                  ("concurrent", lambda: phase_concurrent(port, phone))]
        for name, phase in phases:
            if agent.poll() is not None or not listening(port):
                # A receiver that died (or an agent that exited) is started again, so that each phase is measured.
                note(f"before {name}: the receiver", f"not listening (agent exit {agent.poll()}): restarted", False)
                stop_process(agent)
                agent = start_agent()
            try:
                phase()
            except OSError as error:
                note(f"{name}: the phase", f"failed: {error}", False)
        phone.stopping.set()
        phone.join(10)
        summary, _ = phone.since(0)
        note("the phone over the whole run", summary)
        if agent.poll() is None:
            phase_sigterm(agent, port)
        post_backlog(work, ledger)
        tail = [l for l in open(log_path, errors="replace").read().splitlines() if "warning" in l or "error" in l]
        for line in tail[:5]:
            print(f"# agent log: {line[:200]}")
    finally:
        if agent is not None and agent.poll() is None:
            agent.kill()
            agent.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    misses = [name for name, _, passed, timed in results if passed is False and (STRICT or not timed)]
    timing = [name for name, _, passed, timed in results if passed is False and timed and not STRICT]
    if timing:
        print(f"# timing targets missed (not failing without --strict): {'; '.join(timing)}")
    print(f"{sum(1 for r in results if r[2])} passed, {len(misses)} failed")
    if misses and not RECORD_ONLY:
        sys.exit(1)


if __name__ == "__main__":
    main()
