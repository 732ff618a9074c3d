#!/usr/bin/env python3
"""Time to a common accuracy of live runs (metrics.json): the highest test accuracy every run
reaches, and the wall time (sum of the iterations' wall_seconds) each takes to reach it.

usage: time_to_accuracy.py RUN_DIR...   (each holding metrics.json; named by its folder)
Prints per run: inter-node bytes per iteration against dense, time to the common accuracy,
final accuracy; with runs named hsadmm and ddp, the ratios of time and bytes.
scripts/studies/run_emulated.sh imports common_accuracy and time_to for its table.
"""
import json
import os
import sys


def common_accuracy(runs):
    """The highest accuracy every run reaches (runs: metrics.json objects)."""
    return min(max(i.get("accuracy") or 0.0 for i in m["iterations"]) for m in runs)


def time_to(m, accuracy):
    """Wall seconds until the run first reaches `accuracy` (None if it never does)."""
    t = 0.0
    for i in m["iterations"]:
        t += i["wall_seconds"]
        if (i.get("accuracy") or 0.0) >= accuracy:  # not evaluated: null
            return t
    return None


def main(dirs):
    runs = {os.path.basename(os.path.normpath(d)): json.load(open(os.path.join(d, "metrics.json")))
            for d in dirs}
    common = common_accuracy(runs.values())
    for name, m in runs.items():
        s = m["summary"]
        print(f"  {name:7s} inter-node {s['inter_node_bytes_per_iteration'] / 1e6:7.3f} MB per "
              f"iteration (dense {s['dense_inter_node_bytes_per_iteration'] / 1e6:.3f}), "
              f"{time_to(m, common):6.1f} s to {100 * common:.2f}% test accuracy, "
              f"final {100 * m['iterations'][-1]['accuracy']:.2f}%")
    if {"hsadmm", "ddp"} <= set(runs):
        h, d = runs["hsadmm"], runs["ddp"]
        sooner = time_to(d, common) / time_to(h, common)
        fewer = (d["summary"]["inter_node_bytes_per_iteration"] /
                 h["summary"]["inter_node_bytes_per_iteration"])
        print(f"  H-SADMM reaches {100 * common:.2f}% {sooner:.1f}x sooner than DDP, sending "
              f"{fewer:.0f}x fewer inter-node bytes")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    sys.exit(main(sys.argv[1:]) if len(sys.argv) > 1 else (print(__doc__, file=sys.stderr), 2)[1])
