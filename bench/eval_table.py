#!/usr/bin/env python3
"""Prints the accuracy table of bench/RESULTS.md from `steptweet eval --json` on the shared manifest.

Usage: eval_table.py [STEPTWEET] [MANIFEST]   (defaults: .build/release/steptweet, ../shared/data/steps/manifest.csv)
Groups: Oxford phone recordings by user (from the file name) and by placement; wrist recordings by rate and activity.
"""
import csv, json, subprocess, sys, statistics
binary = sys.argv[1] if len(sys.argv) > 1 else '.build/release/steptweet'
manifest = sys.argv[2] if len(sys.argv) > 2 else '../shared/data/steps/manifest.csv'
report = json.loads(subprocess.run([binary, 'eval', '--json', manifest], check=True, capture_output=True, text=True).stdout)
meta = {r['file']: r for r in csv.DictReader(open(manifest, newline=''))}
groups = {}
def add(name, f):
    groups.setdefault(name, []).append(f)
for f in report['files']:
    name = f['file']
    if name.startswith('oxford_opt/'):
        add('Oxford phone, all', f)
        add('Oxford user ' + name.split('_')[2], f)
        add('Oxford placement ' + meta[name]['placement'], f)
    elif f['truth'] > 0:
        add('wrist walking, all', f)
        add('wrist walking ' + name.split('/')[1].split('_')[0], f)
    else:
        add('wrist PC work (0 true steps)', f)
print('| group | files | true steps | counted | MAPE | false steps per file |')
print('|---|---|---|---|---|---|')
rank = lambda n: (['Oxford phone', 'Oxford user', 'Oxford placement', 'wrist walking, all', 'wrist walking', 'wrist PC'].index(next(p for p in ['Oxford phone', 'Oxford user', 'Oxford placement', 'wrist walking, all', 'wrist walking', 'wrist PC'] if n.startswith(p))), n)
for name, fs in sorted(groups.items(), key=lambda kv: rank(kv[0])):
    truth = sum(f['truth'] for f in fs)
    counted = sum(f['counted'] for f in fs)
    if truth > 0:
        mape = statistics.mean(abs(f['counted'] - f['truth']) / f['truth'] * 100 for f in fs)
        print(f'| {name} | {len(fs)} | {truth} | {counted} | {mape:.2f} % | |')
    else:
        print(f'| {name} | {len(fs)} | 0 | {counted} | | {counted / len(fs):.2f} |')
print(f"\nAll files with steps: MAPE {report['mape_percent']:.2f} % ({report['scored_files']} files)")
