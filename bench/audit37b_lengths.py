#!/usr/bin/env python3
"""Session 37b audit: texts at and over each target's own length rule, end to end.

One fake server on 127.0.0.1 applies each service's own rule to what it is sent: Misskey `notes/create` (`text` at
most 3000 code points: 400 TOO_LONG), Discord's webhook (`content` at most 2000 code points: 400 code 50035), Matrix
`send` (the event's JSON at most 65536 bytes: 413 M_TOO_LARGE) and ntfy's JSON publish (the document at most 8192
bytes; a message of 4096 bytes or more is an attachment: 400 40014), and a webhook that takes anything. For texts
just under, at and over each limit (ASCII and emoji), with `shorten` off and on, `steptweet fetch` posts one window
and the outbox says what became of it: delivered (and what the server got), or failed with the reason. Nothing may
be lost silently or fail for ever (a post retried against a rule it can never pass).

usage: python3 bench/audit37b_lengths.py BINARY
"""
import http.server
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading

BIN = os.path.abspath(sys.argv[1])
GOT = []


class Fake(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def answer(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))

    def do_POST(self):
        raw = self.body()
        if self.path.startswith("/api/notes/create"):
            text = json.loads(raw)["text"]
            GOT.append(("misskey", len(text)))
            if len(text) > 3000:  # ajv counts code points (Python's len)
                return self.answer(400, {"error": {"code": "TOO_LONG", "message": "text too long"}})
            return self.answer(200, {"createdNote": {"id": "9abc"}})
        if self.path.startswith("/api/webhooks/"):
            text = json.loads(raw)["content"]
            GOT.append(("discord", len(text)))
            if len(text) > 2000:
                return self.answer(400, {"code": 50035, "message": "Invalid Form Body"})
            return self.answer(200, {"id": "1122"})
        if self.path == "/ntfy/":
            message = json.loads(raw)["message"] if len(raw) <= 8192 else None
            GOT.append(("ntfy", len(message.encode()) if message is not None else f"document {len(raw)}"))
            if message is None:
                return self.answer(400, {"code": 40024, "http": 400, "error": "invalid request: body too large"})
            if len(message.encode()) >= 4096:
                return self.answer(400, {"code": 40014, "http": 400, "error": "invalid request: attachments not allowed"})
            return self.answer(200, {"id": "n1", "event": "message"})
        if self.path.startswith("/hook"):
            GOT.append(("webhook", len(json.loads(raw).get("text", ""))))
            return self.answer(200, {})
        self.answer(404, {})

    def do_PUT(self):
        raw = self.body()
        if "/send/m.room.message/" in self.path:
            GOT.append(("matrix", len(raw)))
            if len(raw) + 600 > 65536:  # the server adds the envelope (sender, room, hashes, signatures)
                return self.answer(413, {"errcode": "M_TOO_LARGE", "error": "event too large"})
            return self.answer(200, {"event_id": "$e"})
        self.answer(404, {})


def config(folder, port, text, shorten):
    sh = "true" if shorten else "false"
    return (f'[source]\npath = "log.jsonl"\n[schedule]\ninterval = "1h"\nwindow = "1h"\n'
            f'[text]\ntime_zone = "UTC"\ntemplate = {json.dumps(text)}\n[state]\npath = "state.sqlite"\n'
            f'[[publish]]\nkind = "misskey"\nbase_url = "http://127.0.0.1:{port}"\ntoken_env = "T"\nshorten = {sh}\n'
            f'[[publish]]\nkind = "discord"\nurl_env = "DISCORD"\nshorten = {sh}\n'
            f'[[publish]]\nkind = "matrix"\nbase_url = "http://127.0.0.1:{port}"\ntoken_env = "T"\n'
            f'room_id = "!r:example.org"\nshorten = {sh}\n'
            f'[[publish]]\nkind = "ntfy"\nbase_url = "http://127.0.0.1:{port}/ntfy/"\ntopic = "steps"\nshorten = {sh}\n'
            f'[[publish]]\nkind = "webhook"\nurl_env = "HOOK"\n')


def one(root, port, name, text, shorten):
    folder = os.path.join(root, name + ("-shorten" if shorten else ""))
    os.makedirs(folder)
    with open(os.path.join(folder, "log.jsonl"), "w") as f:
        for i in range(10):
            f.write(json.dumps({"ts": f"2026-11-30T10:{i:02d}:00Z", "steps": 100}) + "\n")
    with open(os.path.join(folder, "c.toml"), "w") as f:
        f.write(config(folder, port, text, shorten))
    env = dict(os.environ, T="tok", DISCORD=f"http://127.0.0.1:{port}/api/webhooks/1/tok",
               HOOK=f"http://127.0.0.1:{port}/hook")
    GOT.clear()
    runs = []
    for _ in range(2):  # a second fetch: a failed post must not be retried for ever against the same rule
        p = subprocess.run([BIN, "fetch", "--config", "c.toml", "--now", "2026-11-30T12:00:00Z"], cwd=folder,
                           env=env, capture_output=True, text=True, timeout=120)
        runs.append(p.returncode)
    db = sqlite3.connect(os.path.join(folder, "state.sqlite"))
    cols = [r[1] for r in db.execute("pragma table_info(outbox)")]
    rows = db.execute("select * from outbox").fetchall()
    db.close()
    rendered = text.replace("{steps}", "1000")
    print(f"== {name}{' shorten' if shorten else ''}: {len(rendered)} code points, {len(rendered.encode())} bytes; "
          f"fetch exits {runs}; requests {GOT}")
    for r in rows:
        d = dict(zip(cols, r))
        print(f"   {d.get('target')}: {d.get('status')} attempts {d.get('attempts')} "
              f"{(d.get('last_error') or '')[:150]}")


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Fake)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = tempfile.mkdtemp(prefix="audit37b-lengths-")
    try:
        # " {steps}" renders " 1000": 5 characters
        cases = [("ascii-2000", "x" * 1995 + " {steps}"), ("ascii-2001", "x" * 1996 + " {steps}"),
                 ("ascii-3001", "x" * 2996 + " {steps}"), ("ascii-4095", "x" * 4090 + " {steps}"),
                 ("ascii-4096", "x" * 4091 + " {steps}"), ("hearts-2001cp", "\u2764\ufe0f" * 998 + " {steps}"),
                 ("quotes-4095", '"' * 4090 + " {steps}"), ("newlines-59985", "a\n" * 29990 + " {steps}")]
        for name, text in cases:
            for shorten in (False, True):
                one(root, port, name, text, shorten)
    finally:
        server.shutdown()
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
