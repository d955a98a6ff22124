#!/usr/bin/env python3
"""The peer (../shared/tools/peer_findpeaks.py, scipy find_peaks, d = 0.307 s, prominence 0.187 g) scored the way
`steptweet eval` scores: per shared set, walking MAPE over files with >= 100 true steps, false steps (above the
truth) in total and per hour for files under 100, least steps per minute for files without a count.

Usage: python3 bench/peer_accuracy.py [SHARED]     (default ../shared)
"""
import csv, os, subprocess, sys, collections
shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..', 'shared')
peer = os.path.join(shared, 'tools', 'peer_findpeaks.py')
for name in ('steps', 'activities'):
    manifest = os.path.join(shared, 'data', name, 'manifest.csv')
    rows = list(csv.DictReader(open(manifest)))
    paths = [os.path.join(shared, 'data', name, r['file']) for r in rows]
    out = subprocess.run([sys.executable, peer, 'count', '--d', '0.307', '--p', '0.187'] + paths,
                         check=True, capture_output=True, text=True).stdout
    counts = {}
    for line in out.splitlines():
        parts = line.split('\t')
        if len(parts) == 4:
            counts[os.path.relpath(parts[0], os.path.join(shared, 'data', name))] = int(parts[1])
    groups = collections.OrderedDict()
    for r in rows:
        key = r['file'].split('/')[0]
        if r['file'] in ('bangle_wrist/10134.csv', 'bangle_wrist/3058.csv'):
            key += ' (long walks)'
        groups.setdefault(key, []).append(r)
    for key, rs in groups.items():
        walks = [abs(counts[r['file']] - int(r['truth_steps'])) / int(r['truth_steps']) * 100
                 for r in rs if r['truth_steps'] and int(r['truth_steps']) >= 100]
        low = [r for r in rs if r['truth_steps'] and int(r['truth_steps']) < 100]
        false = sum(max(0, counts[r['file']] - int(r['truth_steps'])) for r in low)
        hours = sum(float(r['duration_s']) for r in low) / 3600
        nocount = [counts[r['file']] / (float(r['duration_s']) / 60) for r in rs if not r['truth_steps']]
        parts = [f"{key}:"]
        if walks: parts.append(f"walking MAPE {sum(walks) / len(walks):.2f}% ({len(walks)} walks)")
        if low: parts.append(f"false steps {false} in {len(low)} recordings ({hours:.1f} h, {false / hours:.1f}/h)")
        if nocount: parts.append(f"no count: {len(nocount)} (min {min(nocount):.0f} steps/min)")
        if key == 'bangle_wrist':
            every = [abs(counts[r['file']] - int(r['truth_steps'])) / int(r['truth_steps']) * 100
                     for r in rows if r['file'].startswith('bangle_wrist/') and r['truth_steps'] and int(r['truth_steps']) >= 100]
            parts.append(f"(all {len(every)} walks with the long ones: {sum(every) / len(every):.2f}%)")
        if key.endswith('(long walks)'):
            parts.append(', '.join(f"{r['file']} {counts[r['file']]} of {r['truth_steps']}" for r in rs))
        print(' '.join(parts))
