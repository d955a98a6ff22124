"""Writes the inputs for bench/datetime_speed.sh: generic CSVs whose time column is date-time text, ROWS rows each
(default 3,000,000; a 100 Hz synthetic walk, deterministic): `datetime_iso.csv` (`2024-05-01 10:00:00.123`, MATLAB
Mobile's ISO form) and `datetime_matlab.csv` (`01-May-2024 10:00:00.123`, MATLAB's default datetime text)."""
import datetime, math, os, sys

out, rows = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
start = datetime.datetime(2024, 5, 1, 10, 0, 0)

def write(name, header, stamp):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(header + "\n")
        block = []
        for i in range(rows):
            t = i * 0.01
            when = start + datetime.timedelta(milliseconds=i * 10)
            x = 0.3 * math.sin(t * 3.1)
            y = 4.4 + 1.2 * math.sin(t * 11.7)
            z = 8.3 + 2.1 * math.sin(t * 11.7 + 0.4)
            block.append(f"{stamp(when)},{x:.5f},{y:.5f},{z:.5f}")
            if len(block) == 10000:
                f.write("\n".join(block) + "\n")
                block = []
        if block:
            f.write("\n".join(block) + "\n")
    print(path, os.path.getsize(path))

write("datetime_iso.csv", "Timestamp,X,Y,Z", lambda d: d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}")
write("datetime_matlab.csv", "Acceleration_Timestamp,X,Y,Z",
      lambda d: d.strftime("%d-%b-%Y %H:%M:%S.") + f"{d.microsecond // 1000:03d}")
