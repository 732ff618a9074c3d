#!/usr/bin/env bash
# Fits simulate's --step-overhead-ms, a framework's fixed cost per local step, on stated
# one-GPU rows of the published suite: one GPU, one model and precision at several batch
# sizes. Their step times (batch / images per second, or the seconds published) on a line
# step = c + k x batch by least squares give the intercept c; the model's own step at the same
# shape has an intercept too (the optimizer's passes at memory bandwidth), from `prunex
# simulate` at two batches; --step-overhead-ms is what the published intercept has beyond the
# model's. The rows fitted on are fit rows of their entries already (each entry fits its GPU
# speed on them), so the value is reported on other rows: those whose batch differs from
# their fit row's (docs/simulation.md).
#
#   scripts/fit_step_overhead.sh [--rows ENTRY@POINT,...] [--topology dgx1-v100]
#                                [--model resnet50] [--out out/fit_step_overhead]
#
# --rows defaults to the suite's one-GPU ResNet-50 rows at fp32 on DGX-1's V100 without DDP:
# PyTorch's DDP benchmark at batch 32 and DeepLearningExamples' PyTorch README (three
# releases, 16 and 32 GB) at 112 and 128. Writes OUT/fit.json ({rows: [{row, batch,
# step_s, line_s}], published_intercept_s, slope_s_per_sample, model_intercept_s,
# step_overhead_ms}) and prints the table. Needs build/bin/prunex (or $PRUNEX).
set -euo pipefail
cd "$(dirname "$0")/.."
rows="pytorch-ddp-readme/resnet50@no ddp,dle-pytorch-resnet50/dgx1-16gb-fp32@1 GPU"
rows+=",dle-pytorch-resnet50-20.12/dgx1-16gb-fp32@1 GPU,dle-pytorch-resnet50-20.12/dgx1-32gb-fp32@1 GPU"
rows+=",dle-pytorch-resnet50-20.06/dgx1-16gb-fp32@1 GPU,dle-pytorch-resnet50-20.06/dgx1-32gb-fp32@1 GPU"
topology=dgx1-v100 model=resnet50 out=out/fit_step_overhead
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows|--topology|--model|--out)
      [[ $# -ge 2 ]] || { echo "fit_step_overhead.sh: $1 needs a value" >&2; exit 2; } ;;&
    --rows) rows=$2; shift 2 ;;
    --topology) topology=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fit_step_overhead.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3
prunex=${PRUNEX:-build/bin/prunex}
[[ -x $prunex ]] || { echo "fit_step_overhead.sh: $prunex is missing (scripts/build.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The rows, from the suite's files: each entry's simulate settings with the point's on top.
"$PY" - "$rows" "$tmp/rows.json" <<'PY' || exit 2
import glob, json, sys
wanted, dest = sys.argv[1:]
entries = {}
for path in sorted(glob.glob("validation/published/*.json")):
    suite = json.load(open(path))
    stem = path.rsplit("/", 1)[1][:-len(".json")]
    for e in suite.get("entries", []):
        entries[f"{stem}/{e['name']}"] = e
rows = []
for spec in wanted.split(","):
    entry_id, _, label = spec.partition("@")
    e = entries.get(entry_id)
    points = [p for p in (e or {}).get("points", []) if p["label"] == label]
    if not points:
        sys.exit(f"fit_step_overhead.sh: --rows: no point '{label}' in entry '{entry_id}'")
    p = points[0]
    sim = dict(e["simulate"], **p.get("simulate", {}))
    if p["nodes"] * p["gpus_per_node"] != 1:
        sys.exit(f"fit_step_overhead.sh: --rows: {spec} runs on more than one GPU")
    if e["quantity"] == "images_per_second":
        step = sim["batch"] / p["value"]
    elif e["quantity"] == "seconds_per_iteration":
        step = p["value"]
    else:
        sys.exit(f"fit_step_overhead.sh: --rows: {spec} publishes {e['quantity']}, not a step")
    rows.append({"row": spec, "batch": sim["batch"], "step_s": step,
                 "input": sim.get("input", 224), "classes": sim.get("classes", 1000)})
if len({r["batch"] for r in rows}) < 2:
    sys.exit("fit_step_overhead.sh: --rows must hold at least two batch sizes")
json.dump(rows, open(dest, "w"))
PY
read -r input classes < <("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r["input"], r["classes"])' "$tmp/rows.json")
# The model's own step at 1 GPU and two batches: its intercept does not depend on the GPU speed.
for b in 32 256; do
  "$prunex" simulate --topology "$topology" --model "$model" --strategy ddp --nodes 1 \
    --gpus-per-node 1 --batch "$b" --input "$input" --classes "$classes" --iterations 1 \
    --local-steps 1 --ddp-overhead-passes 0 --out "$tmp/sim$b" > "$tmp/sim$b.txt" 2>&1 ||
    { cat "$tmp/sim$b.txt" >&2; exit 2; }
done
mkdir -p "$out"
"$PY" - "$tmp" "$out/fit.json" <<'PY'
import json, sys
tmp, dest = sys.argv[1:]
rows = json.load(open(f"{tmp}/rows.json"))
n = len(rows)
mb = sum(r["batch"] for r in rows) / n
mt = sum(r["step_s"] for r in rows) / n
k = sum((r["batch"] - mb) * (r["step_s"] - mt) for r in rows) / \
    sum((r["batch"] - mb) ** 2 for r in rows)
c = mt - k * mb
t = {b: json.load(open(f"{tmp}/sim{b}/metrics.json"))["summary"]["time_per_iteration_s"]
     for b in (32, 256)}
model_c = t[32] - 32 * (t[256] - t[32]) / (256 - 32)
for r in rows:
    r["line_s"] = c + k * r["batch"]
    del r["input"], r["classes"]
fit = {"rows": rows, "published_intercept_s": c, "slope_s_per_sample": k,
       "model_intercept_s": model_c, "step_overhead_ms": 1000 * (c - model_c)}
json.dump(fit, open(dest, "w"), indent=1)
print(f"{'row':<58} {'batch':>5} {'step ms':>8} {'line ms':>8} {'diff':>6}")
for r in rows:
    print(f"{r['row']:<58} {r['batch']:>5} {1000 * r['step_s']:>8.2f} {1000 * r['line_s']:>8.2f} "
          f"{100 * (r['line_s'] / r['step_s'] - 1):>+5.1f}%")
print(f"published: step = {1000 * c:.2f} ms + {1000 * k:.4f} ms x batch; the model's own "
      f"intercept {1000 * model_c:.2f} ms; step-overhead-ms {fit['step_overhead_ms']:.2f}")
PY
echo "wrote $out/fit.json"
