"""Sparsity against accuracy (paper Fig. 12): one point per run (one metrics.json per keep
rate), the final test accuracy against the channel sparsity the run ended with: one minus the
mean kept fraction of its pruned layers in the last iteration (a run without pruned layers,
a dense baseline, is at 0%). Runs of the same model and strategy are joined by a line."""

import sys

import common


def final_point(m):
    last = m["iterations"][-1]
    density = last.get("density") or {}
    common.require(all(common.finite(v) for v in density.values()), m["_path"],
                   "density values must be numbers")
    sparsity = 1 - sum(density.values()) / len(density) if density else 0.0
    keep = m["config"].get("keep") if density else None  # dense runs ignore --keep
    acc = m["summary"].get("test_accuracy")
    if not common.finite(acc):
        accs = [it["accuracy"] for it in m["iterations"] if common.finite(it.get("accuracy"))]
        common.require(accs, m["_path"], "no test accuracy recorded")
        acc = accs[-1]
    return sparsity, float(acc), keep


def draw(inputs, out, layer=None):
    runs = [common.load_metrics(p) for p in inputs]
    groups = {}
    for m in runs:
        c = m["config"]
        key = f"{c.get('model', '?')} / {c.get('strategy', '?')}"
        groups.setdefault(key, []).append(final_point(m))
    fig, axes = common.new_figure()
    ax = axes[0][0]
    for key, pts in groups.items():
        pts.sort(key=lambda p: p[:2])
        ax.plot([100 * s for s, _, _ in pts], [100 * a for _, a, _ in pts], "o-", label=key)
        for s, a, keep in pts:
            if common.finite(keep):
                ax.annotate(f"keep {keep:g}", (100 * s, 100 * a), textcoords="offset points",
                            xytext=(4, 4), fontsize=8)
    ax.set_xlabel("channel sparsity (% of channels pruned, mean over pruned layers)")
    ax.set_ylabel("final test accuracy (%)")
    ax.set_title("Sparsity against accuracy")
    ax.set_xlim(-2, 100)
    ax.legend()
    common.save(fig, out)
    parts = "; ".join(key + ": " + ", ".join(f"{100 * s:.1f}% -> {100 * a:.2f}%" for s, a, _ in pts)
                      for key, pts in groups.items())
    return f"sparsity-accuracy: {len(runs)} runs, sparsity -> accuracy: {parts}"


if __name__ == "__main__":
    sys.exit(common.main("sparsity-accuracy", draw))
