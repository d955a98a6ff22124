#!/usr/bin/env python3
"""The peer that bench/receiver_load.py measures beside the agent's receiver (issue #34).

No step-counting receiver for these apps installs offline. The common self-hosted ones are small ingest web services
(health-db: FastAPI storing Health Auto Export JSON in a database; irvinlim/apple-health-ingester, in Go), so the
peer is such a service, built from PyPI the way they are: FastAPI on uvicorn (one worker, its default event loop and
HTTP parser) with the standard library's sqlite3. For the same requests the agent gets, it:

  - checks `Authorization: Bearer TOKEN` in constant time (401 otherwise);
  - parses the JSON body (the standard library's json, no pydantic models: the cheaper way);
  - Health Auto Export: upserts each `step_count` point into `hae_steps`, keyed on (source, date), with
    INSERT ... ON CONFLICT DO UPDATE, so a resend replaces; other metrics are ignored;
  - Sensor Logger: inserts each reading's (session, sensor, time, x, y, z) into `sensor_readings`, a reading repeated
    by (session, sensor, time) ignored;
  - commits (WAL, synchronous = NORMAL: what a 200 promises survives the process being killed, as the agent's does),
    the database work in FastAPI's thread pool as a careful service does, then answers 200 with {"readings": N}.

It counts no steps: it only stores what it receives, so its numbers are a lower bound on the work of a receiver that
counts steps. It listens on 127.0.0.1 only.

    .venv-bench/bin/python bench/receiver_peer.py PORT DATABASE     # the token in PEER_TOKEN
    .venv-bench/bin/python bench/receiver_peer.py --versions        # one JSON line: what it is built from
"""
import hmac, json, os, platform, sqlite3, sys, threading

SCHEMA = """
CREATE TABLE IF NOT EXISTS hae_steps (
    source TEXT NOT NULL, date TEXT NOT NULL, qty REAL NOT NULL, PRIMARY KEY (source, date));
CREATE TABLE IF NOT EXISTS sensor_readings (
    session TEXT NOT NULL, sensor TEXT NOT NULL, time INTEGER NOT NULL, x REAL, y REAL, z REAL,
    PRIMARY KEY (session, sensor, time));
"""
UPSERT_STEPS = ("INSERT INTO hae_steps (source, date, qty) VALUES (?, ?, ?) "
                "ON CONFLICT (source, date) DO UPDATE SET qty = excluded.qty")
INSERT_READING = ("INSERT INTO sensor_readings (session, sensor, time, x, y, z) VALUES (?, ?, ?, ?, ?, ?) "
                  "ON CONFLICT DO NOTHING")


def versions():
    from importlib.metadata import PackageNotFoundError, version
    out = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
    for name in ("fastapi", "starlette", "uvicorn", "uvloop", "httptools"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


class Store:
    """One SQLite connection, used by one thread at a time."""

    def __init__(self, path):
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)
        self.lock = threading.Lock()

    def health_auto_export(self, metrics):
        rows = [(point.get("source", ""), point["date"], float(point["qty"]))
                for metric in metrics if metric.get("name") == "step_count" for point in metric.get("data", ())]
        with self.lock, self.db:
            self.db.executemany(UPSERT_STEPS, rows)
        return len(rows)

    def sensor_logger(self, message):
        session = str(message.get("sessionId", ""))
        rows = []
        for reading in message["payload"]:
            values = reading.get("values") or {}
            rows.append((session, reading["name"], reading["time"], values.get("x"), values.get("y"), values.get("z")))
        with self.lock, self.db:
            self.db.executemany(INSERT_READING, rows)
        return len(rows)


def make_app(store, token):
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse
    from starlette.concurrency import run_in_threadpool

    expected = f"Bearer {token}".encode()
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.post("/ingest")
    async def ingest(request: Request):
        if not hmac.compare_digest(request.headers.get("authorization", "").encode(), expected):
            return JSONResponse({"error": "missing or wrong token"}, status_code=401)
        try:
            body = json.loads(await request.body())
        except ValueError as error:
            return JSONResponse({"error": f"malformed JSON: {error}"}, status_code=400)
        try:
            if isinstance(body, dict) and isinstance(body.get("payload"), list):
                readings = await run_in_threadpool(store.sensor_logger, body)
            elif isinstance(body, dict) and isinstance(body.get("data"), dict):
                readings = await run_in_threadpool(store.health_auto_export, body["data"].get("metrics") or [])
            else:
                return JSONResponse({"error": "neither Sensor Logger nor Health Auto Export"}, status_code=400)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            return JSONResponse({"error": f"malformed payload: {error!r}"}, status_code=400)
        return {"readings": readings}

    return app


def main():
    if sys.argv[1:] == ["--versions"]:
        print(json.dumps(versions()))
        return
    if len(sys.argv) != 3 or not os.environ.get("PEER_TOKEN"):
        raise SystemExit("usage: PEER_TOKEN=... receiver_peer.py PORT DATABASE | --versions")
    import uvicorn
    app = make_app(Store(sys.argv[2]), os.environ["PEER_TOKEN"])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), workers=1, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
