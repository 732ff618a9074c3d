#!/usr/bin/env python3
"""Predicted against measured, per phase: live `prunex train` runs next to their simulations.

    analysis/validate.py LIVE/metrics.json:SIM/metrics.json ... [--skip-first N]
                         [--markdown FILE] [--json FILE]

Each argument pairs a live run with the simulation of the same work (same model, strategy,
shape, steps, masks). For every phase the measured value is the mean (or, --stat median, the
median) over iterations (after the first --skip-first, default 1: start-up) of the phase's
critical path (slowest rank), and the predicted value the same of the simulation. A phase's error over several runs is the
geometric mean of the ratio errors, exp(mean |ln(predicted / measured)|) - 1, so a 2x over-
and a 2x under-prediction both count as 100%.

sync_wait (the barrier before each communication phase in --sync-phases runs: load
imbalance) has no simulated counterpart and is listed but not scored. Exit 2 with one line on
bad input.
"""
import argparse
import json
import math
import statistics
import os
import sys
import tempfile

SCORED_ORDER = ["local_compute", "intra_allreduce", "mask_sync", "inter_allreduce", "broadcast",
                "allreduce", "allgather", "compress", "projection", "pack", "unpack",
                "dual_update"]


def fail(msg):
    print(f"validate: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            m = json.load(f)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e})")
    if not isinstance(m, dict) or "iterations" not in m or "config" not in m:
        fail(f"{path}: not a metrics.json (no config / iterations)")
    return m


def phase_means(m, skip, path, stat):
    its = m["iterations"][skip:] if len(m["iterations"]) > skip else m["iterations"][-1:]
    if not its:
        fail(f"{path}: no iterations")
    values = {}
    for it in its:
        for name, p in it.get("phases", {}).items():
            values.setdefault(name, []).append(p["critical_path_s"])
    values["iteration"] = [it.get("wall_seconds", 0.0) for it in its]
    # A phase missing from an iteration (mask_sync after freezing) counts as absent there.
    return {k: (statistics.median(v) if stat == "median" else sum(v) / len(v))
            for k, v in values.items()}, len(its)


def label(m):
    c = m["config"]
    return f"{c.get('strategy')} {c.get('nodes')}x{c.get('gpus_per_node')}"


def ratio_error(pred, meas):
    return math.exp(abs(math.log(pred / meas))) - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", nargs="+", help="LIVE/metrics.json:SIM/metrics.json")
    ap.add_argument("--skip-first", type=int, default=1)
    ap.add_argument("--stat", choices=("mean", "median"), default="mean",
                    help="per phase over iterations: mean (what total time sees) or median "
                         "(robust to one-rank spikes from other processes on the host)")
    ap.add_argument("--markdown", help="write the table as Markdown here")
    ap.add_argument("--json", help="write the rows and per-phase errors as JSON here")
    a = ap.parse_args()
    if a.skip_first < 0:
        fail("--skip-first must be >= 0")

    rows = []  # (run, phase, measured, predicted)
    runs = []
    bytes_checked, bytes_differ = [0], []
    for pair in a.pairs:
        if pair.count(":") != 1:
            fail(f"'{pair}' is not LIVE:SIM")
        lp, sp = pair.split(":")
        live, sim = load(lp), load(sp)
        if live["config"].get("executor") == "simgrid":
            fail(f"{lp}: the first of a pair must be a live run")
        if sim["config"].get("executor") != "simgrid":
            fail(f"{sp}: the second of a pair must be a simulation")
        for key in ("strategy", "nodes", "gpus_per_node", "model"):
            if live["config"].get(key) != sim["config"].get(key):
                fail(f"{pair}: {key} differs ({live['config'].get(key)} vs "
                     f"{sim['config'].get(key)})")
        # Bytes per tier, iteration by iteration: the simulation sends what the live run sent.
        for li, si in zip(live["iterations"], sim["iterations"]):
            lb, sb = li.get("bytes", {}), si.get("bytes", {})
            bytes_checked[0] += 1
            if any(abs(lb.get(t, 0) - sb.get(t, 0)) > 1e-6 * max(1.0, lb.get(t, 0))
                   for t in ("intra", "inter", "world")):
                bytes_differ.append(f"{label(live)} iteration {li.get('iteration')}: live "
                                    f"{lb}, simulated {sb}")
        lm, n = phase_means(live, a.skip_first, lp, a.stat)
        sm, _ = phase_means(sim, a.skip_first, sp, a.stat)
        run = label(live)
        runs.append((run, n))
        for ph in sorted(set(lm) | set(sm), key=lambda p: (SCORED_ORDER + ["iteration", "sync_wait"]).index(p)
                         if p in SCORED_ORDER + ["iteration", "sync_wait"] else 99):
            rows.append((run, ph, lm.get(ph), sm.get(ph)))

    per_phase = {}
    for run, ph, meas, pred in rows:
        if ph == "sync_wait" or not meas or not pred:
            continue
        per_phase.setdefault(ph, []).append(abs(math.log(pred / meas)))
    summary = {ph: math.exp(sum(v) / len(v)) - 1 for ph, v in per_phase.items()}

    def fmt_s(x):
        if x is None:
            return "-"
        return f"{x * 1e3:.3f} ms" if x < 1 else f"{x:.3f} s"

    lines = ["| run | phase | measured | predicted | error |", "|---|---|---|---|---|"]
    for run, ph, meas, pred in rows:
        err = f"{100 * (pred / meas - 1):+.1f}%" if meas and pred else "-"
        lines.append(f"| {run} | {ph} | {fmt_s(meas)} | {fmt_s(pred)} | {err} |")
    lines += ["", "| phase | runs | geometric-mean error |", "|---|---|---|"]
    for ph in SCORED_ORDER + ["iteration"]:
        if ph in summary:
            lines.append(f"| {ph} | {len(per_phase[ph])} | {100 * summary[ph]:.1f}% |")
    lines += ["", f"Bytes per tier (intra, inter, world): identical in "
                  f"{bytes_checked[0] - len(bytes_differ)} of {bytes_checked[0]} iterations."]
    lines += [f"- differs: {d}" for d in bytes_differ]
    text = "\n".join(lines) + "\n"
    print(text, end="")

    def write(path, content):
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".validate.")
        with os.fdopen(fd, "w") as f:
            f.write(content)
        os.replace(tmp, path)

    if a.markdown:
        write(a.markdown, text)
    if a.json:
        write(a.json, json.dumps({
            "definition": "error = exp(mean over runs |ln(predicted / measured)|) - 1; values are "
                          f"{a.stat}s over iterations of the phase critical path",
            "stat": a.stat,
            "skip_first": a.skip_first,
            "rows": [{"run": r, "phase": p, "measured_s": m, "predicted_s": s}
                     for r, p, m, s in rows],
            "geomean_error": summary,
            "bytes_iterations_checked": bytes_checked[0],
            "bytes_differences": bytes_differ}, indent=2) + "\n")


if __name__ == "__main__":
    main()
