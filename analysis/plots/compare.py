"""Two or more runs side by side (a what-if against its baseline, one strategy against another):
each named by the settings its config differs in, with its time per iteration split into
computing and exposed communication (the recorded phases' critical paths: an all-reduce that
overlaps backward counts its exposed part) and its inter-node bytes per iteration, all against
the first run. A table on stdout, the same numbers as two panels."""

import sys

import common


def reading(m):
    """(time per iteration, {phase: seconds}, communication phases, inter-node bytes) of a run,
    from its summary (simulate's and train's alike)."""
    s = m["summary"]
    path = m["_path"]
    t = s.get("time_per_iteration_s")
    common.require(common.finite(t) and t > 0, path, "summary.time_per_iteration_s missing")
    phases = s.get("phase_seconds")
    common.require(isinstance(phases, dict) and all(common.finite(v) for v in phases.values()),
                   path, "summary.phase_seconds missing")
    inter = s.get("inter_node_bytes_per_iteration")
    common.require(common.finite(inter), path, "summary.inter_node_bytes_per_iteration missing")
    order = [p for p in s.get("phase_order", []) if p in phases]
    order += [p for p in phases if p not in order]
    return t, {p: float(phases[p]) for p in order}, set(common.comm_phases(m)), float(inter)


def draw(inputs, out, layer=None):
    if len(inputs) < 2:
        raise common.InputError("compare: give two or more metrics.json (the first is the baseline)")
    runs = [common.load_metrics(p) for p in inputs]
    names = common.setting_labels(inputs, [m["config"] for m in runs])
    rows = []
    for path, m in zip(inputs, runs):
        t, phases, comm, inter = reading(m)
        exposed = sum(v for p, v in phases.items() if p in comm)
        rows.append({"name": names[path], "t": t, "phases": phases, "comm": comm,
                     "exposed": exposed, "other": t - exposed, "inter": inter})
    base = rows[0]
    width = max(len(r["name"]) for r in rows)
    lines = [f"compare: {len(rows)} runs, each named by the settings it differs in; ratios "
             "against the first",
             f"  {'run':<{width}}  {'per iteration':>13}  {'ratio':>6}  {'compute+waits':>13}  "
             f"{'exposed comm':>12}  {'inter-node MB':>13}  {'ratio':>6}"]
    for r in rows:
        ratio_b = r["inter"] / base["inter"] if base["inter"] > 0 else float("nan")
        lines.append(f"  {r['name']:<{width}}  {common.fmt_seconds(r['t']):>13}  "
                     f"{r['t'] / base['t']:>5.2f}x  {common.fmt_seconds(r['other']):>13}  "
                     f"{common.fmt_seconds(r['exposed']):>12}  {r['inter'] / 1e6:>13.3f}  "
                     f"{ratio_b:>5.2f}x")

    scale, unit = common.time_unit(max(r["t"] for r in rows))
    fig, axes = common.new_figure(cols=2, width=max(4.5, 1.3 * len(rows) + 2.5))
    ax_t, ax_b = axes[0]
    x = list(range(len(rows)))
    labels = [r["name"].replace(", ", "\n") for r in rows]
    order = []
    for r in rows:
        order += [p for p in r["phases"] if p not in order]
    bottoms = [0.0] * len(rows)
    for phase in order:
        heights = [r["phases"].get(phase, 0.0) * scale for r in rows]
        if not any(heights):
            continue
        ax_t.bar(x, heights, 0.6, bottom=bottoms, color=common.phase_color(phase),
                 label=common.phase_label(phase))
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    for i, r in enumerate(rows):
        ax_t.text(i, bottoms[i], f"{r['t'] * scale:.3g} {unit}\n{r['t'] / base['t']:.2f}x",
                  ha="center", va="bottom", fontsize=8)
    ax_t.set_ylim(0, 1.2 * max(bottoms))  # room for the totals above the bars
    ax_t.set_xticks(x, labels, fontsize=8)
    ax_t.set_ylabel(f"time per iteration ({unit}), by phase")
    ax_t.set_title("Time per iteration (exposed communication)")
    ax_t.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    bscale, bunit = common.byte_unit(max(r["inter"] for r in rows) or 1.0)
    ax_b.bar(x, [r["inter"] * bscale for r in rows], 0.6, color="#777777")
    ax_b.set_xticks(x, labels, fontsize=8)
    ax_b.set_ylabel(f"inter-node bytes per iteration ({bunit})")
    ax_b.set_title("Inter-node bytes per iteration")
    common.save(fig, out)
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(common.main("compare", draw))
