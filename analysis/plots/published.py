"""Predicted against published: every row of published.json (written by `prunex validate`)
as one point on log-log axes, the y = x line and a band of +-20%. Each quantity keeps its own
unit (seconds per step, images per second, GB/s of bus bandwidth, seconds per collective):
on log axes a ratio is a distance, so rows of different units read the same way. Hollow
markers are fit rows (the point that fixed the GPU speed; not held out)."""

import sys

import common

MARKERS = {"seconds_per_iteration": ("o", "s per step"),
           "images_per_second": ("s", "images/s"),
           "busbw_GBps": ("^", "bus bandwidth GB/s"),
           "seconds_per_op": ("D", "s per collective")}


def load_rows(path):
    s = common.load_json(path)
    common.require(isinstance(s, dict) and isinstance(s.get("rows"), list) and s["rows"], path,
                   "not a published.json (prunex validate): no rows")
    for r in s["rows"]:
        common.require(isinstance(r, dict) and r.get("quantity") in MARKERS, path,
                       "a row without a known quantity")
        for key in ("published", "predicted"):
            common.require(common.finite(r.get(key)) and r[key] > 0, path,
                           f"a row without a positive '{key}'")
    return s["rows"], s.get("summary", {})


def draw(inputs, out, layer=None):
    rows, summary = [], {}
    for path in inputs:
        r, summary = load_rows(path)
        rows += r
    fig, axes = common.new_figure(width=6.0)
    ax = axes[0][0]
    lo = min(min(r["published"], r["predicted"]) for r in rows) / 1.5
    hi = max(max(r["published"], r["predicted"]) for r in rows) * 1.5
    ax.plot([lo, hi], [lo, hi], "k-", lw=1, label="y = x")
    ax.fill_between([lo, hi], [lo * 0.8, hi * 0.8], [lo * 1.2, hi * 1.2], color="0.85",
                    label="+-20%")
    for q, (marker, label) in MARKERS.items():
        held = [r for r in rows if r["quantity"] == q and not r.get("fit")]
        fit = [r for r in rows if r["quantity"] == q and r.get("fit")]
        if held:
            ax.scatter([r["published"] for r in held], [r["predicted"] for r in held],
                       marker=marker, label=label, zorder=3)
        if fit:
            ax.scatter([r["published"] for r in fit], [r["predicted"] for r in fit],
                       marker=marker, facecolors="none", edgecolors="k", zorder=3,
                       label=label + " (fit)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("published (its own unit)")
    ax.set_ylabel("predicted (same unit)")
    g = summary.get("geomean_abs_error")
    ax.set_title("prunex simulate against published measurements" +
                 (f"\ngeometric-mean error {100 * g:.1f}% over held-out rows" if g is not None else ""))
    ax.legend(loc="upper left", fontsize=8)
    common.save(fig, out)
    held = [r for r in rows if not r.get("fit")]
    return f"published: {len(rows)} rows ({len(held)} held out)"


if __name__ == "__main__":
    sys.exit(common.main("published", draw))
