"""Accuracy against time and against inter-node bytes (paper Fig. 5): the test accuracy
recorded after each iteration, against the cumulative wall time and the cumulative
inter-node payload one rank sent; one line per run."""

import sys

import common


def curve(m):
    """(seconds, bytes, accuracy) at every iteration that recorded an accuracy."""
    t = b = 0.0
    pts = []
    for it in m["iterations"]:
        t += float(it["wall_seconds"])
        b += float(it["bytes"].get("inter", 0))
        if common.finite(it.get("accuracy")):
            pts.append((t, b, float(it["accuracy"])))
    common.require(pts, m["_path"], "no iteration records an accuracy (train with --eval-every)")
    return pts


def draw(inputs, out, layer=None):
    runs = [common.load_metrics(p) for p in inputs]
    curves = [(label, curve(m)) for label, m in zip(common.run_labels(runs), runs)]
    tscale, tunit = common.time_unit(max(p[-1][0] for _, p in curves) or 1.0)
    bscale, bunit = common.byte_unit(max(p[-1][1] for _, p in curves))
    fig, axes = common.new_figure(1, 2, width=5.2)
    vs_t, vs_b = axes[0]
    for label, pts in curves:
        vs_t.plot([p[0] * tscale for p in pts], [100 * p[2] for p in pts], "o-", ms=3, label=label)
        vs_b.plot([p[1] * bscale for p in pts], [100 * p[2] for p in pts], "o-", ms=3, label=label)
    vs_t.set_xlim(left=0)
    common.log_if_wide(vs_b, [p[1] * bscale for _, pts in curves for p in pts], axis="x")
    vs_t.set_xlabel(f"training time ({tunit})")
    vs_b.set_xlabel(f"cumulative inter-node bytes per rank ({bunit})")
    vs_t.set_title("Accuracy against time")
    vs_b.set_title("Accuracy against inter-node traffic")
    for ax in (vs_t, vs_b):
        ax.set_ylabel("test accuracy (%)")
        ax.legend(loc="lower right")
    common.save(fig, out)
    parts = ", ".join(f"{label} {100 * p[-1][2]:.2f}% after {p[-1][0]:.4g} s and {p[-1][1]:.0f} B"
                      for label, p in curves)
    return f"accuracy: {len(runs)} run{'' if len(runs) == 1 else 's'}, final: {parts}"


if __name__ == "__main__":
    sys.exit(common.main("accuracy", draw))
