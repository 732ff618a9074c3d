"""ADMM residuals per rank and per layer (paper Figs. 10-11), from one metrics.json.
Top: each rank's primal (r) and dual (s) residual norms over iterations, intra-node tier solid
and inter-node tier dashed; without --layer the norm is taken over the whole model (the
Frobenius norm of all layers together, sqrt of the sum of squares). Bottom: each layer's
residual over iterations, combined over ranks and both tiers the same way; the eight layers
with the largest final value are drawn (or only --layer)."""

import math
import sys

import common

TOP_LAYERS = 8


def combine(values):
    return math.sqrt(sum(v * v for v in values))


def per_rank(its, layers, ranks, field):
    """[rank][iteration] Frobenius norm of `field` over the chosen layers."""
    return [[combine(float(it["residuals"][l][r][field]) for l in layers) for it in its]
            for r in range(ranks)]


def per_layer(its, layer, kind):
    """[iteration] Frobenius norm over ranks and both tiers of r (kind 'r') or s."""
    return [combine(float(res[f"{kind}_{tier}"]) for res in it["residuals"][layer]
                    for tier in ("intra", "inter")) for it in its]


def positive(values):
    """Log axes cannot show zeros (baselines' empty tiers): leave gaps instead."""
    return [v if v > 0 else float("nan") for v in values]


def draw(inputs, out, layer=None):
    if len(inputs) != 1:
        raise common.InputError("residuals takes one metrics.json")
    m = common.load_metrics(inputs[0])
    its = [it for it in m["iterations"] if it.get("residuals")]
    simulated = m.get("config", {}).get("executor") == "simgrid"
    common.require(its, m["_path"],
                   "no residuals recorded (a simulated run has none; a live run of a baseline "
                   "strategy neither)" if simulated else
                   "no residuals recorded (baseline strategies have none)")
    layers = sorted(its[0]["residuals"])
    if layer is not None:
        common.require(layer in layers, m["_path"], f"no residuals for layer '{layer}'")
        layers = [layer]
    ranks = len(its[0]["residuals"][layers[0]])
    for it in its:
        for l in layers:
            common.require(len(it["residuals"].get(l, [])) == ranks, m["_path"],
                           f"iteration {it['iteration']}: layer '{l}' lacks per-rank residuals")
    x = [it["iteration"] for it in its]
    fig, axes = common.new_figure(2, 2, width=5.4)
    colors = common.plt.get_cmap("tab10").colors
    scope = f"layer {layer}" if layer else "whole model"
    # The flat variant has one consensus tier over all ranks, recorded as the intra fields.
    flat = str(m["config"].get("strategy", "")).endswith("-flat")
    tier_names = {"intra": "flat" if flat else "intra-node", "inter": "inter-node"}
    for col, (kind, name) in enumerate((("r", "primal"), ("s", "dual"))):
        ax = axes[0][col]
        for tier, style in (("intra", "-"), ("inter", "--")):
            for r, values in enumerate(per_rank(its, layers, ranks, f"{kind}_{tier}")):
                if not any(values):  # ranks outside the inter-node tier (non-leaders)
                    continue
                ax.plot(x, positive(values), style, marker="o", ms=3, color=colors[r % 10],
                        label=f"rank {r} {tier_names[tier]}")
        ax.set_title(f"{name.capitalize()} residual per rank ({scope})")
        ax.set_ylabel(f"‖{kind}‖ (Frobenius norm, weight units)")
        ax.legend(ncol=2, fontsize=7)
        ax_l = axes[1][col]
        final = {l: per_layer(its, l, kind) for l in sorted(its[0]["residuals"])}
        shown = [layer] if layer else sorted(final, key=lambda l: -final[l][-1])[:TOP_LAYERS]
        for l in shown:
            ax_l.plot(x, positive(final[l]), "o-", ms=3, label=l)
        more = "" if layer else f" (largest {len(shown)} of {len(final)})"
        ax_l.set_title(f"{name.capitalize()} residual per layer{more}")
        ax_l.set_ylabel(f"‖{kind}‖ over ranks and tiers (weight units)")
        ax_l.legend(fontsize=7)
        for a in (ax, ax_l):
            common.iteration_axis(a)
            ys = [y for line in a.get_lines() for y in line.get_ydata() if y > 0]
            if ys and max(ys) > 10 * min(ys):  # log only where it helps to read the spread
                a.set_yscale("log")
    common.save(fig, out)
    last = [combine([v[-1] for v in (per_rank(its, layers, ranks, "r_intra")[r],
                                      per_rank(its, layers, ranks, "r_inter")[r])])
            for r in range(ranks)]
    return (f"residuals: {ranks} ranks, {len(its[0]['residuals'])} layers, {len(its)} iterations, "
            f"final primal residual per rank ({scope}): " + " ".join(f"{v:.4g}" for v in last))


if __name__ == "__main__":
    sys.exit(common.main("residuals", draw, takes_layer=True))
