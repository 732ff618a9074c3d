#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, then shows the toolkit on this
# machine: the model and cluster it reasons about, a short live H-SADMM training run on
# Fashion-MNIST (4 MPI ranks as 2 emulated nodes x 2) next to dense DDP on the same work,
# the paper's communication figures reproduced on a modeled Puhti (prunex reproduce), and
# where every output went.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
prunex=build/bin/prunex
out=out/demo

section() { printf '\n=== %s\n' "$*"; }

section "The model: small_cnn on 28x28x1 inputs"
$prunex model-info --model small_cnn --input 28 --input-channels 1 | tail -4

section "The paper's cluster: CSC Puhti"
$prunex topology show puhti | head -8

# A short run: the shipped configs (README results) on 8,000 training samples (2,000 per
# rank) for 3 outer iterations. The full runs are scripts/run_fashion_mnist.sh.
short=(--gpus-per-node 2 --dataset fashion-mnist --model small_cnn --train-samples 8000
       --iterations 3)
section "Live H-SADMM, channel keep 0.5 (4 ranks = 2 nodes x 2)"
mpirun -q --oversubscribe -np 4 $prunex train "${short[@]}" --strategy hsadmm \
  --config workloads/configs/fashion_mnist_small_cnn_hsadmm.json --out $out/hsadmm
section "Live DDP on the same work"
mpirun -q --oversubscribe -np 4 $prunex train "${short[@]}" --strategy ddp \
  --config workloads/configs/fashion_mnist_small_cnn_ddp.json --out $out/ddp

section "Inter-node bytes per iteration (H-SADMM against its dense size)"
python3 - $out <<'PY'
import json, sys
for s in ("hsadmm", "ddp"):
    m = json.load(open(f"{sys.argv[1]}/{s}/metrics.json"))["summary"]
    print(f"  {s:8s} inter-node {m['inter_node_bytes_per_iteration']/1e6:9.3f} MB per iteration, "
          f"test accuracy {100*m['test_accuracy']:.2f}%")
PY

section "The paper's Figs. 6-9 on a modeled Puhti (SimGrid), compared with the paper"
echo "  (prunex reproduce: 14 simulations and 8 figures, about a minute on 2 cores)"
$prunex reproduce --out $out/reproduce

section "Outputs"
echo "  $out/hsadmm/metrics.json, $out/hsadmm/trace.json (open in https://ui.perfetto.dev)"
echo "  $out/ddp/metrics.json,    $out/ddp/trace.json"
echo "  $out/reproduce/REPORT.md: every number the paper states for Figs. 6-9 next to ours,"
echo "    with the relative error and the reason for each difference (report.json: the rows)"
echo "  $out/reproduce/fig{6,7,8,9}_*.png and projection_fig*.png (to 4096 GPUs); records in"
echo "    $out/reproduce/runs/"
