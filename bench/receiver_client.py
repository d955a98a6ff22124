"""What the receiver benchmarks share: a free loopback port, a POST to /ingest, waiting for the agent to listen."""
import http.client, socket, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_listening(port):
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.025)
    raise SystemExit("bench: the agent did not listen")


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
