"""A layer's learned channel mask (paper Fig. 13), from OUT/masks.json:
{"layers": {name: {"shape": [out, in, kh, kw] or [out, in], "keep_out": [0/1 per output
channel], "keep_in": [0/1 per input channel]}}}
Drawn as an out x in map: a weight slice (o, i) is kept when both its output and input
channel are kept; pruned rows and columns are white. Without --layer, up to six layers."""

import sys

from matplotlib.colors import ListedColormap
from matplotlib.ticker import MaxNLocator

import common

MAX_LAYERS = 6


def load_masks(path):
    j = common.load_json(path)
    common.require(isinstance(j, dict) and isinstance(j.get("layers"), dict) and j["layers"],
                   path, "not a masks.json: expected {\"layers\": {name: {...}}}")
    for name, l in j["layers"].items():
        common.require(isinstance(l, dict), path, f"layer '{name}': not an object")
        shape = l.get("shape")
        common.require(isinstance(shape, list) and len(shape) in (2, 4) and
                       all(isinstance(d, int) and d > 0 for d in shape), path,
                       f"layer '{name}': shape must be [out, in] or [out, in, kh, kw]")
        for key, n in (("keep_out", shape[0]), ("keep_in", shape[1])):
            v = l.get(key)
            common.require(isinstance(v, list) and len(v) == n and all(b in (0, 1) for b in v),
                           path, f"layer '{name}': {key} must be {n} values of 0 or 1")
    return j["layers"]


def draw(inputs, out, layer=None):
    if len(inputs) != 1:
        raise common.InputError("mask takes one masks.json")
    layers = load_masks(inputs[0])
    if layer is not None:
        common.require(layer in layers, inputs[0], f"no mask for layer '{layer}'")
        names = [layer]
    else:
        names = list(layers)[:MAX_LAYERS]
    cols = min(3, len(names))
    rows = (len(names) + cols - 1) // cols
    fig, axes = common.new_figure(rows, cols, width=4.2, height=4.0)
    cmap = ListedColormap(["white", "#1f4e99"])
    lines = []
    for k, name in enumerate(names):
        ax = axes[k // cols][k % cols]
        l = layers[name]
        grid = [[o * i for i in l["keep_in"]] for o in l["keep_out"]]
        ax.imshow(grid, cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        ax.grid(False)
        for side in ("top", "right"):
            ax.spines[side].set_visible(True)
        kept_o, kept_i = sum(l["keep_out"]), sum(l["keep_in"])
        frac = kept_o * kept_i / (len(l["keep_out"]) * len(l["keep_in"]))
        shape = "×".join(str(d) for d in l["shape"])
        ax.set_title(f"{name} ({shape})\nkept {kept_o}/{l['shape'][0]} out, "
                     f"{kept_i}/{l['shape'][1]} in: {100 * frac:.1f}% of weights", fontsize=9)
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        ax.set_xlabel("input channel")
        ax.set_ylabel("output channel")
        lines.append(f"{name} {kept_o}/{l['shape'][0]} out {kept_i}/{l['shape'][1]} in "
                     f"{100 * frac:.1f}%")
    for k in range(len(names), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle("Learned channel masks (blue kept, white pruned)")
    common.save(fig, out)
    return f"mask: {len(names)} layers: " + ", ".join(lines)


if __name__ == "__main__":
    sys.exit(common.main("mask", draw, takes_layer=True))
