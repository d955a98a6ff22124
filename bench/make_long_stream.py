#!/usr/bin/env python3
"""Builds the long-stream benchmark input: the shared Oxford phone recordings concatenated with continuous time.

Usage: make_long_stream.py MANIFEST OUT.csv REPETITIONS PAUSE_S

Every recording of the manifest under oxford_opt/ is written in manifest order, REPETITIONS times, as `t_ms,x,y,z`
with one time axis: each recording starts one sample period after the previous segment ends. Between recordings the
phone lies still for PAUSE_S seconds (gravity plus 0.02 m/s^2 of noise at 10 Hz), so the stream is continuous (no gap
longer than 0.1 s) and its span passes 24 h with ~11 M samples. Also writes OUT.csv.files (the recordings, in
order) so the per-file counts can be compared.
"""
import csv, os, random, sys

manifest, out_path, reps, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
base = os.path.dirname(os.path.abspath(manifest))
files = [r['file'] for r in csv.DictReader(open(manifest, newline='')) if r['file'].startswith('oxford_opt/')]
segments = []
for f in files:
    with open(os.path.join(base, f)) as fh:
        next(fh)
        rows = [line.rstrip('\r\n').split(',', 1) for line in fh if line.strip()]
    segments.append([(float(t), rest) for t, rest in rows])

rng = random.Random(1)
t_end = 0.0  # ms, time of the last written sample
samples = 0
with open(out_path, 'w') as out:
    out.write('t_ms,x,y,z\n')
    for rep in range(reps):
        for seg in segments:
            # Lie still between recordings.
            n_still = int(pause * 10)
            buf = []
            for i in range(n_still):
                t_end += 100.0
                buf.append(f'{t_end:.3f},{rng.gauss(0, 0.02):.5f},{rng.gauss(0, 0.02):.5f},{9.80665 + rng.gauss(0, 0.02):.5f}\n')
            out.write(''.join(buf))
            samples += n_still
            offset = t_end + 10.0 - seg[0][0]
            out.write(''.join(f'{t + offset:.3f},{rest}\n' for t, rest in seg))
            t_end = seg[-1][0] + offset
            samples += len(seg)
with open(out_path + '.files', 'w') as fh:
    fh.write('\n'.join(os.path.join(base, f) for f in files) + '\n')
print(f'{out_path}: {samples} samples, {t_end / 3.6e6:.2f} h, {len(files)} recordings x {reps}')
