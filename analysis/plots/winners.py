"""Which strategy wins where: the map of `prunex winners`' winners.json. A row per GPU count, a
column per NIC bandwidth; each cell coloured by the strategy fastest per epoch there and
labelled with its margin over the runner-up (the runner-up's time / the winner's). A black
tick in a row marks a bandwidth where hsadmm's and ddp's times cross at that size, placed
between the columns in log bandwidth (winners.json's crossovers say on which side hsadmm is
faster)."""

import math
import sys

import common

_COLORS = {"hsadmm": "#1f77b4", "hsadmm-rail": "#aec7e8", "hsadmm-flat": "#9467bd",
           "ddp": "#7f7f7f", "fp16": "#ff7f0e", "topk": "#2ca02c", "pactrain": "#8c564b",
           "cgx": "#e377c2", "powersgd": "#d62728"}


def load(path):
    w = common.load_json(path)
    ok = isinstance(w, dict) and all(isinstance(w.get(k), list) and w[k]
                                     for k in ("bandwidths_gbits", "gpus", "cells"))
    common.require(ok, path, "not a winners.json (prunex winners): no grid or cells")
    for c in w["cells"]:
        common.require(isinstance(c, dict) and isinstance(c.get("winner"), str)
                       and common.finite(c.get("margin")) and common.finite(c.get("nic_gbits"))
                       and common.finite(c.get("gpus")), path, "a cell without winner or margin")
    return w


def draw(inputs, out, layer=None):
    if len(inputs) != 1:
        raise common.InputError("winners: give one winners.json")
    w = load(inputs[0])
    bw, gpus = w["bandwidths_gbits"], w["gpus"]
    cells = {(c["nic_gbits"], c["gpus"]): c for c in w["cells"]}
    fig, axes = common.new_figure(width=max(5.5, 1.3 * len(bw) + 2.5),
                                  height=max(3.0, 0.5 * len(gpus) + 1.6))
    ax = axes[0][0]
    ax.grid(False)
    seen = []
    for i, b in enumerate(bw):
        for j, g in enumerate(gpus):
            c = cells.get((b, g))
            if c is None:
                continue
            s = c["winner"]
            if s not in seen:
                seen.append(s)
            ax.add_patch(common.plt.Rectangle((i - 0.5, j - 0.5), 1, 1,
                                              color=_COLORS.get(s, "#bcbd22"), alpha=0.85))
            ax.text(i, j, f"{s}\n{c['margin']:.2f}x", ha="center", va="center", fontsize=8,
                    color="white")
    logs = [math.log(b) for b in bw]
    for x in w.get("crossovers", []):
        if x["gpus"] not in gpus:
            continue
        j = gpus.index(x["gpus"])
        for b in x.get("crossings_gbits", []):
            lb = math.log(b)
            pos = next((k + (lb - logs[k]) / (logs[k + 1] - logs[k])
                        for k in range(len(bw) - 1) if logs[k] <= lb <= logs[k + 1]), None)
            if pos is not None:
                ax.plot([pos, pos], [j - 0.45, j + 0.45], color="k", lw=2.5)
    ax.set_xlim(-0.5, len(bw) - 0.5)
    ax.set_ylim(-0.5, len(gpus) - 0.5)
    ax.set_xticks(range(len(bw)), [f"{b:g}" for b in bw])
    ax.set_yticks(range(len(gpus)), [str(g) for g in gpus])
    ax.set_xlabel("NIC bandwidth (Gbit/s)")
    ax.set_ylabel("GPUs")
    cfg = w.get("config", {})
    ax.set_title(f"Fastest per epoch: {cfg.get('model', '?')} on {cfg.get('topology', '?')}"
                 " (tick: hsadmm and ddp cross)")
    handles = [common.plt.Rectangle((0, 0), 1, 1, color=_COLORS.get(s, "#bcbd22")) for s in seen]
    ax.legend(handles, seen, loc="upper left", bbox_to_anchor=(1.01, 1))
    common.save(fig, out)
    wins = {}
    for c in w["cells"]:
        wins[c["winner"]] = wins.get(c["winner"], 0) + 1
    return "winners: " + ", ".join(f"{s} {n} of {len(w['cells'])} cells" for s, n in wins.items())


if __name__ == "__main__":
    sys.exit(common.main("winners", draw))
