"""Message size per iteration and total inter-node volume per model (paper Fig. 6).
Left: the inter-node (solid) and intra-node (dashed) payload one participating rank sends in
each iteration. Right: the inter-node payload summed over the run, beside what a dense
exchange would have carried (dense_inter_bytes) where the run records it."""

import sys

import common


def draw(inputs, out, layer=None):
    runs = [common.load_metrics(p) for p in inputs]
    fig, axes = common.new_figure(1, 2, width=5.4)
    per_it, total = axes[0]
    sizes = [float(it["bytes"].get(t, 0)) for m in runs for it in m["iterations"]
             for t in ("inter", "intra")]
    peak = max(sizes)
    scale, unit = common.byte_unit(peak)
    colors = common.plt.get_cmap("tab10").colors
    totals = []
    labels = common.run_labels(runs)
    for k, m in enumerate(runs):
        its = m["iterations"]
        x = [it["iteration"] for it in its]
        inter = [float(it["bytes"].get("inter", 0)) for it in its]
        intra = [float(it["bytes"].get("intra", 0)) for it in its]
        label = labels[k]
        c = colors[k % len(colors)]
        per_it.plot(x, [b * scale for b in inter], "o-", ms=3, color=c, label=f"{label} inter-node")
        if any(intra):
            per_it.plot(x, [b * scale for b in intra], "s--", ms=3, color=c,
                        label=f"{label} intra-node")
        dense = sum(float(it.get("dense_inter_bytes", 0)) for it in its)
        totals.append((label, sum(inter), dense))
    common.iteration_axis(per_it)
    per_it.set_ylabel(f"message size per rank ({unit})")
    per_it.set_title("Message size per iteration")
    common.log_if_wide(per_it, [b * scale for b in sizes])
    per_it.legend()
    tscale, tunit = common.byte_unit(max(max(s, d) for _, s, d in totals))
    xs = range(len(totals))
    total.bar([i - 0.2 for i in xs], [s * tscale for _, s, _ in totals], 0.4, label="sent")
    if any(d > 0 for _, _, d in totals):
        total.bar([i + 0.2 for i in xs], [d * tscale for _, _, d in totals], 0.4, color="lightgray",
                  hatch="//", edgecolor="gray", label="dense equivalent")
    common.log_if_wide(total, [v * tscale for _, s, d in totals for v in (s, d)])
    names = [label for label, _, _ in totals]
    slanted = len(totals) > 3 or len(totals) * max(len(n) for n in names) > 45
    total.set_xticks(list(xs), names, rotation=15 if slanted else 0,
                     ha="right" if slanted else "center")
    total.set_ylabel(f"total inter-node bytes per rank ({tunit})")
    total.set_title("Total inter-node volume over the run")
    total.legend()
    common.save(fig, out)
    parts = ", ".join(f"{label} {s:.0f} B" + (f" (dense {d:.0f} B)" if d > 0 else "")
                      for label, s, d in totals)
    return f"message-size: {len(runs)} runs, total inter-node bytes per rank: {parts}"


if __name__ == "__main__":
    sys.exit(common.main("message-size", draw))
