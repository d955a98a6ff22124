#!/usr/bin/env python3
"""Hostile traffic that neither the fault harness nor audit35_probe.py sends (session 36's audit): a real
`steptweet agent` with [receive] on 127.0.0.1, each probe one connection with a 6 s timeout; the whole run is over
in well under a minute. Figures only, no pass/fail; the state database is read at the end.

    python3 bench/audit36_probe.py .build/release/steptweet

Probes: HTTP/1.0 without Host; absolute-form targets; `Expect: 100-continue`; duplicate and conflicting
Content-Length; Transfer-Encoding beside Content-Length; many headers; obs-fold header continuation; percent-encoded
paths and tokens; HEAD, OPTIONS, GET; odd Content-Types; JSON with duplicate keys, a BOM, UTF-16; Health Auto Export
dates in odd zones (+05:45, +14:00, -12:00); a day in the future and one long past.
"""
import contextlib, json, os, re, shutil, socket, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from receiver_client import free_port, wait_listening  # noqa: E402

BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/release/steptweet"
TOKEN = "probe-token"


def note(name, value):
    print(f"{name:58} {value}", flush=True)


def ask(port, data, timeout=6, wait_first=None):
    """Sends `data` (bytes, or a list of parts sent one after another when `wait_first` reads in between) on a new
    connection; (first status line or 'closed'/'timeout', answer text, seconds)."""
    start = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        parts = data if isinstance(data, list) else [data]
        for n, part in enumerate(parts):
            with contextlib.suppress(OSError):
                s.sendall(part)
            if wait_first and n == 0 and len(parts) > 1:
                s.settimeout(wait_first)
                with contextlib.suppress(OSError):
                    answer += s.recv(65536)
                s.settimeout(timeout)
        try:
            while True:  # every request says Connection: close: read until the server closes
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except socket.timeout:
            if not answer:
                return "timeout", "", time.monotonic() - start
        except OSError:
            pass
    codes = re.findall(rb"HTTP/1\.[01] (\d{3})", answer)
    text = answer.rsplit(b"\r\n\r\n", 1)[-1][:220].decode("utf-8", "replace")
    status = "+".join(c.decode() for c in codes) if codes else ("closed" if not answer else "?")
    return status, text, time.monotonic() - start


def steplog(ts, steps, src, seq=1):
    return json.dumps({"v": 1, "ts": ts, "steps": steps, "boot_id": "b", "seq": seq, "src": src}).encode() + b"\n"


def hae(date, qty, source):
    return json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count",
                                             "data": [{"date": date, "qty": qty, "source": source}]}]}}).encode()


def req(body, target="/ingest", version="HTTP/1.1", extra="", host=True, token=True, length=True):
    head = f"POST {target} {version}\r\n"
    if host:
        head += "Host: 127.0.0.1\r\n"
    if token:
        head += f"Authorization: Bearer {TOKEN}\r\n"
    if length:
        head += f"Content-Length: {len(body)}\r\n"
    return (head + extra + "Connection: close\r\n\r\n").encode() + body


def probe(port, name, data, **kw):
    status, text, took = ask(port, data, **kw)
    note(name, f"{status} in {took:.2f} s  {text.strip()[:150]}")


def run_probes(port):
    b = steplog("2025-03-01T10:00:00Z", 11, "p-http10")
    probe(port, "HTTP/1.0 without Host", req(b, version="HTTP/1.0", host=False))
    probe(port, "absolute-form target", req(steplog("2025-03-01T10:01:00Z", 12, "p-abs"),
                                             target=f"http://127.0.0.1:{port}/ingest"))
    b = steplog("2025-03-01T10:02:00Z", 13, "p-expect")
    head, body = req(b, extra="Expect: 100-continue\r\n").split(b"\r\n\r\n", 1)
    probe(port, "Expect: 100-continue (body after 2 s)", [head + b"\r\n\r\n", body], wait_first=2)
    b = steplog("2025-03-01T10:03:00Z", 14, "p-dupcl")
    probe(port, "Content-Length twice, same value", req(b, extra=f"Content-Length: {len(b)}\r\n"))
    probe(port, "Content-Length twice, different values", req(b, extra=f"Content-Length: {len(b) + 5}\r\n"))
    probe(port, "Content-Length: 5, 5 (a list)", req(b, length=False, extra=f"Content-Length: {len(b)}, {len(b)}\r\n"))
    probe(port, "Content-Length +12", req(b, length=False, extra=f"Content-Length: +{len(b)}\r\n"))
    probe(port, "Transfer-Encoding: identity + CL", req(b, extra="Transfer-Encoding: identity\r\n"))
    many = "".join(f"X-H{i}: v\r\n" for i in range(300))
    probe(port, "300 small headers (3 KB, under max_header)", req(steplog("2025-03-01T10:04:00Z", 15, "p-many"),
                                                                   extra=many))
    probe(port, "obs-fold continuation line", req(steplog("2025-03-01T10:05:00Z", 16, "p-fold"),
                                                  extra="X-Folded: a\r\n  b\r\n"))
    probe(port, "obs-fold inside Authorization", req(b, token=False, extra=f"Authorization: Bearer\r\n {TOKEN}\r\n"))
    probe(port, "percent-encoded path /%69ngest", req(steplog("2025-03-01T10:06:00Z", 17, "p-pct"), target="/%69ngest"))
    probe(port, "token in path, percent-encoded", req(steplog("2025-03-01T10:07:00Z", 18, "p-pcttok"), token=False,
                                                      target="/ingest/" + "".join(f"%{ord(c):02X}" for c in TOKEN)))
    probe(port, "token in path, plain", req(steplog("2025-03-01T10:08:00Z", 19, "p-plaintok"), token=False,
                                            target=f"/ingest/{TOKEN}"))
    probe(port, "/ingest/ (trailing slash)", req(steplog("2025-03-01T10:09:00Z", 20, "p-slash"), target="/ingest/"))
    probe(port, "/ingest?format=step-log&x=1", req(steplog("2025-03-01T10:10:00Z", 21, "p-query"),
                                                   target="/ingest?format=steplog&x=1"))
    probe(port, "//ingest", req(b, target="//ingest"))
    probe(port, "/ingest/../ingest", req(b, target="/ingest/../ingest"))
    for method in ("HEAD", "OPTIONS", "GET", "PUT", "DELETE"):
        probe(port, f"{method} /ingest", f"{method} /ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
              "Connection: close\r\n\r\n".encode())
    probe(port, "GET /", b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    b = steplog("2025-03-01T10:11:00Z", 22, "p-ctype")
    probe(port, "Content-Type text/plain", req(b, extra="Content-Type: text/plain\r\n"))
    probe(port, "Content-Type application/xml", req(b, extra="Content-Type: application/xml\r\n"))
    probe(port, "Content-Type multipart (boundary)", req(b, extra="Content-Type: multipart/form-data; boundary=x\r\n"))
    probe(port, "Content-Encoding: br", req(b, extra="Content-Encoding: br\r\n"))
    probe(port, "Content-Encoding: gzip, identity", req(b, extra="Content-Encoding: gzip, identity\r\n"))
    probe(port, "HAE JSON with a BOM", req(b"\xef\xbb\xbf" + hae("2025-03-01 11:00:00 +0000", 23, "p-bom")))
    probe(port, "HAE JSON in UTF-16LE with BOM",
          req(b"\xff\xfe" + hae("2025-03-01 11:01:00 +0000", 24, "p-utf16").decode().encode("utf-16-le")))
    probe(port, "HAE JSON in UTF-16BE, no BOM",
          req(hae("2025-03-01 11:02:00 +0000", 25, "p-utf16be").decode().encode("utf-16-be")))
    dup = (b'{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": '
           b'"2025-03-01 11:03:00 +0000", "qty": 26, "qty": 9999, "source": "p-dupkey"}]}]}}')
    probe(port, "HAE point with qty twice (26, then 9999)", req(dup))
    dup2 = (b'{"data": {"metrics": [{"name": "step_count", "units": "count", "data": [{"date": '
            b'"2025-03-01 11:04:00 +0000", "qty": 27, "source": "p-dupdata"}]}], "metrics": []}}')
    probe(port, "HAE with data.metrics twice (second empty)", req(dup2))
    for zone, src in (("+0545", "p-kathmandu"), ("+1400", "p-kiritimati"), ("-1200", "p-bakerisland"),
                      ("+0530", "p-india"), ("+1345", "p-chatham"), ("-0930", "p-marquesas")):
        probe(port, f"HAE date in zone {zone}", req(hae(f"2025-03-02 00:10:00 {zone}", 28, src)))
    probe(port, "HAE date in zone +2500", req(hae("2025-03-02 00:10:00 +2500", 29, "p-zone25")))
    probe(port, "HAE date in zone +0099", req(hae("2025-03-02 00:10:00 +0099", 29, "p-zone99")))
    probe(port, "step log ts with offset +05:45", req(steplog("2025-03-02T00:10:00+05:45", 30, "p-sl-kath")))
    probe(port, "step log ts with offset +14:00", req(steplog("2025-03-02T00:10:00+14:00", 31, "p-sl-kiri")))
    probe(port, "step log ts with offset +24:00", req(steplog("2025-03-02T00:10:00+24:00", 31, "p-sl-24")))
    probe(port, "step log ts without zone", req(steplog("2025-03-02T00:10:00", 31, "p-sl-nozone")))
    future = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(time.time() + 86400 * 2))
    probe(port, "HAE a point two days in the future", req(hae(future, 32, "p-future")))
    far = "2999-01-01 00:00:00 +0000"
    probe(port, "HAE a point in 2999", req(hae(far, 33, "p-2999")))
    probe(port, "HAE a point in 1900", req(hae("1900-01-01 00:00:00 +0000", 34, "p-1900")))
    probe(port, "HAE a point in year 0001", req(hae("0001-01-01 00:00:00 +0000", 35, "p-0001")))
    probe(port, "step log ts 1e12 (numeric, ms?)", req(json.dumps({"v": 1, "ts": 1e12, "steps": 36, "src": "p-num"})
                                                      .encode() + b"\n"))
    probe(port, "step log in the future (+2 days)", req(steplog(time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86400 * 2)), 37, "p-sl-future")))
    hc = {"timestamp": "2025-03-03T00:00:00Z", "steps": [{"count": 38, "start_time": "2025-03-03T00:00:00+05:45",
                                                          "end_time": "2025-03-03T00:01:00+05:45"}]}
    probe(port, "Health Connect record at +05:45", req(json.dumps(hc).encode()))
    hc["steps"][0].update(start_time="2025-03-03T00:05:00Z", end_time="2025-03-03T00:04:00Z")
    probe(port, "Health Connect record ending before it starts", req(json.dumps(hc).encode()))
    probe(port, "after all: a good request", req(steplog("2025-03-04T00:00:00Z", 40, "p-last")))


def main():
    work = tempfile.mkdtemp(prefix="steptweet-audit36-")
    port = free_port()
    with open(os.path.join(work, "config.toml"), "w") as f:
        f.write(f'[receive]\nlisten = "127.0.0.1:{port}"\ntoken_env = "RECEIVE_TOKEN"\n'
                f'[schedule]\ninterval = "6h"\n[state]\npath = "{work}/state.sqlite"\n'
                f'[[publish]]\nkind = "file"\npath = "{work}/posts.jsonl"\n')
    log = open(os.path.join(work, "agent.log"), "w")
    agent = subprocess.Popen([BINARY, "agent", "--config", os.path.join(work, "config.toml")], stdout=log,
                             stderr=log, env=dict(os.environ, RECEIVE_TOKEN=TOKEN))
    try:
        wait_listening(port, seconds=60)
        run_probes(port)
        note("agent still running", agent.poll() is None)
        with contextlib.closing(sqlite3.connect(os.path.join(work, "state.sqlite"))) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            print("# tables:", ", ".join(tables))
            out = subprocess.run([BINARY, "devices", "--received", "--config", os.path.join(work, "config.toml")],
                                 capture_output=True, text=True, timeout=60)
            print(out.stdout[-6000:], out.stderr[-2000:])
    finally:
        agent.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            agent.wait(30)
        if agent.poll() is None:
            agent.kill()
        log.close()
        for line in open(os.path.join(work, "agent.log"), errors="replace").read().splitlines()[-40:]:
            print("# agent log:", line[:240])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
