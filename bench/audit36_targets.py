#!/usr/bin/env python3
"""Posting targets against a hostile fake server on 127.0.0.1 (session 36's audit): `steptweet fetch` with an ntfy
target (a token: `Authorization: Bearer`) and a webhook target, the server answering slowly, truncated, with HTML,
with redirects (to another host: "localhost" instead of "127.0.0.1", a second server that records what reaches it),
401, 403, 5xx with and without Retry-After, a 200 without the post's id, an endless answer (4 GB of chunks: the
fetch's peak RSS is printed). After each fault the server is made good
and fetches run until NoData; the posts the server kept must be exactly one per window. Every fetch has a 3 s
deadline and runs under a 60 s timeout.

    python3 bench/audit36_targets.py .build/release/steptweet
"""
import contextlib, http.server, json, os, shutil, sqlite3, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/release/steptweet"
TOKEN = "target-secret-token"


class State:
    def __init__(self):
        self.mode = "ok"
        self.posts = []        # (path, idempotency key or ntfy message) kept as posted
        self.requests = []     # (method, path, authorization)
        self.lock = threading.Lock()


def handler(state, other_port):
    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def answer(self, code, body=b"", ctype="application/json", extra=()):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in extra:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            with state.lock:
                state.requests.append(("GET", self.path, self.headers.get("Authorization")))
                posts = list(state.posts)
            # ntfy's look-up: the topic's cached messages, one JSON object per line.
            if "/json" in self.path and "poll=1" in self.path:
                lines = b"".join(json.dumps({"id": f"m{i}", "event": "message", "time": 0, "message": p[1]}).encode()
                                 + b"\n" for i, p in enumerate(posts))
                return self.answer(200, lines, "application/x-ndjson")
            self.answer(404, b'{"error":"not found"}')

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n)
            mode = state.mode
            with state.lock:
                state.requests.append(("POST", self.path, self.headers.get("Authorization")))
            if mode == "slow":  # the post is made, its answer comes after the deadline
                self.keep(body)
                time.sleep(6)
                return self.answer(200, json.dumps({"id": "late", "event": "message"}).encode())
            if mode == "truncated":
                self.send_response(200)
                self.send_header("Content-Length", "200")
                self.end_headers()
                self.wfile.write(b'{"id": "x')
                self.close_connection = True
                return self.keep(body)
            if mode.startswith("redirect"):
                code = int(mode.split("-")[1])
                host = "localhost" if mode.endswith("other") else "127.0.0.1"
                return self.answer(code, b"", "text/plain", [("Location", f"http://{host}:{other_port}{self.path}")])
            if mode == "huge":  # an endless answer (4 GB of chunks), until the client stops reading
                self.keep(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                block = b"%x\r\n" % (1 << 20) + b" " * (1 << 20) + b"\r\n"
                with contextlib.suppress(OSError):
                    for _ in range(4096):
                        self.wfile.write(block)
                    self.wfile.write(b"0\r\n\r\n")
                self.close_connection = True
                return
            if mode == "html":
                self.keep(body)
                return self.answer(200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
            if mode == "noid":
                self.keep(body)
                return self.answer(200, b'{"ok": true}')
            if mode in ("401", "403"):
                return self.answer(int(mode), b'{"error": "the token is not valid"}')
            if mode == "503-retry":
                return self.answer(503, b"busy", "text/plain", [("Retry-After", "2")])
            if mode == "500":
                return self.answer(500, b"<html>Internal Server Error</html>", "text/html")
            self.keep(body)
            self.answer(200, json.dumps({"id": f"m{len(state.posts)}", "event": "message"}).encode())

        def keep(self, body):
            key = self.headers.get("Idempotency-Key")
            if key is None:
                with contextlib.suppress(ValueError, AttributeError):
                    key = json.loads(body).get("message")
            key = key or body.decode("utf-8", "replace")
            with state.lock:
                state.posts.append((self.path, key))

    return H


def serve(state, other_port=0):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(state, other_port))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def fetch(config, env):
    """One fetch: (exit, result, deliveries, stderr's end with the peak RSS in KB)."""
    p = subprocess.run(["/usr/bin/time", "-f", "peak RSS %M KB", BINARY, "fetch", "--json", "--config", config],
                       capture_output=True, text=True, timeout=60, env=env)
    with contextlib.suppress(ValueError):
        j = json.loads(p.stdout)
        return p.returncode, j.get("result"), json.dumps(j.get("deliveries", j))[:400], p.stderr.strip()[-300:]
    return p.returncode, "?", p.stdout[-300:], p.stderr.strip()[-300:]


def one(kind, mode, other_mode="ok"):
    main, other = State(), State()
    other.mode = other_mode
    other_server = serve(other)
    server = serve(main, other_server.server_address[1])
    main.mode = mode
    work = tempfile.mkdtemp(prefix="steptweet-audit36-targets-")
    port = server.server_address[1]
    config = os.path.join(work, "config.toml")
    target = (f'kind = "ntfy"\nbase_url = "http://127.0.0.1:{port}"\ntopic = "steps"\ntoken_env = "T"\n'
              if kind == "ntfy" else
              f'kind = "webhook"\nurl_env = "U"\n[publish.headers]\nAuthorization = "Bearer {TOKEN}"\n')
    with open(config, "w") as f:
        f.write(f'[source]\npath = "{ROOT}/fixtures/demo_walk_50hz.csv"\nstart = "2026-11-21T10:00:00+09:00"\n'
                f'[schedule]\ndeadline = "3s"\nwindow = "since-last"\n[text]\ntime_zone = "Asia/Tokyo"\n'
                f'[state]\npath = "{work}/state.sqlite"\n[[publish]]\n' + target)
    env = dict(os.environ, T=TOKEN, U=f"http://127.0.0.1:{port}/steps")
    print(f"## {kind}, server {mode}" + (f", other host {other_mode}" if mode.startswith("redirect") else ""))
    try:
        for attempt in range(2):
            if attempt:
                with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db, db:
                    db.execute("UPDATE outbox SET next_attempt_ns = 0 WHERE status = 'pending'")
            print(f"  fetch {attempt + 1}: exit %s %s %s | %s" % fetch(config, env))
        main.mode = "ok"
        other.mode = "ok"
        for attempt in range(4):
            # The backoff's wait is skipped by hand (as if its time had come), not slept.
            with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db, db:
                db.execute("UPDATE outbox SET next_attempt_ns = 0 WHERE status = 'pending'")
            code, result, deliveries, err = fetch(config, env)
            if result == "NoData" and attempt:
                break
            print(f"  then good: exit {code} {result} {deliveries[:200]}")
        with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db:
            rows = db.execute("SELECT status, attempts, unconfirmed, substr(last_error, 1, 120) FROM outbox").fetchall()
        keys = [p[1][:40] for p in main.posts]
        print(f"  server kept {len(main.posts)} posts ({len(set(keys))} distinct); other host kept "
              f"{len(other.posts)}; outbox {rows}")
        leaked = [r for r in other.requests if r[2] and TOKEN in r[2]]
        if other.requests:
            print(f"  other host saw {len(other.requests)} requests: {other.requests[:3]}; token leaked: {bool(leaked)}")
    finally:
        server.shutdown()
        other_server.shutdown()
        shutil.rmtree(work, ignore_errors=True)


def main():
    modes = ["slow", "huge", "truncated", "html", "noid", "401", "403", "503-retry", "500",
             "redirect-307-other", "redirect-301-other", "redirect-302-same", "redirect-308-same"]
    only = sys.argv[2:] or None
    for kind in ("ntfy", "webhook"):
        for mode in modes:
            if only and mode not in only:
                continue
            one(kind, mode)


if __name__ == "__main__":
    main()
