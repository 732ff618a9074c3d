#!/usr/bin/env bash
# Fits simulate's --step-overhead-ms, a framework's fixed cost per local step, on stated
# one-GPU rows of the published suite: one GPU, one model and precision at several batch
# sizes. Their step times (batch / images per second, or the seconds published) on a line
# step = c + k x batch by least squares give the intercept c; the model's own step at the same
# shape has an intercept too (the optimizer's passes at memory bandwidth), from `prunex
# simulate` at two batches with the rows' own settings (topology, model, input, classes, the
# ddp strategy without DDP's overhead: one GPU); --step-overhead-ms is what the published
# intercept has beyond the model's. The rows must agree on those settings. The rows fitted on
# are fit rows of their entries already (each entry fits its GPU speed on them), so the value
# is reported on other rows: those whose batch differs from their fit row's
# (docs/simulation.md). A strategy with more passes of its own (fp16: 10 over the weights
# against ddp's 7) has a larger intercept in the model, on top of this value.
#
#   scripts/fits/fit_step_overhead.sh [--rows ENTRY@POINT,...] [--out out/fit_step_overhead]
#
# --rows defaults to the suite's one-GPU ResNet-50 rows at fp32 on DGX-1's V100 without DDP:
# PyTorch's DDP benchmark at batch 32 and DeepLearningExamples' PyTorch README (three
# releases, 16 and 32 GB) at 112 and 128. Writes OUT/fit.json ({rows: [{row, batch,
# step_s, line_s}], published_intercept_s, slope_s_per_sample, model_intercept_s,
# step_overhead_ms}) and prints the table. Needs build/bin/prunex (or $PRUNEX).
set -euo pipefail
cd "$(dirname "$0")/../.."
rows="pytorch-ddp-readme/resnet50@no ddp,dle-pytorch-resnet50/dgx1-16gb-fp32@1 GPU"
rows+=",dle-pytorch-resnet50-20.12/dgx1-16gb-fp32@1 GPU,dle-pytorch-resnet50-20.12/dgx1-32gb-fp32@1 GPU"
rows+=",dle-pytorch-resnet50-20.06/dgx1-16gb-fp32@1 GPU,dle-pytorch-resnet50-20.06/dgx1-32gb-fp32@1 GPU"
out=out/fit_step_overhead
while [[ $# -gt 0 ]]; do
  case $1 in
    --rows|--out)
      [[ $# -ge 2 ]] || { echo "fit_step_overhead.sh: $1 needs a value" >&2; exit 2; } ;;&
    --rows) rows=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
    shape = {k: sim.get(k) for k in ("topology", "model", "input", "classes", "precision")}
    if rows and shape != rows[0]["shape"]:
        sys.exit(f"fit_step_overhead.sh: --rows: {spec} runs {shape}, {rows[0]['row']} "
                 f"{rows[0]['shape']}: one GPU, model and precision for all")
    rows.append({"row": spec, "batch": sim["batch"], "step_s": step, "shape": shape})
if len({r["batch"] for r in rows}) < 2:
    sys.exit("fit_step_overhead.sh: --rows must hold at least two batch sizes")
json.dump(rows, open(dest, "w"))
PY
read -r topology model input classes precision < <("$PY" -c '
import json, sys
s = json.load(open(sys.argv[1]))[0]["shape"]
print(s["topology"], s["model"], s["input"] or 224, s["classes"] or 1000, s["precision"] or "fp32")' \
  "$tmp/rows.json")
# The model's own step at 1 GPU and two batches: its intercept does not depend on the GPU speed.
for b in 32 256; do
  "$prunex" simulate --topology "$topology" --model "$model" --strategy ddp --nodes 1 \
    --gpus-per-node 1 --batch "$b" --input "$input" --classes "$classes" \
    --precision "$precision" --iterations 1 \
    --local-steps 1 --ddp-overhead-passes 0 --out "$tmp/sim$b" > "$tmp/sim$b.txt" 2>&1 ||
    { cat "$tmp/sim$b.txt" >&2; exit 2; }
done
mkdir -p "$out"
"$PY" - "$tmp" "$out/fit.json" <<'PY'
import json, sys
tmp, dest = sys.argv[1:]
rows = json.load(open(f"{tmp}/rows.json"))
def line(rs):  # least squares: (intercept, slope), or None with one batch size
    n = len(rs)
    mb = sum(r["batch"] for r in rs) / n
    mt = sum(r["step_s"] for r in rs) / n
    sxx = sum((r["batch"] - mb) ** 2 for r in rs)
    if sxx == 0:
        return None
    k = sum((r["batch"] - mb) * (r["step_s"] - mt) for r in rs) / sxx
    return mt - k * mb, k
c, k = line(rows)
t = {b: json.load(open(f"{tmp}/sim{b}/metrics.json"))["summary"]["time_per_iteration_s"]
     for b in (32, 256)}
model_c = t[32] - 32 * (t[256] - t[32]) / (256 - 32)
for r in rows:
    r["line_s"] = c + k * r["batch"]
    del r["shape"]
# How much the value rests on each row: the fit without it.
without = {}
for i, r in enumerate(rows):
    rest = line(rows[:i] + rows[i + 1:])
    without[r["row"]] = None if rest is None else 1000 * (rest[0] - model_c)
fit = {"rows": rows, "published_intercept_s": c, "slope_s_per_sample": k,
       "model_intercept_s": model_c, "step_overhead_ms": 1000 * (c - model_c),
       "step_overhead_ms_without_row": without}
json.dump(fit, open(dest, "w"), indent=1)
print(f"{'row':<58} {'batch':>5} {'step ms':>8} {'line ms':>8} {'diff':>6}")
for r in rows:
    print(f"{r['row']:<58} {r['batch']:>5} {1000 * r['step_s']:>8.2f} {1000 * r['line_s']:>8.2f} "
          f"{100 * (r['line_s'] / r['step_s'] - 1):>+5.1f}%")
print(f"published: step = {1000 * c:.2f} ms + {1000 * k:.4f} ms x batch; the model's own "
      f"intercept {1000 * model_c:.2f} ms; step-overhead-ms {fit['step_overhead_ms']:.2f}")
print("without one row: " + ", ".join(
    f"{row} {'-' if v is None else f'{v:.1f}'}" for row, v in without.items()))
PY
echo "wrote $out/fit.json"
