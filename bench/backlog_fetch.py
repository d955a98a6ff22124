#!/usr/bin/env python3
"""The fetch budget covers reading the input (issue 12): fetches over a large CSV backlog at `deadline = "2s"`.

Builds (or reuses) a `t_ms,x,y,z` backlog of about 400 MB from the shared Oxford recordings (bench/make_long_stream.py),
points a configuration at it (relative times anchored at source.start, stdout target, deadline 2 s) and runs
`steptweet fetch --json` again and again, each with `--now` after the end of the data, until a fetch reports NoData.
Checks:

  * every fetch ends within deadline + 1 s (wall time of the process, start to exit);
  * the posted windows form one chain and their steps add up to `steptweet count` on the whole file;
  * SIGTERM during a backlog fetch of the agent stops it within 1 s (plus the current request's cancellation).

Usage: python3 bench/backlog_fetch.py [--binary .build/release/steptweet] [--mb 400] [--deadline 2]
Writes bench/backlog_fetch_result.txt. Uses only the Python standard library; every process it starts is stopped.
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time
from datetime import datetime, timedelta, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data", "steps", "manifest.csv")
START = datetime(2026, 11, 1, 0, 0, 0, tzinfo=timezone.utc)


def build_backlog(path, mb):
    if os.path.exists(path) and os.path.getsize(path) >= mb * 1_000_000 * 0.9:
        return
    tmp = path + ".part"
    # One repetition of the 48 recordings with a minute of rest between them is about 85 MB.
    reps = max(1, -(-mb // 85))
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_long_stream.py"), SHARED, tmp, str(reps), "60"],
                   check=True, stdout=subprocess.DEVNULL)
    os.replace(tmp, path)


def last_time_ms(path):
    with open(path, "rb") as f:
        f.seek(-4096, os.SEEK_END)
        last = f.read().rstrip(b"\n").split(b"\n")[-1]
    return float(last.split(b",")[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "steptweet"))
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--deadline", type=float, default=2.0)
    ap.add_argument("--max-fetches", type=int, default=200)
    args = ap.parse_args()
    out_dir = os.path.join(ROOT, "bench", "out")
    os.makedirs(out_dir, exist_ok=True)
    backlog = os.path.join(out_dir, f"backlog_{args.mb}mb.csv")
    build_backlog(backlog, args.mb)
    size = os.path.getsize(backlog)
    end = START + timedelta(milliseconds=last_time_ms(backlog)) + timedelta(minutes=5)
    work = tempfile.mkdtemp(prefix="steptweet-backlog-")
    try:
        config = os.path.join(work, "config.toml")
        with open(config, "w") as f:
            f.write(f'[source]\npath = "{backlog}"\nstart = "{START.isoformat()}"\n'
                    f'[schedule]\ndeadline = "{args.deadline:g}s"\n'
                    f'[text]\ntime_zone = "UTC"\n'
                    f'[state]\npath = "state.sqlite"\n')
        t0 = time.monotonic()
        counted = json.loads(subprocess.run([args.binary, "count", "--json", backlog], check=True,
                                            capture_output=True, text=True).stdout)["steps"]
        count_s = time.monotonic() - t0
        fetches, posted, windows = [], 0, []
        for i in range(args.max_fetches):
            now = (end + timedelta(seconds=i)).isoformat()
            t = time.monotonic()
            r = subprocess.run([args.binary, "fetch", "--config", config, "--now", now, "--json"],
                               capture_output=True, text=True)
            wall = time.monotonic() - t
            doc = json.loads(r.stdout)
            fetches.append((wall, doc["result"], doc.get("steps") or 0, doc.get("reason")))
            for p in doc["posts"]:
                posted += p["steps"]
                windows.append((p["window"]["start"], p["window"]["end"]))
            if doc["result"] == "NoData":
                break
        chain = all(windows[k][1] == windows[k + 1][0] for k in range(len(windows) - 1))
        walls = [w for w, *_ in fetches]
        # SIGTERM while the agent works through the backlog (fresh state).
        os.remove(os.path.join(work, "state.sqlite"))
        agent = subprocess.Popen([args.binary, "agent", "--config", config], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        stop_s = None
        while time.monotonic() < deadline:
            line = agent.stderr.readline()
            if "fetches now" in line:
                agent.send_signal(signal.SIGUSR1)
                time.sleep(0.5)  # inside the backlog's ingestion
                t = time.monotonic()
                agent.send_signal(signal.SIGTERM)
                agent.wait(timeout=30)
                stop_s = time.monotonic() - t
                break
        if agent.poll() is None:
            agent.kill()
        lines = [
            f"# backlog_fetch.py, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.uname().machine}, {os.cpu_count()} cores",
            f"binary: {args.binary}",
            f"backlog: {size / 1e6:.0f} MB CSV; deadline {args.deadline:g} s",
            f"steptweet count on the whole file: {counted} steps ({count_s:.2f} s)",
            f"fetches until NoData: {len(fetches)}; wall per fetch: max {max(walls):.2f} s, median {sorted(walls)[len(walls) // 2]:.2f} s",
            f"every fetch within deadline + 1 s: {'PASS' if max(walls) <= args.deadline + 1 else 'FAIL'}",
            f"posted steps: {posted} in {len(windows)} windows; contiguous chain: {chain}; equal to count: "
            f"{'PASS' if posted == counted and chain else 'FAIL'}",
            f"SIGTERM during a backlog fetch: agent exited after {stop_s:.2f} s" if stop_s is not None else "SIGTERM: agent never became ready",
            "",
            "fetch  wall_s  result   steps",
        ] + [f"{k + 1:5d}  {w:6.2f}  {res:8s} {st}" + (f"  ({why})" if why else "") for k, (w, res, st, why) in enumerate(fetches)]
        text = "\n".join(lines) + "\n"
        print(text)
        with open(os.path.join(ROOT, "bench", "backlog_fetch_result.txt"), "w") as f:
            f.write(text)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
