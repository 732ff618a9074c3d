#!/usr/bin/env bash
# The README's live results: each strategy on Fashion-MNIST with small_cnn, 4 ranks as 2
# emulated nodes x 2, with the config shipped in workloads/configs/. Outputs under
# out/fashion_mnist/<strategy>/ and the console log next to it.
#
#   scripts/run_fashion_mnist.sh [STRATEGY...]    (default: ddp hsadmm hsadmm-flat topk)
#
# A strategy runs with workloads/configs/fashion_mnist_small_cnn_<strategy>.json; one without
# such a file is refused before anything runs.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
for s in ${@:-}; do
  [[ -f workloads/configs/fashion_mnist_small_cnn_$s.json ]] || {
    echo "run_fashion_mnist.sh: no config for strategy '$s'" \
      "(workloads/configs/fashion_mnist_small_cnn_$s.json)" >&2
    exit 2
  }
done
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
