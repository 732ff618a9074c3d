#!/usr/bin/env bash
# Error bands (simulate/error_band.h), against a second implementation written here:
# 1. validation/residuals.json (what predictions read their bands from) holds the held-out
#    rows of the recorded validation run, results/published/published.json: each row's
#    ln(predicted time / measured time) and its key, derived here from the rows and the suite
#    files (a measured speed is an entry with a fit point or fit_from, precision the entry's
#    or the point's simulate setting);
# 2. that run's coverage (each held-out row inside the band from the other entries' rows, at
#    50%, 80% and 90%) and each row's band, recomputed here;
# 3. prunex simulate and prunex sweep record the band of their key (one node or more, fp32 or
#    amp, a preset speed, compute- or network-bound) as computed here from residuals.json,
#    and print it;
# 4. prunex plot scaling shades the bands of a sweep.
set -euo pipefail
prunex=${1:?usage: error_bands.sh PRUNEX}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
repo=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3

cat >"$work/bands.py" <<'EOF'
"""The band of a key from residual rows: the finest grouping (what binds, speed, nodes,
precision; then without precision; without nodes; what binds alone; last all training rows,
or for a network-bound step the network-bound steps and the collectives) holding >= 10 rows
of >= 5 entries, and its split-conformal ranks floor(a (n + 1)) and ceil((1 - a)(n + 1)),
a = (1 - level) / 2, in exact fractions."""
import math
from fractions import Fraction

ATTRS = ("bound", "speed", "nodes", "precision")


def member(r, key, depth):
    if key["kind"] == "collective":
        return r["kind"] == "collective"
    if depth == 0:
        if key["bound"] == "network":
            return r["kind"] == "collective" or r.get("bound") == "network"
        return r["kind"] == "training"
    return r["kind"] == "training" and all(r[a] == key[a] for a in ATTRS[:depth])


def band(rows, key, level=Fraction(4, 5), leave_out=None):
    depths = (0,) if key["kind"] == "collective" else (4, 3, 2, 1, 0)
    for depth in depths:
        pool = [r for r in rows if r["entry"] != leave_out and member(r, key, depth)]
        entries = {r["entry"] for r in pool}
        if len(pool) < 10 or len(entries) < 5:
            continue
        v = sorted(r["log_ratio"] for r in pool)
        n = len(v)
        a = (1 - Fraction(level)) / 2
        lo = min(max(math.floor(a * (n + 1)), 1), n)
        hi = min(max(math.ceil((1 - a) * (n + 1)), 1), n)
        return {"low": math.exp(-v[hi - 1]) - 1, "high": math.exp(-v[lo - 1]) - 1,
                "rows": n, "entries": len(entries)}
    return None
EOF

# 1. and 2.: the shipped residuals against the recorded run, and the run's coverage.
"$PY" - "$repo" "$work" <<'EOF' || fail "residuals.json or the recorded coverage disagree with the rows"
import glob, json, math, os, sys
from fractions import Fraction
repo, work = sys.argv[1:]
sys.path.insert(0, work)
from bands import band
suite = {}
for f in glob.glob(f"{repo}/validation/published/*.json"):
    for e in json.load(open(f))["entries"]:
        suite[os.path.basename(f)[:-5] + "/" + e["name"]] = e
rep = json.load(open(f"{repo}/results/published/published.json"))
want = []
for r in rep["rows"]:
    if r["fit"]:
        continue
    e = suite[r["entry"]]
    q = r["quantity"]
    ratio = r["published"] / r["predicted"] if q in ("images_per_second", "busbw_GBps") \
        else r["predicted"] / r["published"]
    row = {"entry": r["entry"], "log_ratio": math.log(ratio)}
    if q in ("busbw_GBps", "seconds_per_op"):
        row["kind"] = "collective"
    else:
        point = next(p for p in e["points"] if p["label"] == r["point"])
        precision = point.get("simulate", {}).get("precision", e["simulate"].get("precision", "fp32"))
        row.update(kind="training", bound="network" if r["communication_share"] > 0.5 else "compute",
                   speed="measured" if ("fit" in e or "fit_from" in e) else "preset",
                   nodes="more" if r["nodes"] > 1 else "one",
                   precision="fp32" if precision == "fp32" else "reduced")
    want.append(row)
got = json.load(open(f"{repo}/validation/residuals.json"))["rows"]
assert len(got) == len(want), (len(got), len(want))
for g, w in zip(got, want):
    assert {k: v for k, v in g.items() if k != "log_ratio"} == \
        {k: v for k, v in w.items() if k != "log_ratio"}, (g, w)
    assert abs(g["log_ratio"] - w["log_ratio"]) < 1e-12, (g, w)
# Each held-out row's band without its own entry, and the coverage at three levels.
held = [r for r in rep["rows"] if not r["fit"]]
for r, w in zip(held, want):
    b = band(want, w, leave_out=w["entry"])
    rb = r.get("band_without_entry")
    assert (b is None) == (rb is None), (r, b)
    if b:
        assert abs(rb["low"] - b["low"]) < 1e-12 and abs(rb["high"] - b["high"]) < 1e-12, (r, b)
        assert rb["rows"] == b["rows"] and rb["entries"] == b["entries"], (r, b)
        measured = math.exp(-w["log_ratio"]) - 1
        assert r["inside_band"] == (b["low"] <= measured <= b["high"]), (r, b)
for c in rep["summary"]["band_coverage"]:
    level = Fraction(c["level"]).limit_denominator(100)
    inside = total = 0
    for w in want:
        b = band(want, w, level, leave_out=w["entry"])
        if b:
            total += 1
            inside += b["low"] <= math.exp(-w["log_ratio"]) - 1 <= b["high"]
    assert (c["rows"], c["inside"]) == (total, inside), (c, total, inside)
    print(f"error_bands: recorded {100 * c['level']:.0f}% bands hold {inside} of {total} held-out rows")
EOF

# 3. simulate and sweep: the band of their key.
run_sim() {  # NAME OPTIONS...
  local name=$1; shift
  "$prunex" simulate --topology puhti --model resnet50 --strategy ddp --iterations 1 "$@" \
    --out "$work/$name" >"$work/$name.txt" || fail "simulate $*"
  grep -q "80% band of the time per iteration" "$work/$name.txt" || fail "simulate $*: no band line"
}
run_sim one --nodes 1 --gpus-per-node 4
run_sim more --nodes 4 --gpus-per-node 4
run_sim amp --nodes 4 --gpus-per-node 4 --precision amp
run_sim net --topology ethernet-1g --nodes 4 --gpus-per-node 1
"$prunex" sweep --topology puhti --model resnet50 --strategy ddp --gpus 4,16 --iterations 1 \
  --out "$work/sweep" >"$work/sweep.txt" 2>/dev/null || fail "sweep"
"$PY" - "$repo" "$work" <<'EOF' || fail "a recorded band differs from the residuals' band"
import json, sys
repo, work = sys.argv[1:]
sys.path.insert(0, work)
from bands import band
rows = json.load(open(f"{repo}/validation/residuals.json"))["rows"]
def check(got, key, what):
    want = band(rows, dict(kind="training", speed="preset", **{"bound": "compute", **key}))
    assert want, (what, "the residuals give no band")
    assert abs(got["low"] - want["low"]) < 1e-12 and abs(got["high"] - want["high"]) < 1e-12, (what, got, want)
    assert (got["rows"], got["entries"], got["level"]) == (want["rows"], want["entries"], 0.8), (what, got, want)
    print(f"error_bands: {what}: {100 * got['low']:+.1f}% / {100 * got['high']:+.1f}% from {got['rows']} rows ({got['where']})")
keys = {"one": dict(nodes="one", precision="fp32"), "more": dict(nodes="more", precision="fp32"),
        "amp": dict(nodes="more", precision="reduced"),
        # DDP's 94 MB all-reduce over 1 Gbit/s against 0.9 s of compute: the network binds.
        "net": dict(bound="network", nodes="more", precision="fp32")}
for name, key in keys.items():
    s = json.load(open(f"{work}/{name}/metrics.json"))["summary"]
    assert (s["communication_share"] > 0.5) == (key.get("bound") == "network"), (name, s["communication_share"])
    check(s["time_per_iteration_band"], key, "simulate " + name)
pts = json.load(open(f"{work}/sweep/scaling.json"))["ddp"]
check(pts[0]["time_band"], keys["one"], "sweep at 4 GPUs")
check(pts[1]["time_band"], keys["more"], "sweep at 16 GPUs")
EOF
grep -qE "^ddp +16 +4 +[0-9.]+ +[-+][0-9]+%/[-+][0-9]+%" "$work/sweep.txt" ||
  fail "sweep's table has no band column: $(cat "$work/sweep.txt")"

# 4. The scaling figure shades the bands.
if "$PY" -c "import matplotlib" 2>/dev/null; then
  "$prunex" plot scaling "$work/sweep/scaling.json" --out "$work/scaling.svg" >"$work/plot.txt" ||
    fail "plot scaling"
  grep -q "error bands shaded" "$work/plot.txt" || fail "plot: no band: $(cat "$work/plot.txt")"
fi
echo "error_bands: ok"
