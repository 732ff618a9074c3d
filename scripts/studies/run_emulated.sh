#!/usr/bin/env bash
# Live training on an emulated cluster (issue 17): each strategy on Fashion-MNIST with
# small_cnn, for each shape (nodes x ranks per node) and each --slowdown of the puhti links,
# under `prunex emulate`; then a table of time-to-accuracy (wall time until the highest test
# accuracy every run of the same shape and slowdown reaches), accuracy, inter-node bytes per
# iteration against dense, and where the time went.
#
#   scripts/studies/run_emulated.sh [--shapes 2x2,4x1] [--slowdowns 5000,10000]
#                           [--strategies hsadmm,hsadmm-flat,ddp,topk] [--samples 8000]
#   (a strategy name S reads workloads/configs/fashion_mnist_small_cnn_S.json; a config with a
#   "strategy" key runs that strategy under the name S, e.g. topk10: Top-K at 10%)
#                           [--iterations 6] [--out out/emulated]
#
# Each run: prunex emulate --topology puhti --nodes M --gpus-per-node P --slowdown X --
#   train --dataset fashion-mnist --model small_cnn --strategy S
#   --config workloads/configs/fashion_mnist_small_cnn_S.json --train-samples N --iterations I
# Needs root (network namespaces). Writes OUT/<shape>_x<slowdown>/<strategy>/ (metrics.json,
# console.log) and OUT/table.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
shapes=2x2,4x1 slowdowns=5000,10000 strategies=hsadmm,hsadmm-flat,ddp,topk samples=8000
iterations=6 out=out/emulated
while [[ $# -gt 0 ]]; do
  case $1 in
    --shapes) shapes=$2; shift 2 ;;
    --slowdowns) slowdowns=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_emulated.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ $shapes =~ ^[0-9]+x[0-9]+(,[0-9]+x[0-9]+)*$ ]] || { echo "run_emulated.sh: --shapes like 2x2,4x1" >&2; exit 2; }
prunex=build/bin/prunex
[[ -x $prunex ]] || { echo "run_emulated.sh: build first (scripts/build.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
IFS=, read -ra shape_list <<< "$shapes"
IFS=, read -ra slow_list <<< "$slowdowns"
IFS=, read -ra strat_list <<< "$strategies"
for shape in "${shape_list[@]}"; do
  m=${shape%x*} p=${shape#*x}
  for x in "${slow_list[@]}"; do
    for s in "${strat_list[@]}"; do
      dir="$out/${shape}_x$x/$s"
      mkdir -p "$dir"
      echo "run_emulated: $shape, slowdown $x, $s" >&2
      start=$(date +%s.%N)
      # A config may name its strategy (topk10: topk at 10%); else the name is the strategy.
      st=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("strategy", sys.argv[2]))' \
        "workloads/configs/fashion_mnist_small_cnn_$s.json" "$s")
      "$prunex" emulate --topology puhti --nodes "$m" --gpus-per-node "$p" --slowdown "$x" -- \
        train --dataset fashion-mnist --model small_cnn --strategy "$st" \
        --config "workloads/configs/fashion_mnist_small_cnn_$s.json" \
        --train-samples "$samples" --iterations "$iterations" --out "$dir" > "$dir/console.log" 2>&1 ||
        { echo "run_emulated: $shape x$x $s failed: $(tail -3 "$dir/console.log")" >&2; exit 1; }
      echo "wall: $(python3 -c "import time; print(round(time.time() - $start, 1))") s" >> "$dir/console.log"
    done
  done
done

python3 - "$out" <<'EOF'
import glob, json, os, sys
sys.path.insert(0, "analysis")
from time_to_accuracy import common_accuracy, time_to as time_to_accuracy
out = sys.argv[1]
lines = ["| shape | slowdown | strategy | final accuracy | time to common accuracy (s) | "
         "speedup over ddp | s per iteration | inter-node MB per iteration (dense) | "
         "comm share of iteration |",
         "|---|---|---|---|---|---|---|---|---|"]
for group in sorted(glob.glob(f"{out}/*_x*")):
    shape, slow = os.path.basename(group).split("_x")
    runs = {}
    for f in sorted(glob.glob(f"{group}/*/metrics.json")):
        runs[os.path.basename(os.path.dirname(f))] = json.load(open(f))
    if not runs:
        continue
    common = common_accuracy(runs.values())
    def time_to(m):
        return time_to_accuracy(m, common)
    ddp = time_to(runs["ddp"]) if "ddp" in runs else None
    for s, m in sorted(runs.items()):
        its = m["iterations"]
        reached = time_to(m)
        vs_ddp = f"{ddp / reached:.2f}x" if ddp else "-"
        summ = m["summary"]
        per_it = sum(i["wall_seconds"] for i in its) / len(its)
        comm = sum(v for k, v in summ["phase_seconds"].items() if k not in ("local_compute",))
        share = comm / summ["time_per_iteration_s"] if summ["time_per_iteration_s"] else 0
        lines.append(f"| {shape} | {slow} | {s} | {100 * its[-1]['accuracy']:.2f}% | "
                     f"{reached:.1f} (to {100 * common:.2f}%) | {vs_ddp} | {per_it:.1f} | "
                     f"{summ['inter_node_bytes_per_iteration'] / 1e6:.3f} "
                     f"({summ['dense_inter_node_bytes_per_iteration'] / 1e6:.3f}) | {100 * share:.0f}% |")
open(f"{out}/table.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
