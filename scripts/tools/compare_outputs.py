#!/usr/bin/env python3
"""Compares two snapshots of scripts/tools/snapshot_outputs.sh (before and after a change).

usage: compare_outputs.py BEFORE AFTER

sim/: every file, after removing what differs between two runs of the same binary: the
snapshot's own path, wall-clock times (keys or lines naming wall, elapsed or took; "N s"
step times), and the order of lines in logs of parallel jobs.
live/: each run's metrics.json, iteration by iteration: loss, accuracy, test loss, bytes per
tier, densities; and its config but for paths. Measured times are not compared.
Prints every file that differs and exits 1 if any does."""
import json
import os
import re
import sys

WALL = re.compile(r'wall|elapsed|took', re.I)


def strip_wall(x):
    if isinstance(x, dict):
        return {k: strip_wall(v) for k, v in x.items() if not WALL.search(k)}
    if isinstance(x, list):
        return [strip_wall(v) for v in x]
    return x


def sim_text(path, root):
    text = open(path, errors='replace').read().replace(root, 'SNAPSHOT')
    if path.endswith('.json'):
        try:
            return json.dumps(strip_wall(json.loads(text)), sort_keys=True)
        except ValueError:
            pass
    # A time's width moves the columns around it: spaces before it are collapsed too.
    lines = [re.sub(r' *\b[0-9.]+ s\b', ' T s', re.sub(r'^\[[#.]*\] *[0-9]+/[0-9]+', '', line))
             for line in text.splitlines() if not WALL.search(line)]
    return '\n'.join(sorted(lines) if path.endswith('.log') else lines)


def live_record(path, root):
    j = json.loads(open(path).read().replace(root, 'SNAPSHOT'))
    keys = ('loss', 'accuracy', 'test_loss', 'bytes', 'density', 'payload_density')
    its = [{k: it.get(k) for k in keys} for it in j.get('iterations', [])]
    return json.dumps({'iterations': its, 'config': j.get('config')}, sort_keys=True)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: compare_outputs.py BEFORE AFTER')
    a, b = (os.path.abspath(p) for p in sys.argv[1:])
    differing = compared = 0
    for dirpath, _, files in os.walk(a):
        for f in files:
            pa = os.path.join(dirpath, f)
            rel = os.path.relpath(pa, a)
            pb = os.path.join(b, rel)
            live = rel.startswith('live' + os.sep)
            if (live and f != 'metrics.json') or rel == '.prunex-snapshot':
                continue
            if not os.path.exists(pb):
                print('missing in', b + ':', rel)
                differing += 1
                continue
            read = live_record if live else sim_text
            compared += 1
            if read(pa, a) != read(pb, b):
                print('differs:', rel)
                differing += 1
    print(f'{compared} files compared, {differing} differ')
    sys.exit(1 if differing else 0)


main()
