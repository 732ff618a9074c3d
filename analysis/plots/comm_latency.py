"""Per-iteration communication latency per strategy (paper Fig. 7): the sum of the
communication phases' critical paths (slowest rank) in each iteration, one line per run. The
records time what a rank waits for: an all-reduce that overlaps backward (DDP's buckets)
counts only its exposed part, not its busy time, and the axis says so."""

import sys

import common


def draw(inputs, out, layer=None):
    runs = [common.load_metrics(p) for p in inputs]
    series = [(label, [it["iteration"] for it in m["iterations"]],
               [common.comm_seconds(it) for it in m["iterations"]])
              for label, m in zip(common.run_labels(runs), runs)]
    scale, unit = common.time_unit(max(max(v) for _, _, v in series) or 1.0)
    fig, axes = common.new_figure()
    ax = axes[0][0]
    for label, x, v in series:
        ax.plot(x, [s * scale for s in v], "o-", ms=3, label=label)
    common.iteration_axis(ax)
    ax.set_ylabel(f"exposed communication per iteration ({unit})")
    ax.set_title("Communication latency per iteration (critical path;\n"
                 "overlapped all-reduces: their part not hidden behind backward)")
    ax.set_ylim(bottom=0)
    ax.legend()
    common.save(fig, out)
    means = ", ".join(f"{label} {common.fmt_seconds(sum(v) / len(v))}" for label, _, v in series)
    return f"comm-latency: {len(runs)} runs, mean per iteration: {means}"


if __name__ == "__main__":
    sys.exit(common.main("comm-latency", draw))
