"""Shared pieces of the figure scripts: input loading with one-line errors, unit scaling,
one consistent style, atomic saving, and the command-line wrapper every script uses.

Every script is runnable as `/usr/bin/python3 analysis/plots/X.py INPUT... --out FILE` and
importable (each exposes draw(inputs, out, layer=None) -> summary line)."""

import argparse
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

# Phases that move data between ranks. Every metrics.json lists them
# (summary.communication_phases, from engine/phases.h); this list is only for files written
# before that field existed (2026-11-25).
LEGACY_COMM_PHASES = ["intra_allreduce", "mask_sync", "inter_allreduce", "broadcast",
                      "allreduce", "allgather"]
PHASE_LABELS = {
    "intra_allreduce": "intra-node all-reduce",
    "mask_sync": "mask sync",
    "inter_allreduce": "inter-node all-reduce",
    "broadcast": "intra-node broadcast",
    "allreduce": "flat all-reduce",
    "allgather": "all-gather",
}
_PALETTE = plt.get_cmap("tab10").colors


def phase_color(phase):
    """A stable colour per phase name: the known ones in their usual order, then the rest."""
    known = LEGACY_COMM_PHASES
    i = known.index(phase) if phase in known else len(known) + sum(map(ord, phase))
    return _PALETTE[i % len(_PALETTE)]


def phase_label(phase):
    return PHASE_LABELS.get(phase, phase.replace("_", " "))


def comm_phases(m):
    """The communication phases of a run, as its metrics.json names them."""
    return m.get("summary", {}).get("communication_phases", LEGACY_COMM_PHASES)

STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.bbox": "tight",
    "svg.fonttype": "none",  # text stays text in SVG
}


class InputError(Exception):
    """Bad user input: reported as one line on stderr, exit code 2."""


def load_json(path):
    if not os.path.isfile(path):
        raise InputError(f"input {path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"input {path}: cannot read ({e})") from None
    except json.JSONDecodeError as e:
        raise InputError(f"input {path}: not JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:
        raise InputError(f"input {path}: nested too deep to read") from None


def require(cond, path, what):
    if not cond:
        raise InputError(f"input {path}: {what}")


def load_metrics(path):
    """A metrics.json (records/run_record.h) with the fields the figures use checked."""
    m = load_json(path)
    require(isinstance(m, dict), path, "not a metrics.json object")
    for key, kind in (("config", dict), ("iterations", list), ("summary", dict)):
        require(isinstance(m.get(key), kind), path,
                f"not a metrics.json: '{key}' missing or not a {kind.__name__}")
    require(isinstance(m.get("ranks"), int) and m["ranks"] >= 1, path, "'ranks' must be >= 1")
    require(len(m["iterations"]) > 0, path, "no iterations recorded")
    for i, it in enumerate(m["iterations"]):
        require(isinstance(it, dict) and isinstance(it.get("phases"), dict), path,
                f"iteration {i}: 'phases' missing")
        require(isinstance(it.get("bytes"), dict), path, f"iteration {i}: 'bytes' missing")
        require(isinstance(it.get("wall_seconds"), (int, float)), path,
                f"iteration {i}: 'wall_seconds' missing")
    phases = comm_phases(m)
    require(isinstance(phases, list) and all(isinstance(p, str) for p in phases), path,
            "summary.communication_phases must be a list of names")
    for it in m["iterations"]:
        it["_comm_phases"] = phases
    m["_path"] = path
    return m


def run_label(m, with_keep=False):
    """'model / strategy' from a run's config (keep added for sparsity sweeps)."""
    c = m["config"]
    label = f"{c.get('model', '?')} / {c.get('strategy', '?')}"
    if with_keep and "keep" in c:
        label += f" keep={c['keep']:g}"
    return label


def run_labels(runs):
    """Labels for several runs, made distinct: 'model / strategy', then the keep rate, then
    the settings in which the runs that would still read the same differ (a what-if against
    its baseline), then the run's folder name."""
    labels = [run_label(m) for m in runs]
    kept = [run_label(m, with_keep=True) for m in runs]
    if len(set(kept)) > len(set(labels)):
        labels = kept
    same = [i for i, label in enumerate(labels) if labels.count(label) > 1]
    if same:
        paths = [runs[i]["_path"] for i in same]
        named = setting_labels(paths, [runs[i]["config"] for i in same],
                               aside=("model", "strategy", "keep"))
        for i, path in zip(same, paths):
            if named[path] != path:
                labels[i] = f"{labels[i]} ({named[path]})"
    if len(set(labels)) < len(labels):
        labels = [f"{label} ({os.path.basename(os.path.dirname(os.path.abspath(m['_path'])))})"
                  for label, m in zip(labels, runs)]
    return labels


# What a --reference file may hold (published values drawn beside a figure's own), and the
# kind that draws each: per strategy and GPU count, or per strategy or phase.
REFERENCE_QUANTITIES = {"speedup": "per_gpus", "efficiency": "per_gpus", "comm_seconds": "value",
                        "phase_share": "value"}


def load_reference(path):
    """--reference: {"label": TEXT, "speedup": {STRATEGY: {GPUS: x}}, "efficiency": {STRATEGY:
    {GPUS: fraction}}, "comm_seconds": {STRATEGY: s}, "phase_share": {PHASE: fraction}}, e.g.
    the paper's numbers `prunex reproduce` writes. Returns (label, {quantity: [(key, gpus or
    None, value)]}); every value a finite number, every GPU count a whole number."""
    r = load_json(path)
    require(isinstance(r, dict) and isinstance(r.get("label"), str), path,
            "a reference needs a 'label' text")
    unknown = sorted(set(r) - set(REFERENCE_QUANTITIES) - {"label"})
    require(not unknown, path, f"unknown key '{unknown[0] if unknown else ''}' (label, "
            + ", ".join(REFERENCE_QUANTITIES) + ")")
    points = {}
    for quantity, shape in REFERENCE_QUANTITIES.items():
        by_key = r.get(quantity, {})
        require(isinstance(by_key, dict), path, f"'{quantity}' must be an object")
        for key, v in by_key.items():
            if shape == "value":
                require(finite(v), path, f"{quantity}.{key}: {v!r} is not a number")
                points.setdefault(quantity, []).append((key, None, float(v)))
                continue
            require(isinstance(v, dict), path, f"{quantity}.{key}: an object of GPUS: number")
            for gpus, value in v.items():
                require(gpus.isdigit() and finite(value), path,
                        f"{quantity}.{key}: '{gpus}': {value!r} is not GPUS: number")
                points.setdefault(quantity, []).append((key, int(gpus), float(value)))
    return r["label"], points


def record_facts():
    """The keys a record's config holds beside its settings (its links, world size...), as
    `prunex plot` passes them (settings/config_fields.h's recorded keys that no command's
    option carries)."""
    return {k for k in os.environ.get("PRUNEX_RECORD_FACTS", "").split(",") if k}


def setting_labels(paths, configs, aside=()):
    """Per path, the settings of its config (a dict) that another config differs in, as
    "key=value, ...": its out, the run's facts and the keys `aside` left out, unset ones (null:
    the topology's or the command's own) not named; "defaults" when all it differs in are
    unset; the path where no setting differs."""
    skip = set(aside) | record_facts() | {"out"}
    configs = [{k: v for k, v in c.items() if k not in skip}
               if isinstance(c, dict) else {} for c in configs]
    keys = sorted({k for c in configs for k in c})
    differ = [k for k in keys if len({json.dumps(c.get(k), sort_keys=True) for c in configs}) > 1]

    def text(v):
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return f"{v:g}"
        return json.dumps(v)

    labels = {}
    for path, c in zip(paths, configs):
        parts = [f"{k}={text(v)}" for k, v in ((k, c.get(k)) for k in differ) if v is not None]
        labels[path] = ", ".join(parts) if parts else ("defaults" if differ else path)
    return labels


def comm_seconds(it):
    """Communication time of one iteration: sum of the communication phases' critical paths."""
    phases = it.get("_comm_phases", LEGACY_COMM_PHASES)
    return sum(float(it["phases"][p]["critical_path_s"]) for p in phases if p in it["phases"])


def time_unit(max_seconds):
    """(scale, unit) so that seconds * scale reads well on an axis."""
    if max_seconds >= 1:
        return 1.0, "s"
    if max_seconds >= 1e-3:
        return 1e3, "ms"
    return 1e6, "µs"


def byte_unit(max_bytes):
    """(scale, unit) in powers of 1024."""
    for power, unit in ((3, "GiB"), (2, "MiB"), (1, "KiB")):
        if max_bytes >= 1024**power:
            return 1.0 / 1024**power, unit
    return 1.0, "B"


def fmt_bytes(n):
    scale, unit = byte_unit(n)
    return f"{n * scale:.3g} {unit}"


def fmt_seconds(s):
    scale, unit = time_unit(s)
    return f"{s * scale:.3g} {unit}"


def new_figure(rows=1, cols=1, width=6.4, height=4.2):
    plt.rcParams.update(STYLE)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False,
                             layout="constrained")
    return fig, axes


def save(fig, out):
    """Writes the figure to a temporary name beside OUT and renames it, so a failure leaves
    no file. The format comes from the extension."""
    ext = os.path.splitext(out)[1].lower()
    if ext not in (".png", ".svg"):
        raise InputError(f"--out {out}: the file must end in .png or .svg")
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{os.path.basename(out)}.tmp{os.getpid()}{ext}")
    try:
        fig.savefig(tmp, format=ext[1:], dpi=150)
        os.replace(tmp, out)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.remove(tmp)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse prints a usage block)
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def main(kind, draw, takes_layer=False, argv=None, takes_reference=False):
    """Command line of one figure script: INPUT... --out FILE [--layer NAME] [--reference
    FILE] (published values drawn beside the figure's, where the kind takes them)."""
    p = _Parser(prog=f"prunex plot {kind}")
    p.add_argument("inputs", nargs="+")
    p.add_argument("--out", required=True)
    if takes_layer:
        p.add_argument("--layer")
    if takes_reference:
        p.add_argument("--reference")
    a = p.parse_args(argv)
    if os.path.splitext(a.out)[1].lower() not in (".png", ".svg"):
        p.error(f"--out {a.out}: the file must end in .png or .svg")
    try:
        extra = {"reference": a.reference} if takes_reference else {}
        summary = draw(a.inputs, a.out, getattr(a, "layer", None), **extra)
    except InputError as e:
        print(f"prunex plot {kind}: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        # A field of the wrong shape deep in an input: still the input's fault.
        print(f"prunex plot {kind}: malformed input ({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(summary)
    return 0


def log_if_wide(ax, values, axis="y"):
    """Log axis when values differ by more than 100x, so small ones stay visible; otherwise
    a linear axis from zero."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) > 100 * min(positive):
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    else:
        (ax.set_ylim if axis == "y" else ax.set_xlim)(0)


def iteration_axis(ax):
    """x axis of whole iterations: integer ticks only."""
    ax.set_xlabel("iteration")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1))


def finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)
