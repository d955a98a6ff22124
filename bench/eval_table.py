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
    elif name.startswith('bangle_wrist/'):
        add('wrist Bangle.js walks (>= 100 true steps)' if (f['truth'] or 0) >= 100 else 'wrist Bangle.js, under 100 true steps', f)
    elif (f['truth'] or 0) > 0:
        add('wrist walking, all', f)
        add('wrist walking ' + name.split('/')[1].split('_')[0], f)
    else:
        add('wrist PC work (0 true steps)', f)
print('| group | files | true steps | counted | MAPE | false steps per file |')
print('|---|---|---|---|---|---|')
order = ['Oxford phone', 'Oxford user', 'Oxford placement', 'wrist walking, all', 'wrist walking', 'wrist PC', 'wrist Bangle']
rank = lambda n: (order.index(next(p for p in order if n.startswith(p))), n)
for name, fs in sorted(groups.items(), key=lambda kv: rank(kv[0])):
    truth = sum(f['truth'] or 0 for f in fs)
    counted = sum(f['counted'] for f in fs)
    if truth > 0 and 'under 100' not in name:
        mape = statistics.mean(abs(f['counted'] - f['truth']) / f['truth'] * 100 for f in fs)
        print(f'| {name} | {len(fs)} | {truth} | {counted} | {mape:.2f} % | |')
    else:
        false = sum(max(0, f['counted'] - (f['truth'] or 0)) for f in fs)
        print(f'| {name} | {len(fs)} | {truth} | {counted} | | {false / len(fs):.2f} |')
summary = report['summary']
print(f"\nWalks (>= 100 true steps): MAPE {summary['mape_percent']:.2f} % ({summary['walks']} files); "
      f"false steps {summary['false_steps']} in {summary['low_truth_files']} files under 100 true steps "
      f"({summary['false_steps_per_hour']:.1f} per hour)")
