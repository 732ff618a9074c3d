#!/usr/bin/env python3
"""Two metrics.json files of the same run, iteration by iteration: which recorded fields
differ, times aside (phases, wall_seconds). Prints one line per iteration; exit 1 if any
differs.

  compare_records.py A/metrics.json B/metrics.json
"""
import json
import sys

TIMING = {"phases", "wall_seconds"}


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    runs = []
    for path in sys.argv[1:3]:
        try:
            with open(path) as f:
                run = json.load(f)
        except (OSError, ValueError) as e:
            print(f"compare_records.py: {path}: {e}", file=sys.stderr)
            return 2
        its = run.get("iterations") if isinstance(run, dict) else None
        if not isinstance(its, list) or not all(isinstance(i, dict) and "iteration" in i
                                                for i in its):
            print(f"compare_records.py: {path}: not a metrics.json (no list of iterations)",
                  file=sys.stderr)
            return 2
        runs.append(run["iterations"])
    a, b = runs
    same = len(a) == len(b)
    for x, y in zip(a, b):
        diff = sorted(k for k in set(x) | set(y) if k not in TIMING and x.get(k) != y.get(k))
        same &= not diff
        print(f"iteration {x['iteration']}: " + ("the same record (times aside)" if not diff
              else "differs in " + ", ".join(diff) +
              (f" (loss {x['loss']!r} vs {y['loss']!r})" if "loss" in x and "loss" in y else "")))
    if len(a) != len(b):
        print(f"{len(a)} against {len(b)} iterations")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
