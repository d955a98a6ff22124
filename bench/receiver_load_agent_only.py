#!/usr/bin/env python3
# bench/receiver_load.py's three phases for the agent only, where the peer's venv cannot be installed (no PyPI): that
# script's own code, with the peer's parts skipped, to compare two builds of the agent with each other.
# Usage: SECONDS=30 python3 bench/receiver_load_agent_only.py . BINARY   (REPO first, then the binary)
import contextlib, os, sys
repo, binary = sys.argv[1], sys.argv[2]
sys.argv = [os.path.join(repo, "bench", "receiver_load.py"), binary]
sys.path.insert(0, os.path.join(repo, "bench"))
src = open(sys.argv[0]).read()
src = src[: src.rindex("\nmain()")]
g = {"__name__": "receiver_load_agent_only", "__file__": sys.argv[0]}
exec(compile(src, sys.argv[0], "exec"), g)

class NoPeer(Exception):
    pass

original = g["running"]

@contextlib.contextmanager
def running(start, what):
    if start is g["start_peer"]:
        raise NoPeer()
    with original(start, what) as r:
        yield r

g["running"] = running
print(f"# agent only, {binary}, DEVICES={g['DEVICES']} SECONDS={g['SECONDS']}")
for phase in ("sensor_logger", "health_auto_export", "health_auto_export_month"):
    try:
        g[phase]()
    except NoPeer:
        pass
    sys.stdout.flush()
