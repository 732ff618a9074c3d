#!/usr/bin/env bash
# The README's live results: each strategy on Fashion-MNIST with small_cnn, 4 ranks as 2
# emulated nodes x 2, with the config shipped in workloads/configs/. Outputs under
# out/fashion_mnist/<strategy>/ and the console log next to it.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for s in "${@:-ddp hsadmm hsadmm-flat topk}"; do
  for strategy in $s; do
    out=out/fashion_mnist/$strategy
    mkdir -p "$out"
    start=$(date +%s)
    mpirun -q --oversubscribe -np 4 build/bin/prunex train --gpus-per-node 2 \
      --dataset fashion-mnist --model small_cnn --strategy "$strategy" \
      --config "workloads/configs/fashion_mnist_small_cnn_$strategy.json" --out "$out" \
      | tee "$out/console.log"
    echo "wall: $(( $(date +%s) - start )) s" | tee -a "$out/console.log"
  done
done
