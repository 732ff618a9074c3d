#!/usr/bin/env bash
# prunex validate (the published-measurement suite, validation/published): a subset of the
# suite runs, and its report is checked against the suite files read here independently
# (every published value, every entry listed), against arithmetic (each error, the geometric
# mean, a fit row predicted exactly, DDP's overhead on one GPU as 26.4 passes over resnet50's
# gradients at 900 GB/s = 3.0 ms), and against the published trend (the EFA latency grows
# with the node count). Bad input exits 2 with one line and writes nothing.
set -euo pipefail
prunex=${1:?usage: published.sh PRUNEX}
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
suite=$(cd "$(dirname "$0")/../.." && pwd)/validation/published
PY=/usr/bin/python3

# --list: every entry of every suite file, once.
"$prunex" validate --list >"$work/list.txt"
"$PY" - "$suite" "$work/list.txt" <<'EOF' || fail "--list does not match the suite files"
import glob, json, os, sys
suite, listed = sys.argv[1], [l.split()[0] for l in open(sys.argv[2]) if l.strip()]
want = []
for f in sorted(glob.glob(os.path.join(suite, "*.json"))):
    stem = os.path.basename(f)[:-5]
    want += [stem + "/" + e["name"] for e in json.load(open(f))["entries"]]
assert sorted(listed) == sorted(want), (listed, want)
EOF

only=pytorch-ddp-readme/resnet50,nccl-tests/p3dn-efa-8-bytes,nccl-tests/edr-two-nodes,tf-benchmarks-p100/resnet50
"$prunex" validate --only "$only" --out "$work/v" --no-figure >"$work/v.txt" 2>"$work/v.err" ||
  fail "validate: $(cat "$work/v.err")"
head -1 "$work/v.txt" | grep -q "^held-out rows: .*geometric-mean error" || fail "the summary does not lead: $(head -2 "$work/v.txt")"
"$PY" - "$suite" "$work/v/published.json" <<'EOF' || fail "the report disagrees with the suite or arithmetic"
import json, math, sys
suite, rep = sys.argv[1], json.load(open(sys.argv[2]))
rows = rep["rows"]
def entry(path, name):
    return next(e for e in json.load(open(f"{suite}/{path}.json"))["entries"] if e["name"] == name)
# The resnet50 entry prefixes pytorch-ddp-readme/resnet50-bucket-1mb and -at-preset too: all
# three come back.
ids = {r["entry"] for r in rows}
assert ids == {"pytorch-ddp-readme/resnet50", "pytorch-ddp-readme/resnet50-bucket-1mb",
               "pytorch-ddp-readme/resnet50-at-preset",
               "nccl-tests/p3dn-efa-8-bytes", "nccl-tests/edr-two-nodes"}, ids
for r in rows:
    path, name = r["entry"].split("/")
    pt = next(p for p in entry(path, name)["points"] if p["label"] == r["point"])
    assert r["published"] == pt["value"], (r, pt)
    assert (r["nodes"], r["gpus_per_node"]) == (pt["nodes"], pt["gpus_per_node"]), r
    assert abs(r["error"] - (r["predicted"] / r["published"] - 1)) < 1e-12, r
    assert r["binds"] in ("compute", "intra", "inter", "latency"), r
    assert r["fit"] == (r["point"] == entry(path, name).get("fit") or "fits" in pt), r
held = [r for r in rows if not r["fit"]]
g = math.exp(sum(abs(math.log(r["predicted"] / r["published"])) for r in held) / len(held)) - 1
assert abs(rep["summary"]["geomean_abs_error"] - g) < 1e-12, (rep["summary"], g)
assert rep["summary"]["held_out_rows"] == len(held)
# The same split by what binds: compute, or the network (intra, inter, latency).
for kind, rs in (("compute", [r for r in held if r["binds"] == "compute"]),
                 ("network", [r for r in held if r["binds"] != "compute"])):
    b = rep["summary"]["by_binding"][kind]
    gk = math.exp(sum(abs(math.log(r["predicted"] / r["published"])) for r in rs) / len(rs)) - 1
    assert b["rows"] == len(rs) and abs(b["geomean_abs_error"] - gk) < 1e-12, (kind, b, gk)
by = {(r["entry"], r["point"]): r for r in rows}
# The compute fit predicts its own row; DDP on one GPU adds 26.41 x 102,228,128 B / 900 GB/s.
nodp = by[("pytorch-ddp-readme/resnet50", "no ddp")]
assert abs(nodp["predicted"] / 0.097 - 1) < 1e-3, nodp
one = by[("pytorch-ddp-readme/resnet50", "1M/1G")]
assert abs(one["predicted"] - (0.097 + 0.003)) < 2e-4, one
# Latency-bound: 8 B all-reduces bind on latency and grow with the node count, as published.
lat = [by[("nccl-tests/p3dn-efa-8-bytes", p)] for p in ("2 x 8", "4 x 8", "8 x 8")]
assert all(r["binds"] == "latency" for r in lat), lat
assert lat[0]["predicted"] < lat[1]["predicted"] < lat[2]["predicted"], lat
assert all(abs(r["error"]) < 0.2 for r in lat), lat
# An entry the model cannot run is listed with its reason, and has no rows.
ent = {e["id"]: e for e in rep["entries"]}
assert "parameter server" in ent["tf-benchmarks-p100/resnet50-batch64"]["not_modelled"]
assert rep["summary"]["entries_not_modelled"] == 1
# The scaling-loss shortfall, recomputed from the rows: per entry, the per-GPU cost at the
# most GPUs over the fewest (a held-out row first at equal counts), published minus
# predicted; the count above 0 and the median.
def change(lo, hi, key):
    def cost(r):
        q, v = r["quantity"], r[key]
        return r["gpus"] / v if q == "images_per_second" else 1 / v if q == "busbw_GBps" else v
    return cost(hi) / cost(lo) - 1
short = []
for e in sorted({r["entry"] for r in rows}):
    rs = [r for r in rows if r["entry"] == e]
    lo = min(rs, key=lambda r: (r["gpus"], r["fit"]))
    hi = max(rs, key=lambda r: (r["gpus"], not r["fit"]))
    if lo["gpus"] != hi["gpus"]:
        short.append(change(lo, hi, "published") - change(lo, hi, "predicted"))
short.sort()
h = len(short) // 2
med = short[h] if len(short) % 2 else (short[h - 1] + short[h]) / 2
m = rep["summary"]
assert m["trends_checked"] == len(short), (m, short)
assert m["trends_short"] == sum(d > 0 for d in short), (m, short)
assert abs(m["median_trend_shortfall"] - med) < 1e-12, (m, med)
EOF
grep -q "scaling loss .* median shortfall" "$work/v.txt" || fail "no scaling-loss line printed"

# The skew's fit (scripts/fits/fit_sync_skew.sh) on one entry, a coarse grid: its error at 0 is
# the geometric mean of that entry's multi-GPU rows recomputed here from a validate run with
# --set sync-skew=0, and the best CV is the grid point with the smallest error.
root=$(cd "$(dirname "$0")/../.." && pwd)
PRUNEX="$prunex" "$root/scripts/fits/fit_sync_skew.sh" --only dle-mxnet-resnet50/dgx2-fp32 \
  --max 0.04 --step 0.01 --out "$work/fit" >"$work/fit.txt" 2>&1 || fail "fit: $(cat "$work/fit.txt")"
"$prunex" validate --only dle-mxnet-resnet50/dgx2-fp32 --set sync-skew=0 --no-figure \
  --out "$work/fit0" >/dev/null 2>&1 || fail "validate at sync-skew 0"
"$PY" - "$work/fit/fit.json" "$work/fit0/published.json" <<'EOF' || fail "the fit disagrees"
import json, math, sys
fit, rows = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["rows"]
rows = [r for r in rows if r["gpus"] > 1]
g0 = math.exp(sum(abs(math.log(r["predicted"] / r["published"])) for r in rows) / len(rows)) - 1
pts = fit["points"]
assert [round(p["cv"], 6) for p in pts] == [0, 0.01, 0.02, 0.03, 0.04], pts
assert abs(pts[0]["geomean_error"] - g0) < 1e-12, (pts[0], g0)
assert fit["best_cv"] == min(pts, key=lambda p: p["geomean_error"])["cv"], fit
assert fit["best_cv"] > 0, "the skew lowers the error on DGX-2's published scaling"
EOF
expect_refused "--max and --step" "$work/fitbad" \
  env PRUNEX="$prunex" "$root/scripts/fits/fit_sync_skew.sh" --step 0 --out "$work/fitbad"

# The per-step overhead's fit (scripts/fits/fit_step_overhead.sh) on its default rows: the line is
# the least-squares one (brute force over the intercept, the best slope for each), the model's
# own intercept is the optimizer's 7 passes over ResNet-50's fp32 bytes at the V100's 900 GB/s
# (model-info and topology show, not the simulator), and simulate adds the fitted overhead to
# a one-GPU step exactly.
PRUNEX="$prunex" "$root/scripts/fits/fit_step_overhead.sh" --out "$work/fso" >"$work/fso.txt" 2>&1 ||
  fail "fit_step_overhead: $(cat "$work/fso.txt")"
"$prunex" model-info --model resnet50 --input 224 --classes 1000 --json >"$work/r50.json"
"$prunex" topology show dgx1-v100 --json >"$work/v100.json"
for ms in 0 10; do
  "$prunex" simulate --topology dgx1-v100 --model resnet50 --strategy ddp --nodes 1 \
    --gpus-per-node 1 --batch 32 --input 224 --classes 1000 --iterations 1 --local-steps 1 \
    --ddp-overhead-passes 0 --step-overhead-ms "$ms" --out "$work/so$ms" >/dev/null 2>&1 ||
    fail "simulate --step-overhead-ms $ms"
done
"$PY" - "$work/fso/fit.json" "$work/r50.json" "$work/v100.json" "$work/so0/metrics.json" \
  "$work/so10/metrics.json" <<'EOF' || fail "the step overhead's fit disagrees"
import json, sys
fit, r50, v100, a, b = (json.load(open(p)) for p in sys.argv[1:])
rows = fit["rows"]
assert len(rows) == 6 and {r["batch"] for r in rows} == {32, 112, 128}, rows
def sse(c):  # the best slope for this intercept, and its squared residuals
    k = sum(r["batch"] * (r["step_s"] - c) for r in rows) / sum(r["batch"] ** 2 for r in rows)
    return sum((c + k * r["batch"] - r["step_s"]) ** 2 for r in rows)
c = fit["published_intercept_s"]
grid = [c + i * 1e-5 for i in range(-200, 201)]
assert min(grid, key=sse) == c, (c, min(grid, key=sse))
want = 7 * r50["fp32_bytes"] / (v100["gpu"]["memory_bandwidth_gbs"]["value"] * 1e9)
assert abs(fit["model_intercept_s"] / want - 1) < 1e-6, (fit["model_intercept_s"], want)
assert abs(fit["step_overhead_ms"] - 1000 * (c - want)) < 1e-6, fit
assert 5 < fit["step_overhead_ms"] < 20, fit  # 11.8 ms on the suite of 2026-11-27
t = [m["summary"]["time_per_iteration_s"] for m in (a, b)]
assert abs(t[1] - t[0] - 0.010) < 1e-9, t
EOF
expect_refused "no point 'y' in entry 'x'" "$work/fsobad" \
  env PRUNEX="$prunex" "$root/scripts/fits/fit_step_overhead.sh" --rows x@y --out "$work/fsobad"

# The figure: one collective entry, drawn by prunex plot published.
"$prunex" validate --only nccl-tests/edr-two-nodes --out "$work/fig" >/dev/null 2>&1 ||
  fail "validate with the figure"
head -c 200 "$work/fig/published.svg" | grep -q "<svg\|<?xml" || fail "published.svg is no SVG"

# A suite file named in --only (as FILE.json or by its path) stands for its entries: the
# entries validate runs are the file's own, as the file lists them.
"$prunex" validate --only "$root/validation/published/nccl-tests.json" --no-figure \
  --out "$work/file" >/dev/null 2>&1 || fail "validate --only FILE.json"
python3 - "$root/validation/published/nccl-tests.json" "$work/file/published.json" <<'PY' || fail "--only FILE.json picked other entries"
import json, sys
suite, run = (json.load(open(p)) for p in sys.argv[1:])
want = sorted("nccl-tests/" + e["name"] for e in suite["entries"])
got = sorted(e["id"] for e in run["entries"])
assert got == want, (got, want)
PY

# Bad input: one line, exit 2, nothing written.
expect_refused "--only: no entry is or starts with 'nosuch'" "$work/bad1" \
  "$prunex" validate --only nosuch --out "$work/bad1"
expect_refused "interference" "$work/bad2" \
  "$prunex" validate --set interference=0.5 --out "$work/bad2"
expect_refused "unknown key 'bogus'" "$work/bad3" "$prunex" validate --set bogus=1 --out "$work/bad3"
expect_refused "is not KEY=VALUE" "$work/bad4" "$prunex" validate --set interference --out "$work/bad4"
mkdir "$work/suite"
cp "$suite"/nccl-tests.json "$work/suite/"
cp -r "$suite"/topologies "$work/suite/"
"$PY" - "$work/suite/nccl-tests.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["entries"][1]["points"][0]["vaule"] = d["entries"][1]["points"][0].pop("value")
json.dump(d, open(sys.argv[1], "w"))
EOF
expect_refused "nccl-tests.json" "$work/bad5" \
  "$prunex" validate --suite "$work/suite" --out "$work/bad5"
grep -qF "entries[1].points[0]" "$work/refused.err" || fail "the error names no key path: $(cat "$work/refused.err")"
expect_refused "no such folder" "$work/bad6" "$prunex" validate --suite "$work/none" --out "$work/bad6"
# Nonsense in an entry's parts: each refused naming its path, before any simulation.
bad_suite() {  # bad_suite WORDS PYTHON: nccl-tests.json's entry 1 changed by PYTHON (e, a point p)
  cp "$suite"/nccl-tests.json "$work/suite/nccl-tests.json"
  "$PY" - "$work/suite/nccl-tests.json" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["entries"][1]
p = e["points"][0]
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
EOF
  expect_refused "$1" "$work/bad8" "$prunex" validate --suite "$work/suite" --out "$work/bad8"
}
bad_suite "entries[1].bench.bytes must be a whole number of bytes" 'e["bench"]["bytes"] = 0'
bad_suite "entries[1].bench.bytes must be a whole number of bytes" 'e["bench"]["bytes"] = -4'
bad_suite "entries[1].bench.colour" 'e["bench"]["colour"] = "red"'
bad_suite "a collective needs 2 or more GPUs, the point has 1" 'p.update(nodes=1, gpus_per_node=1)'
bad_suite "a collective entry takes \`bench\`, not the \`simulate\`" 'e["simulate"] = {"model": "resnet50"}'
cp "$suite"/nccl-tests.json "$work/suite/nccl-tests.json"
cp "$suite"/pytorch-ddp-readme.json "$work/suite/"
"$PY" - "$work/suite/pytorch-ddp-readme.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["entries"][0]["simulate"]["batch"] = None
json.dump(d, open(sys.argv[1], "w"))
EOF
expect_refused "key 'batch' is null" "$work/bad9" "$prunex" validate --suite "$work/suite" \
  --out "$work/bad9"
rm "$work/suite/pytorch-ddp-readme.json"
# --set given twice is one list: the first's key is read (and refused here), and two --set
# give the same predictions as one list.
expect_refused "unknown key 'bogus'" "$work/bad7" \
  "$prunex" validate --set bogus=1 --set interference=1 --out "$work/bad7"
for form in one two; do
  sets=(--set interference=1,sync-skew=0)
  [[ $form == two ]] && sets=(--set interference=1 --set sync-skew=0)
  "$prunex" validate --only dle-mxnet-resnet50/dgx2-fp32 "${sets[@]}" --no-figure \
    --out "$work/set_$form" >/dev/null 2>&1 || fail "validate --set ($form)"
done
cmp "$work/set_one/published.json" "$work/set_two/published.json" || fail "--set twice is not one list"
echo "published: ok"
