#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, then shows the toolkit on this
# machine: the model and cluster it reasons about, a short live H-SADMM training run on
# Fashion-MNIST next to dense DDP on the same work (as root: 4 emulated nodes on a slow
# network; else 4 MPI ranks on shared memory), their time to a common accuracy and
# inter-node bytes, the paper's communication figures reproduced on a modeled Puhti (prunex
# reproduce), and where every output went.
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
# rank) for 3 outer iterations. The full runs are scripts/studies/run_fashion_mnist.sh and
# scripts/studies/run_emulated.sh. As root, the ranks run on an emulated slow cluster (prunex emulate:
# 4 nodes x 1 rank in network namespaces, puhti's links / 5000 = 20 Mbit/s and 14.2 ms one
# way), where DDP's communication is several times its compute, as on a cluster whose network
# binds; elsewhere on shared memory, where both take about the same time.
if [ "$(id -u)" = 0 ] && ip netns add prunex-demo-probe 2>/dev/null; then
  ip netns del prunex-demo-probe
  section "Live H-SADMM (channel keep 0.5) and DDP on an emulated slow cluster (4 nodes x 1)"
  echo "  (prunex emulate --topology puhti --nodes 4 --slowdown 5000; test accuracy on 2,000"
  echo "   test samples; about 2 minutes)"
  for s in hsadmm ddp; do
    $prunex emulate --topology puhti --nodes 4 --gpus-per-node 1 --slowdown 5000 -- \
      train --dataset fashion-mnist --model small_cnn --strategy $s \
      --config workloads/configs/fashion_mnist_small_cnn_$s.json --train-samples 8000 \
      --test-samples 2000 --iterations 3 --out $out/emulated/$s 2>&1 |
      grep --line-buffered -E "^(train:|iter )" | sed -u "s/^/  /"
  done
  runs=($out/emulated/hsadmm $out/emulated/ddp)
else
  echo "  (no network namespaces here (needs root): the ranks share this host's memory, so"
  echo "   H-SADMM and DDP take about the same time; scripts/studies/run_emulated.sh shows the network)"
  short=(--gpus-per-node 2 --dataset fashion-mnist --model small_cnn --train-samples 8000
         --iterations 3)
  section "Live H-SADMM, channel keep 0.5 (4 ranks = 2 nodes x 2, shared memory)"
  mpirun -q --oversubscribe -np 4 $prunex train "${short[@]}" --strategy hsadmm \
    --config workloads/configs/fashion_mnist_small_cnn_hsadmm.json --out $out/hsadmm
  section "Live DDP on the same work"
  mpirun -q --oversubscribe -np 4 $prunex train "${short[@]}" --strategy ddp \
    --config workloads/configs/fashion_mnist_small_cnn_ddp.json --out $out/ddp
  runs=($out/hsadmm $out/ddp)
fi

section "Inter-node bytes and time to a common accuracy"
python3 analysis/time_to_accuracy.py "${runs[@]}"
$prunex plot accuracy "${runs[0]}/metrics.json" "${runs[1]}/metrics.json" --out $out/accuracy.png |
  sed 's/^/  /'

section "The paper's Figs. 6-9 on a modeled Puhti (SimGrid), compared with the paper"
echo "  (prunex reproduce: 14 simulations and 9 figures, about a minute on 2 cores)"
$prunex reproduce --out $out/reproduce

section "Outputs"
echo "  ${runs[0]}/metrics.json, trace.json (open in https://ui.perfetto.dev); ${runs[1]}/ alike"
echo "  $out/accuracy.png: test accuracy against wall time and inter-node bytes"
echo "  $out/reproduce/REPORT.md: every number the paper states for Figs. 6-9 next to ours,"
echo "    with the relative error and the reason for each difference (report.json: the rows)"
echo "  $out/reproduce/fig{6,7,8,9}_*.png and projection_fig*.png (to 4096 GPUs); records in"
echo "    $out/reproduce/runs/"
