"""Message size per iteration and total inter-node volume per model (paper Fig. 6).
Left: the inter-node (solid) and intra-node (dashed) payload one participating rank sends in
each iteration. Right: the inter-node payload summed over the run, beside what a dense
exchange would have carried (dense_inter_bytes) where the run records it."""

import sys

import common


def log_scale(ax, values):
    """Log axis when the runs differ by more than 100x, so small payloads stay visible."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) > 100 * min(positive):
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)


def draw(inputs, out, layer=None):
    runs = [common.load_metrics(p) for p in inputs]
    fig, axes = common.new_figure(1, 2, width=5.4)
    per_it, total = axes[0]
    peak = max(max(float(it["bytes"].get(t, 0)) for it in m["iterations"] for t in ("inter", "intra"))
               for m in runs)
    scale, unit = common.byte_unit(peak)
    colors = common.plt.get_cmap("tab10").colors
    totals = []
    for k, m in enumerate(runs):
        its = m["iterations"]
        x = [it["iteration"] for it in its]
        inter = [float(it["bytes"].get("inter", 0)) for it in its]
        intra = [float(it["bytes"].get("intra", 0)) for it in its]
        label = common.run_label(m)
        c = colors[k % len(colors)]
        per_it.plot(x, [b * scale for b in inter], "o-", ms=3, color=c, label=f"{label} inter-node")
        if any(intra):
            per_it.plot(x, [b * scale for b in intra], "s--", ms=3, color=c,
                        label=f"{label} intra-node")
        dense = sum(float(it.get("dense_inter_bytes", 0)) for it in its)
        totals.append((label, sum(inter), dense))
    per_it.set_xlabel("iteration")
    per_it.set_ylabel(f"message size per rank ({unit})")
    per_it.set_title("Message size per iteration")
    log_scale(per_it, [float(it["bytes"].get(t, 0)) * scale for m in runs for it in m["iterations"]
                       for t in ("inter", "intra")])
    per_it.legend()
    tscale, tunit = common.byte_unit(max(max(s, d) for _, s, d in totals))
    xs = range(len(totals))
    total.bar([i - 0.2 for i in xs], [s * tscale for _, s, _ in totals], 0.4, label="sent")
    if any(d > 0 for _, _, d in totals):
        total.bar([i + 0.2 for i in xs], [d * tscale for _, _, d in totals], 0.4, color="lightgray",
                  hatch="//", edgecolor="gray", label="dense equivalent")
    log_scale(total, [v * tscale for _, s, d in totals for v in (s, d)])
    total.set_xticks(list(xs), [label for label, _, _ in totals],
                     rotation=15 if len(totals) > 3 else 0)
    total.set_ylabel(f"total inter-node bytes per rank ({tunit})")
    total.set_title("Total inter-node volume over the run")
    total.legend()
    common.save(fig, out)
    parts = ", ".join(f"{label} {s:.0f} B" + (f" (dense {d:.0f} B)" if d > 0 else "")
                      for label, s, d in totals)
    return f"message-size: {len(runs)} runs, total inter-node bytes per rank: {parts}"


if __name__ == "__main__":
    sys.exit(common.main("message-size", draw))
