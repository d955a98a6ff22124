"""What the receiver benchmarks share: a free loopback port, a POST to /ingest, waiting for a receiver to listen."""
import http.client, socket, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port, what="the agent", seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.025)
    raise SystemExit(f"bench: {what} did not listen on 127.0.0.1:{port} within {seconds} s")


def post(port, body, token):
    """POSTs `body` to /ingest with the bearer token; the seconds until the whole answer was read."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    conn.request("POST", "/ingest", body=body, headers={"Authorization": f"Bearer {token}",
                                                       "Content-Type": "application/json"})
    response = conn.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - start
    conn.close()
    if response.status != 200:
        raise SystemExit(f"bench: HTTP {response.status}: {data[:300]!r}")
    return elapsed
