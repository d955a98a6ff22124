#!/usr/bin/env python3
"""Idle memory of the agent: starts `steptweet agent` on the committed walk, fetches once (SIGUSR1), idles 10 s, then
prints VmRSS and the largest resident mappings. Compare the dynamically linked and the static build:

    python3 bench/idle_rss.py .build/release/steptweet
    python3 bench/idle_rss.py .build-static/release/steptweet      # make static

With RECEIVE=1 the configuration also has a [receive] table (the receiver listening on a free loopback port, no
request sent), so that the receiver's own idle memory is in the figure.

Pages of shared libraries that another running process also maps stay resident (MADV_PAGEOUT skips them), so the
dynamic build's figure depends on what else runs; the static build's does not.
"""
import os, shutil, signal, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "steptweet")
work = tempfile.mkdtemp(prefix="steptweet-idle-")
config = os.path.join(work, "config.toml")
with open(config, "w") as f:
    f.write(f'[source]\npath = "{ROOT}/fixtures/demo_walk_50hz.csv"\nstart = "2026-11-21T10:00:00Z"\n'
            f'[schedule]\ninterval = "1h"\n[state]\npath = "{work}/state.sqlite"\n')
    if os.environ.get("RECEIVE"):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        f.write(f'[receive]\nlisten = "127.0.0.1:{probe.getsockname()[1]}"\ntoken_env = "IDLE_RSS_TOKEN"\n')
        probe.close()
agent = subprocess.Popen([binary, "agent", "--config", config], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, IDLE_RSS_TOKEN="idle"))
try:
    for line in agent.stderr:
        if "ready:" in line:
            break
    agent.send_signal(signal.SIGUSR1)
    for line in agent.stderr:
        if "fetch signal:" in line:
            break
    time.sleep(10)
    resident, mapping = {}, None
    for line in open(f"/proc/{agent.pid}/smaps"):
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            mapping = fields[5] if len(fields) > 5 else "[anonymous]"
        elif fields[0] == "Rss:":
            resident[mapping] = resident.get(mapping, 0) + int(fields[1])
    status = dict(l.split(":", 1) for l in open(f"/proc/{agent.pid}/status") if ":" in l)
    print(f"{os.path.relpath(binary, ROOT)}: idle VmRSS {int(status['VmRSS'].split()[0]) / 1024:.1f} MB after one fetch")
    for name, kb in sorted(resident.items(), key=lambda kv: -kv[1])[:6]:
        print(f"  {kb / 1024:6.1f} MB  {name}")
finally:
    agent.send_signal(signal.SIGTERM)
    agent.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)
