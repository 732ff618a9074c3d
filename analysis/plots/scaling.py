"""Strong scaling (paper Fig. 9): time per epoch, speedup and parallel efficiency against GPUs,
one line per strategy, from scaling.json written by `prunex sweep`:
{"<strategy>": [{"gpus", "nodes", "time_per_epoch_s", "speedup", "efficiency",
                 "time_band": {"level", "low", "high", ...}}...], "config": {}}
Efficiency is a fraction (1 = ideal); it is drawn in percent. A point's time_band (the
prediction's error band, simulate/error_band.h: the measured time lies in
time x (1 + low) .. time x (1 + high) at that level) is shaded around the time curve."""

import sys

import common


def load_scaling(path):
    s = common.load_json(path)
    common.require(isinstance(s, dict), path, "not a scaling.json object")
    common.require("iterations" not in s, path,
                   "this is a metrics.json; scaling takes scaling.json from `prunex sweep`")
    curves = {}
    for strategy, points in s.items():
        if strategy == "config":
            continue
        common.require(isinstance(points, list) and points, path,
                       f"strategy '{strategy}': expected a non-empty list of points")
        for p in points:
            common.require(isinstance(p, dict), path, f"strategy '{strategy}': point not an object")
            for key in ("gpus", "time_per_epoch_s", "speedup", "efficiency"):
                common.require(common.finite(p.get(key)), path,
                               f"strategy '{strategy}': point without a numeric '{key}'")
            band = p.get("time_band")
            common.require(band is None or (isinstance(band, dict) and all(
                common.finite(band.get(k)) for k in ("level", "low", "high"))), path,
                f"strategy '{strategy}': time_band without numeric level, low and high")
        curves[strategy] = sorted(points, key=lambda p: p["gpus"])
    common.require(curves, path, "no strategies in scaling.json")
    return curves


def draw(inputs, out, layer=None, reference=None):
    ref_label, ref = common.load_reference(reference) if reference else (None, {})
    loaded = [(path, load_scaling(path)) for path in inputs]
    names = common.setting_labels(
        inputs, [common.load_json(p).get("config", {}) for p in inputs], ("strategy", "gpus"))
    # Speedups are over each file's smallest GPU count: files must share it to share axes.
    bases = {min(p["gpus"] for pts in c.values() for p in pts) for _, c in loaded}
    if len(bases) > 1:
        raise common.InputError("scaling: the files start at different GPU counts "
                                f"({', '.join(str(b) for b in sorted(bases))}): their speedups "
                                "have different bases")
    # A strategy in several files: one curve each, named by its file.
    count = {}
    for _, c in loaded:
        for strategy in c:
            count[strategy] = count.get(strategy, 0) + 1
    curves = {}
    for path, c in loaded:
        for strategy, points in c.items():
            curves[f"{strategy} ({names[path]})" if count[strategy] > 1 else strategy] = points
    fig, axes = common.new_figure(1, 3, width=5.2)
    time, speed, eff = axes[0]
    all_gpus = sorted({p["gpus"] for pts in curves.values() for p in pts})
    base = all_gpus[0]
    speed.plot(all_gpus, [g / base for g in all_gpus], "k--", lw=1, label="ideal (linear)")
    eff.axhline(100, color="k", ls="--", lw=1, label="ideal")
    levels = set()
    for strategy, pts in curves.items():
        g = [p["gpus"] for p in pts]
        t = [p["time_per_epoch_s"] for p in pts]
        line = time.plot(g, t, "o-", label=strategy)[0]
        banded = [(x, y, p["time_band"]) for x, y, p in zip(g, t, pts) if p.get("time_band")]
        if banded:
            levels |= {b["level"] for _, _, b in banded}
            time.fill_between([x for x, _, _ in banded], [y * (1 + b["low"]) for _, y, b in banded],
                              [y * (1 + b["high"]) for _, y, b in banded],
                              color=line.get_color(), alpha=0.2, lw=0)
        speed.plot(g, [p["speedup"] for p in pts], "o-", label=strategy, color=line.get_color())
        eff.plot(g, [100 * p["efficiency"] for p in pts], "o-", label=strategy,
                 color=line.get_color())
    # The reference's values, each a hollow star in its strategy's colour (black where no
    # curve has that name).
    colours = {s: ln.get_color() for s, ln in zip(curves, time.get_lines())}
    for quantity, ax, scale in (("speedup", speed, 1), ("efficiency", eff, 100)):
        for strategy, gpus, value in ref.get(quantity, []):
            ax.plot([gpus], [value * scale], "*", ms=13, mfc="none", mew=1.5, ls="none",
                    color=colours.get(strategy, "black"), label=f"{strategy}: {ref_label}")
    if all_gpus[-1] > 64 * base:  # beyond 64x the ideal line would flatten every curve
        speed.set_yscale("log", base=2)
    for ax in (time, speed, eff):
        ax.set_xscale("log", base=2)
        ax.set_xticks(all_gpus, [str(g) for g in all_gpus])
        ax.set_xlabel("GPUs")
        ax.legend()
    time.set_yscale("log")
    time.set_ylabel("time per epoch (s)")
    shaded = ", ".join(f"{100 * v:.0f}%" for v in sorted(levels))
    time.set_title("Time per epoch" + (f" ({shaded} error band shaded)" if levels else ""))
    speed.set_ylabel(f"speedup over {base} GPUs (×)")
    speed.set_title("Strong scaling: speedup")
    eff.set_ylabel("parallel efficiency (%)")
    eff.set_ylim(bottom=0)
    eff.set_title("Strong scaling: efficiency")
    common.save(fig, out)
    top = all_gpus[-1]
    at_top = [(s, p) for s, pts in curves.items() for p in pts if p["gpus"] == top]
    parts = ", ".join(f"{s} {p['speedup']:.2f}x ({100 * p['efficiency']:.1f}%)" for s, p in at_top)
    plural = "" if len(curves) == 1 else "s"
    banded = " (error bands shaded)" if levels else ""
    drawn = "; ".join(f"{ref_label}: {s} {v:g}x at {g} GPUs" for s, g, v in ref.get("speedup", []))
    return (f"scaling: {len(curves)} curve{plural}{banded}, speedup at {top} GPUs: {parts}"
            + (f"; {drawn}" if drawn else ""))


if __name__ == "__main__":
    sys.exit(common.main("scaling", draw, takes_reference=True))
