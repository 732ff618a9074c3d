"""Per-iteration communication latency per strategy (paper Fig. 7): the sum of the
communication phases' critical paths (slowest rank) in each iteration, one line per run. The
records time what a rank waits for: an all-reduce that overlaps backward (DDP's buckets)
counts only its exposed part, not its busy time, and the axis says so."""

import sys

import common


def draw(inputs, out, layer=None, reference=None):
    ref_label, ref = common.load_reference(reference) if reference else (None, {})
    runs = [common.load_metrics(p) for p in inputs]
    series = [(label, [it["iteration"] for it in m["iterations"]],
               [common.comm_seconds(it) for it in m["iterations"]], m["config"].get("strategy"))
              for label, m in zip(common.run_labels(runs), runs)]
    refs = ref.get("comm_seconds", [])
    top = max([max(v) for _, _, v, _ in series] + [v for _, _, v in refs]) or 1.0
    scale, unit = common.time_unit(top)
    fig, axes = common.new_figure()
    ax = axes[0][0]
    colour = {}
    for label, x, v, strategy in series:
        line = ax.plot(x, [s * scale for s in v], "o-", ms=3, label=label)[0]
        colour.setdefault(strategy, line.get_color())
    # The reference's values: a dashed line each, in its strategy's colour.
    for strategy, _, value in refs:
        ax.axhline(value * scale, ls="--", lw=1.2, color=colour.get(strategy, "black"),
                   label=f"{strategy}: {ref_label}")
    common.iteration_axis(ax)
    ax.set_ylabel(f"exposed communication per iteration ({unit})")
    ax.set_title("Communication latency per iteration (critical path;\n"
                 "overlapped all-reduces: their part not hidden behind backward)")
    common.log_if_wide(ax, [s * scale for _, _, v, _ in series for s in v]
                       + [v * scale for _, _, v in refs])
    ax.legend()
    common.save(fig, out)
    means = ", ".join(f"{label} {common.fmt_seconds(sum(v) / len(v))}"
                      for label, _, v, _ in series)
    drawn = "; ".join(f"{ref_label}: {s} {common.fmt_seconds(v)}" for s, _, v in refs)
    return (f"comm-latency: {len(runs)} runs, mean per iteration: {means}"
            + (f"; {drawn}" if drawn else ""))


if __name__ == "__main__":
    sys.exit(common.main("comm-latency", draw, takes_reference=True))
