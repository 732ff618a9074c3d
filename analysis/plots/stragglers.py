"""How one slow GPU slows each strategy: for each strategy, the iteration time with one
straggler over the time without, one bar per GPU count, from stragglers.json written by
scripts/studies/straggler_study.sh: {"rows": [{"strategy", "gpus", "factor", "slowdown"}...]}.
The dashed line is the factor itself: what an iteration made only of compute would suffer."""

import sys

import common


def load_rows(path):
    s = common.load_json(path)
    common.require(isinstance(s, dict) and isinstance(s.get("rows"), list) and s["rows"], path,
                   "not a stragglers.json (scripts/studies/straggler_study.sh): no rows")
    for r in s["rows"]:
        common.require(isinstance(r, dict), path, "a row is not an object")
        common.require(isinstance(r.get("strategy"), str), path, "a row without a strategy")
        for key in ("gpus", "factor", "slowdown"):
            common.require(common.finite(r.get(key)), path, f"a row without a numeric '{key}'")
    return s["rows"]


def draw(inputs, out, layer=None):
    rows = [r for path in inputs for r in load_rows(path)]
    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    gpus = sorted({r["gpus"] for r in rows})
    factors = sorted({r["factor"] for r in rows})
    fig, axes = common.new_figure(width=max(5.0, 1.4 * len(strategies) + 2))
    ax = axes[0][0]
    ax.set_axisbelow(True)
    width = 0.8 / len(gpus)
    for i, g in enumerate(gpus):
        by_s = {r["strategy"]: r["slowdown"] for r in rows if r["gpus"] == g}
        xs = [k + (i - (len(gpus) - 1) / 2) * width for k in range(len(strategies))]
        hs = [by_s.get(s, 0.0) for s in strategies]
        bars = ax.bar(xs, hs, width * 0.9, label=f"{g} GPUs")
        for b, h in zip(bars, hs):
            if h:
                ax.text(b.get_x() + b.get_width() / 2, h, f"{h:.2f}x", ha="center", va="bottom",
                        fontsize=8)
    for f in factors:
        ax.axhline(f, color="k", ls="--", lw=1)
        ax.text(len(strategies) - 0.5, f, f" compute x{f:g}", va="bottom", ha="right", fontsize=8)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_xticks(range(len(strategies)), strategies)
    ax.set_ylim(0.9, max(max(r["slowdown"] for r in rows), max(factors)) * 1.1)
    ax.set_ylabel("iteration time with one straggler / without")
    ax.set_title("One straggler GPU")
    ax.legend(loc="lower left")
    common.save(fig, out)
    return "stragglers: " + "; ".join(
        f"{r['strategy']} {r['gpus']} GPUs {r['slowdown']:.3f}x" for r in rows)


if __name__ == "__main__":
    sys.exit(common.main("stragglers", draw))
