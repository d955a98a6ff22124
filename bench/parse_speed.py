"""Writes the benchmark inputs for bench/parse_speed.sh: a generic `t_ms,x,y,z` CSV and a Sensor Logger
`time,seconds_elapsed,z,y,x` CSV of about SIZE_MB each (a 200 Hz synthetic walk, deterministic)."""
import math, os, sys

out, size_mb = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
target = size_mb * 1_000_000

def rows(fmt):
    i = 0
    while True:
        t = i * 0.005
        x = 0.3 * math.sin(t * 3.1)
        y = 4.4 + 1.2 * math.sin(t * 11.7)
        z = 8.3 + 2.1 * math.sin(t * 11.7 + 0.4)
        yield fmt(i, t, x, y, z)
        i += 1

def write(name, header, fmt):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(header + "\n")
        written = 0
        block = []
        for line in rows(fmt):
            block.append(line)
            if len(block) == 10000:
                text = "\n".join(block) + "\n"
                f.write(text)
                written += len(text)
                block = []
                if written >= target:
                    break
    print(path, os.path.getsize(path))

write("generic.csv", "t_ms,x,y,z", lambda i, t, x, y, z: f"{t * 1000:.3f},{x:.5f},{y:.5f},{z:.5f}")
write("sensorlogger.csv", "time,seconds_elapsed,z,y,x",
      lambda i, t, x, y, z: f"{1505898000000000000 + i * 5000000},{t:.6f},{z:.5f},{y:.5f},{x:.5f}")
