#!/usr/bin/env python3
"""Predicted against measured, per phase: live `prunex train` runs next to their simulations.

    analysis/score_prediction.py LIVE/metrics.json:SIM/metrics.json ... [--skip-first N]
                         [--repeat LIVE_A/metrics.json:LIVE_B/metrics.json ...]
                         [--markdown FILE] [--json FILE]

Each argument pairs a live run with the simulation of the same work (same model, strategy,
shape, steps, masks). For every phase the measured value is the mean (or, --stat median, the
median) over iterations (after the first --skip-first, default 1: start-up) of the phase's
critical path (slowest rank), and the predicted value the same of the simulation. A phase's error over several runs is the
geometric mean of the ratio errors, exp(mean |ln(predicted / measured)|) - 1, so a 2x over-
and a 2x under-prediction both count as 100%.

--repeat pairs two live runs of the same work, one after the other, and scores the first as a
prediction of the second the same way: the host's own run-to-run repeatability, a floor under
what any model of it can reach (a model that predicted the mean of the runs exactly would still
be off by about half of it in log terms, for independent noise). The per-phase table shows it
beside the model's error.

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

# Phases in table order: compute, then communication, then memory passes. The names come from
# the records (summary.phase_order, summary.communication_phases, engine/phases.h); these
# lists only serve records written before those fields (2026-11-25).
LEGACY_PHASES = ["local_compute", "intra_allreduce", "mask_sync", "inter_allreduce", "broadcast",
                 "allreduce", "allgather", "compress", "projection", "pack", "unpack",
                 "dual_update"]
LEGACY_COMM = ["intra_allreduce", "mask_sync", "inter_allreduce", "broadcast", "allreduce",
               "allgather"]
SCORED_ORDER = list(LEGACY_PHASES)
INTRA_NODE_PHASES = {"intra_allreduce", "broadcast"}
POOLED = "communication (pooled)"
POOLED_INTER = "communication between nodes (pooled)"
COMM_PHASES = list(LEGACY_COMM)


def set_phase_order(m):
    """Table order from a record: local_compute, the communication phases, the rest."""
    s = m.get("summary", {})
    phases = [p for p in s.get("phase_order", LEGACY_PHASES) if p != "sync_wait"]
    comm = s.get("communication_phases", LEGACY_COMM)
    COMM_PHASES[:] = [p for p in comm if p != "sync_wait"]
    SCORED_ORDER[:] = sorted(phases, key=lambda p: (p != "local_compute", p not in comm,
                                                    phases.index(p)))


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
    m["config"] = canonical_config(m["config"])
    return m


def canonical_config(c):
    """settings/config_fields.h canonical_config: keys as flag names (underscores read as
    dashes, an old record's "backend" as "executor"), so records written before 2026-11-25
    read the same. Today "backend" is also train's option (mpi or nccl), beside "executor"."""
    if not isinstance(c, dict):
        return c
    out = {}
    for key, value in c.items():
        k = key.replace("_", "-")
        if k == "backend" and "executor" not in c and value != "nccl":
            k = "executor"
        if k not in out or key == k:
            out[k] = value
    if "gpus_per_node" in c and out.get("gpus-per-node", 0) == 0:
        out["gpus-per-node"] = c["gpus_per_node"]
    return out


def phase_means(m, skip, path, stat):
    its = m["iterations"][skip:] if len(m["iterations"]) > skip else m["iterations"][-1:]
    if not its:
        fail(f"{path}: no iterations")
    values = {}
    for it in its:
        for name, p in it.get("phases", {}).items():
            values.setdefault(name, []).append(p["critical_path_s"])
    values["iteration"] = [it.get("wall_seconds", 0.0) for it in its]
    # Runs with --sync-phases wait at a world barrier before every communication phase (the
    # measurement's, not the training's: the simulation has none). Over slow links with
    # latency those barriers cost round trips; "iteration, barriers out" takes them off: the
    # wall time less the barrier time of the rank that waited least (the last to arrive, so
    # its wait is the barriers' own cost, not a faster rank's idle time).
    if any("sync_wait" in it.get("phases", {}) for it in its):
        values["iteration, barriers out"] = [
            it.get("wall_seconds", 0.0)
            - min(it.get("phases", {}).get("sync_wait", {}).get("per_rank_s", [0.0]) or [0.0])
            for it in its]
    # A phase missing from an iteration (mask_sync after freezing) counts as absent there.
    return {k: (statistics.median(v) if stat == "median" else sum(v) / len(v))
            for k, v in values.items()}, len(its)


def label(m):
    c = m["config"]
    text = f"{c.get('strategy')} {c.get('nodes')}x{c.get('gpus-per-node')}"
    emu = c.get("emulation")
    if isinstance(emu, dict) and "rate_mbits" in emu:  # a live run under `prunex emulate`
        text += f" @{emu['rate_mbits']:g} Mbit/s"
    elif isinstance(c.get("topology"), str) and c["topology"].startswith("emulated-"):
        text += f" ({c['topology']})"
    return text


def ratio_error(pred, meas):
    return math.exp(abs(math.log(pred / meas))) - 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", nargs="+", help="LIVE/metrics.json:SIM/metrics.json")
    ap.add_argument("--skip-first", type=int, default=1)
    ap.add_argument("--stat", choices=("mean", "median"), default="mean",
                    help="per phase over iterations: mean (what total time sees) or median "
                         "(robust to one-rank spikes from other processes on the host)")
    ap.add_argument("--repeat", action="append", default=[], metavar="LIVE_A:LIVE_B",
                    help="two live runs of the same work: the first scored as a prediction "
                         "of the second (run-to-run repeatability)")
    ap.add_argument("--markdown", help="write the table as Markdown here")
    ap.add_argument("--json", help="write the rows and per-phase errors as JSON here")
    a = ap.parse_args()
    if a.skip_first < 0:
        fail("--skip-first must be >= 0")

    def ordered(phases):
        order = SCORED_ORDER + ["iteration", "iteration, barriers out", "sync_wait"]
        return sorted(phases, key=lambda p: order.index(p) if p in order else 99)

    def pair_paths(pair, what):
        if pair.count(":") != 1:
            fail(f"'{pair}' is not {what}")
        return pair.split(":")

    def same_work(pair, a_cfg, b_cfg):
        for key in ("strategy", "nodes", "gpus-per-node", "model"):
            if a_cfg.get(key) != b_cfg.get(key):
                fail(f"{pair}: {key} differs ({a_cfg.get(key)} vs {b_cfg.get(key)})")

    seen = {}

    def run_label(m):
        # Repeats of the same work are numbered: "hsadmm 2x2", "hsadmm 2x2 #2".
        base = label(m)
        seen[base] = seen.get(base, 0) + 1
        return base if seen[base] == 1 else f"{base} #{seen[base]}"

    rows = []  # (run, phase, measured, predicted)
    bytes_checked, bytes_differ = [0], []
    for pair in a.pairs:
        lp, sp = pair_paths(pair, "LIVE:SIM")
        live, sim = load(lp), load(sp)
        set_phase_order(live)
        if live["config"].get("executor") == "simgrid":
            fail(f"{lp}: the first of a pair must be a live run")
        if sim["config"].get("executor") != "simgrid":
            fail(f"{sp}: the second of a pair must be a simulation")
        same_work(pair, live["config"], sim["config"])
        run = run_label(live)
        # Bytes per tier, iteration by iteration: the simulation sends what the live run sent.
        for li, si in zip(live["iterations"], sim["iterations"]):
            lb, sb = li.get("bytes", {}), si.get("bytes", {})
            bytes_checked[0] += 1
            if any(abs(lb.get(t, 0) - sb.get(t, 0)) > 1e-6 * max(1.0, lb.get(t, 0))
                   for t in ("intra", "inter", "world")):
                bytes_differ.append(f"{run} iteration {li.get('iteration')}: live "
                                    f"{lb}, simulated {sb}")
        lm, _ = phase_means(live, a.skip_first, lp, a.stat)
        sm, _ = phase_means(sim, a.skip_first, sp, a.stat)
        if "iteration, barriers out" in lm:
            sm["iteration, barriers out"] = sm["iteration"]
        for ph in ordered(set(lm) | set(sm)):
            rows.append((run, ph, lm.get(ph), sm.get(ph)))

    repeat_rows = []  # (run, phase, first run, second run)
    for pair in a.repeat:
        ap_, bp = pair_paths(pair, "LIVE_A:LIVE_B")
        ra, rb = load(ap_), load(bp)
        for p, m in ((ap_, ra), (bp, rb)):
            if m["config"].get("executor") == "simgrid":
                fail(f"{p}: --repeat pairs two live runs")
        same_work(pair, ra["config"], rb["config"])
        am, _ = phase_means(ra, a.skip_first, ap_, a.stat)
        bm, _ = phase_means(rb, a.skip_first, bp, a.stat)
        for ph in ordered(set(am) & set(bm)):
            repeat_rows.append((label(ra), ph, am[ph], bm[ph]))

    def geomean_errors(scored):
        per = {}
        for _, ph, meas, pred in scored:
            if ph == "sync_wait" or not meas or not pred:
                continue
            per.setdefault(ph, []).append(abs(math.log(pred / meas)))
        return per, {ph: math.exp(sum(v) / len(v)) - 1 for ph, v in per.items()}

    def add_pooled(per, summary):
        # Every communication phase of every run pooled: one number for "the collectives";
        # and those that cross nodes (all but H-SADMM's intra-node all-reduce and broadcast).
        for name, keep in ((POOLED, lambda ph: True),
                           (POOLED_INTER, lambda ph: ph not in INTRA_NODE_PHASES)):
            pooled = [v for ph, vs in per.items() if ph in COMM_PHASES and keep(ph) for v in vs]
            if pooled:
                per[name] = pooled
                summary[name] = math.exp(sum(pooled) / len(pooled)) - 1

    per_phase, summary = geomean_errors(rows)
    add_pooled(per_phase, summary)
    # The second run is the "measured" one: the first predicts it.
    per_repeat, repeat_summary = geomean_errors(
        [(r, ph, second, first) for r, ph, first, second in repeat_rows])
    add_pooled(per_repeat, repeat_summary)

    def fmt_s(x):
        if x is None:
            return "-"
        return f"{x * 1e3:.3f} ms" if x < 1 else f"{x:.3f} s"

    lines = ["| run | phase | measured | predicted | error |", "|---|---|---|---|---|"]
    for run, ph, meas, pred in rows:
        err = f"{100 * (pred / meas - 1):+.1f}%" if meas and pred else "-"
        lines.append(f"| {run} | {ph} | {fmt_s(meas)} | {fmt_s(pred)} | {err} |")
    if repeat_rows:
        lines += ["", "| run | phase | first run | second run | difference |", "|---|---|---|---|---|"]
        for run, ph, first, second in repeat_rows:
            if ph != "sync_wait" and first and second:
                lines.append(f"| {run} | {ph} | {fmt_s(first)} | {fmt_s(second)} | "
                             f"{100 * (second / first - 1):+.1f}% |")
    head = "| phase | runs | geometric-mean error |"
    rule = "|---|---|---|"
    if repeat_rows:
        head += " live repeat (pairs) |"
        rule += "---|"
    lines += ["", head, rule]
    for ph in SCORED_ORDER + [POOLED, POOLED_INTER, "iteration", "iteration, barriers out"]:
        if ph in summary:
            line = f"| {ph} | {len(per_phase[ph])} | {100 * summary[ph]:.1f}% |"
            if repeat_rows:
                line += (f" {100 * repeat_summary[ph]:.1f}% ({len(per_repeat[ph])}) |"
                         if ph in repeat_summary else " - |")
            lines.append(line)
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
            "repeat_rows": [{"run": r, "phase": p, "first_s": x, "second_s": y}
                            for r, p, x, y in repeat_rows],
            "repeat_geomean_error": repeat_summary,
            "bytes_iterations_checked": bytes_checked[0],
            "bytes_differences": bytes_differ}, indent=2) + "\n")


if __name__ == "__main__":
    main()
