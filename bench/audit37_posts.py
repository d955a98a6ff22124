#!/usr/bin/env python3
"""Session 37 audit: never a post lost or doubled, with the wall clock moved back and forward between fetches and
fetches SIGKILLed before and after the target answers.

A step log grows by a reading a minute on the "real" clock; each cycle runs `fetch --now T` where T mostly follows
the real clock but is sometimes set back (1-5 h) or jumps ahead (a day); about half the fetch processes are killed
(SIGKILL) after 0-1.2 s while a webhook on 127.0.0.1 takes 0-0.8 s to act and answer, keeping each
Idempotency-Key once (and counting a second acted-on key as a double). Then the faults stop and the outbox is drained
at the true time. Checks: every window the state posted was kept once by the server, the kept windows never overlap,
and their steps add up to every step in the log.

With --ahead-then-back: one fetch on a clock a day ahead whose post the webhook answers 503, then one at the true
time 10 minutes on (the clock set back by NTP): is the post tried, or held until the real clock reaches the wait?

usage: python3 bench/audit37_posts.py BINARY [--cycles 80] [--seed 37] [--answer-delay 0.8] [--ahead-then-back]
"""
import argparse, datetime as dt, http.server, json, os, random, shutil, signal, sqlite3, subprocess, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("binary")
ap.add_argument("--cycles", type=int, default=80)
ap.add_argument("--seed", type=int, default=37)
ap.add_argument("--ahead-then-back", action="store_true")
ap.add_argument("--keep", action="store_true", help="keep the state folder")
ap.add_argument("--answer-delay", type=float, default=0.8, help="the webhook acts and answers after 0 to this many s")
args = ap.parse_args()
BIN = os.path.abspath(args.binary)
rnd = random.Random(args.seed)
server_rnd = random.Random(args.seed + 1000)  # the server's delays, apart from the clock's moves


class Hook(http.server.BaseHTTPRequestHandler):
    lock = threading.Lock()
    kept = {}  # key -> body
    requests = 0
    doubles = 0

    def log_message(self, *a):
        pass

    fail_first = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if Hook.fail_first > 0:
            Hook.fail_first -= 1
            Hook.requests += 1
            self.send_response(503)
            self.end_headers()
            return
        key = self.headers.get("Idempotency-Key", "")
        time.sleep(server_rnd.uniform(0, args.answer_delay))
        with Hook.lock:
            Hook.requests += 1
            if key not in Hook.kept:
                Hook.kept[key] = body
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"ok":true}')
        except OSError:
            pass  # the fetch was killed before the answer


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]

root = tempfile.mkdtemp(prefix="audit37-posts-")
log = os.path.join(root, "steps.jsonl")
open(log, "w").close()
cfg = os.path.join(root, "c.toml")
with open(cfg, "w") as f:
    f.write(f'[source]\npath = "{log}"\nfollow = true\n[schedule]\ninterval = "1h"\nwindow = "since-last"\n'
            f'deadline = "3s"\n[text]\ntime_zone = "Asia/Tokyo"\n[state]\npath = "state.sqlite"\n'
            f'[[publish]]\nkind = "webhook"\nurl_env = "AUDIT37_HOOK"\n')
env = dict(os.environ, AUDIT37_HOOK=f"http://127.0.0.1:{port}/hook")

real = dt.datetime(2026, 11, 21, 1, 0, tzinfo=dt.timezone.utc)

if args.ahead_then_back:
    with open(log, "w") as f:
        f.write(json.dumps({"ts": "2026-11-21T00:30:00Z", "steps": 500}) + "\n")
    Hook.fail_first = 1
    for now in (real + dt.timedelta(days=1), real + dt.timedelta(minutes=10)):
        p = subprocess.run([BIN, "fetch", "--config", cfg, "--now", now.isoformat()], env=env, capture_output=True,
                           text=True, timeout=60)
        print(f"fetch --now {now.isoformat()}: exit {p.returncode}; " + " | ".join(p.stdout.strip().splitlines()[-2:]))
    print(f"server: {Hook.requests} requests, {len(Hook.kept)} kept")
    server.shutdown()
    shutil.rmtree(root)
    raise SystemExit(0)
written = 0
killed = completed = 0
results = {}
moves = {"follow": 0, "back": 0, "ahead": 0}
latest_now = real
for cycle in range(args.cycles):
    # the real clock goes on an hour; the log gets a reading a minute up to it
    with open(log, "a") as f:
        for m in range(60):
            t = real + dt.timedelta(minutes=m, seconds=30)
            n = rnd.choice([0, 0, 12, 40, 95, 110])
            written += n
            f.write(json.dumps({"ts": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "steps": n}) + "\n")
    real += dt.timedelta(hours=1)
    r = rnd.random()
    if r < 0.15:
        now, move = real - dt.timedelta(hours=rnd.randint(1, 5)), "back"
    elif r < 0.22:
        now, move = real + dt.timedelta(hours=rnd.randint(20, 30)), "ahead"
    else:
        now, move = real, "follow"
    moves[move] += 1
    latest_now = max(latest_now, now)
    p = subprocess.Popen([BIN, "fetch", "--config", cfg, "--now", now.isoformat(), "--quiet"], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if rnd.random() < 0.5:
        time.sleep(rnd.uniform(0, 0.4 + args.answer_delay))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    if p.returncode is not None and p.returncode >= 0:
        completed += 1
        results[p.returncode] = results.get(p.returncode, 0) + 1

# the clock is right again: one fetch at the true time, no faults; what does it leave waiting?
p = subprocess.run([BIN, "fetch", "--config", cfg, "--now", (real + dt.timedelta(minutes=5)).isoformat(), "--json"],
                   env=env, capture_output=True, text=True, timeout=60)
report = json.loads(p.stdout) if p.stdout.startswith("{") else {}
waiting = [d.get("reason", "") for d in report.get("deliveries", []) if d.get("outcome") == "deferred"]
print(f"at the true time after the last fault: {len(waiting)} post(s) deferred {waiting[:2]}")
# drain once the true clock has passed every window closed on a clock that was ahead
end = max(real, latest_now)
for i in range(4):
    p = subprocess.run([BIN, "fetch", "--config", cfg, "--now", (end + dt.timedelta(minutes=10 * (i + 1))).isoformat()],
                       env=env, capture_output=True, text=True, timeout=60)
db = sqlite3.connect(os.path.join(root, "state.sqlite"))
rows = db.execute("select window_start_ns, window_end_ns, steps, status, idempotency_key from outbox "
                  "order by window_start_ns").fetchall()
stored = db.execute("select coalesce(sum(count),0) from steps").fetchone()[0]
late = db.execute("select coalesce(sum(late_steps),0) from fetch_history").fetchone()[0]
keys = [r[4] for r in rows]
overlaps = sum(1 for a, b in zip(rows, rows[1:]) if b[0] < a[1])
gaps = sum(1 for a, b in zip(rows, rows[1:]) if b[0] > a[1])
not_kept = [k for k in keys if k not in Hook.kept]
extra = [k for k in Hook.kept if k not in keys]
pending = [r for r in rows if r[3] != "delivered"]
posted = sum(r[2] for r in rows)
print(f"audit37_posts: {args.cycles} cycles (clock: {moves}), seed {args.seed}, answer delay 0-{args.answer_delay} s; "
      f"fetches killed {killed}, "
      f"completed {completed} {dict(sorted(results.items()))}")
print(f"log steps {written}; stored {stored}; posted in windows {posted}; late {late}")
print(f"outbox windows {len(rows)} (not delivered {len(pending)}); server requests {Hook.requests}, kept {len(Hook.kept)}")
print(f"lost: windows not kept by the server {len(not_kept)}, steps {written - posted}; doubled: kept windows "
      f"not in the outbox {len(extra)}, overlapping windows {overlaps}; gaps between windows {gaps}")
ok = not not_kept and not extra and overlaps == 0 and written == posted == stored and not pending
print("result:", "PASS" if ok else "FAIL")
db = sqlite3.connect(os.path.join(root, "state.sqlite"))
errors = {}
for (e,) in db.execute("select error from fetch_history where result = 'Failed'"):
    k = (e or "").split(" until ")[0]
    errors[k] = errors.get(k, 0) + 1
print("failed fetches by reason:", dict(sorted(errors.items(), key=lambda kv: -kv[1])[:4]))
server.shutdown()
if ok and not args.keep:
    shutil.rmtree(root)
else:
    print("kept", root)
