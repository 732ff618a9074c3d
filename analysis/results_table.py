#!/usr/bin/env python3
"""Markdown table of live runs (metrics.json files): accuracy, time, bytes, engine share.

usage: results_table.py OUT/metrics.json... (one per strategy)
The engine's own work is projection, mask union (mask_sync), pack, unpack and dual_update
(consensus, duals, residuals), as a share of the iteration's wall time (critical paths).
"""
import json
import sys

ENGINE = ("projection", "mask_sync", "pack", "unpack", "dual_update")


def row(path):
    m = json.load(open(path))
    c, s, its = m["config"], m["summary"], m["iterations"]
    wall = sum(it["wall_seconds"] for it in its)
    # Iterations that ran on a frozen mask: those after the first one flagged mask_frozen
    # (the flag says the mask is frozen for the iterations that follow).
    frozen = [b for a, b in zip(its, its[1:]) if a.get("mask_frozen")]
    after = (sum(it["bytes"]["inter"] for it in frozen) / len(frozen)) if frozen else None
    dense = s["dense_inter_node_bytes_per_iteration"]
    engine = {p: s["phase_seconds"].get(p, 0.0) / s["time_per_iteration_s"] for p in ENGINE
              if p in s["phase_seconds"]}
    return {
        "strategy": c["strategy"], "iterations": len(its), "epochs": c.get("local-epochs"),
        "acc": 100 * s["test_accuracy"], "wall_min": (wall + s.get("evaluation_seconds", 0)) / 60,
        "iter_s": s["time_per_iteration_s"], "inter_mb": s["inter_node_bytes_per_iteration"] / 1e6,
        "dense_mb": dense / 1e6,
        "after_freeze": (100 * after / dense) if after is not None and dense else None,
        "engine": engine,
    }


def main(paths):
    rows = [row(p) for p in paths]
    print("| strategy | outer iterations | test accuracy | training + eval time | s per iteration "
          "| inter-node MB per iteration (dense) | after freeze, % of dense | engine work, % of iteration |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        eng = ", ".join(f"{k} {100 * v:.4f}%" for k, v in r["engine"].items()) or "-"
        af = f"{r['after_freeze']:.1f}%" if r["after_freeze"] is not None else "-"
        print(f"| {r['strategy']} | {r['iterations']} | {r['acc']:.2f}% | {r['wall_min']:.1f} min "
              f"| {r['iter_s']:.1f} | {r['inter_mb']:.3f} ({r['dense_mb']:.3f}) | {af} | {eng} |")


if __name__ == "__main__":
    main(sys.argv[1:])
