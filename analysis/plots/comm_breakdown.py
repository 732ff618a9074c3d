"""Communication breakdown by phase (paper Fig. 8): for each run, the mean critical path of
every communication phase per iteration, stacked, with each phase's share written on it. An
all-reduce that overlaps backward (DDP's buckets) counts its exposed part only, as recorded."""

import sys

import common


def phase_means(m):
    """phase -> mean over iterations of its critical path (seconds); communication phases only."""
    its = m["iterations"]
    present = [p for p in common.comm_phases(m) if any(p in it["phases"] for it in its)]
    return {p: sum(float(it["phases"][p]["critical_path_s"]) for it in its if p in it["phases"])
            / len(its) for p in present}


def draw(inputs, out, layer=None, reference=None):
    ref_label, ref = common.load_reference(reference) if reference else (None, {})
    runs = [common.load_metrics(p) for p in inputs]
    means = [(label, phase_means(m)) for label, m in zip(common.run_labels(runs), runs)]
    for (label, ph), m in zip(means, runs):
        common.require(ph, m["_path"], "no communication phases recorded")
    # The reference's shares (the paper's Fig. 8: H-SADMM's phases): one more bar, its
    # shares of the first hsadmm run's total, so the split compares at a glance.
    shares = {phase: v for phase, _, v in ref.get("phase_share", [])}
    if shares:
        hs = [i for i, m in enumerate(runs) if m["config"].get("strategy") == "hsadmm"]
        common.require(hs, reference, "phase shares to draw, but no hsadmm run among the inputs")
        total = sum(means[hs[0]][1].values())
        means.append((f"hsadmm: {ref_label}'s shares", {p: f * total for p, f in shares.items()}))
        runs.append(runs[hs[0]])
    scale, unit = common.time_unit(max(sum(ph.values()) for _, ph in means) or 1.0)
    fig, axes = common.new_figure(width=max(5.0, 1.6 * len(runs) + 3))
    ax = axes[0][0]
    ax.set_axisbelow(True)
    x = range(len(means))
    tallest = max(sum(ph.values()) for _, ph in means) * scale
    bottoms = [0.0] * len(means)
    order = []
    for m in runs:
        order += [p for p in common.comm_phases(m) if p not in order]
    for phase in order:
        heights = [ph.get(phase, 0.0) * scale for _, ph in means]
        if not any(heights):
            continue
        bars = ax.bar(x, heights, 0.6, bottom=bottoms, color=common.phase_color(phase),
                      label=common.phase_label(phase))
        for i, (b, h) in enumerate(zip(bars, heights)):
            total = sum(means[i][1].values()) * scale
            if h > 0.05 * tallest:  # label only segments tall enough to read
                ax.text(b.get_x() + b.get_width() / 2, bottoms[i] + h / 2,
                        f"{100 * h / total:.0f}%", ha="center", va="center", fontsize=8,
                        color="white")
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for i, top in enumerate(bottoms):
        ax.text(i, top, f"{top:.3g} {unit}", ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, 1.1 * tallest)  # room for the totals above the bars
    ax.set_xticks(list(x), [label for label, _ in means], rotation=15 if len(runs) > 3 else 0)
    ax.set_ylabel(f"exposed communication per iteration ({unit})")
    ax.set_title("Communication breakdown by phase (mean critical path)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    common.save(fig, out)
    parts = []
    for label, ph in means:
        total = sum(ph.values())
        shares = " ".join(f"{p} {100 * s / total:.1f}%" for p, s in ph.items()) if total else "-"
        parts.append(f"{label}: {common.fmt_seconds(total)} ({shares})")
    return "comm-breakdown: " + "; ".join(parts)


if __name__ == "__main__":
    sys.exit(common.main("comm-breakdown", draw, takes_reference=True))
