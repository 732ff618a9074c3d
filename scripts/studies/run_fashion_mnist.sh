#!/usr/bin/env bash
# The README's live results: each strategy on Fashion-MNIST with small_cnn, 4 ranks as 2
# emulated nodes x 2, with the config shipped in workloads/configs/. Outputs under
# out/fashion_mnist/<strategy>/ and the console log next to it.
#
#   scripts/studies/run_fashion_mnist.sh [STRATEGY...]    (default: ddp hsadmm hsadmm-flat topk)
#
# A name runs with workloads/configs/fashion_mnist_small_cnn_<name>.json, whose "strategy"
# key (if any) is the strategy (topk10: topk at 10%); a name without such a file, or whose
# strategy prunex does not know, is refused before anything runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
case "${1:-}" in
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
strategy_of() {  # NAME: the config's "strategy", else NAME
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("strategy", sys.argv[2]))' \
    "workloads/configs/fashion_mnist_small_cnn_$1.json" "$1"
}
for s in ${@:-ddp hsadmm hsadmm-flat topk}; do
  [[ -f workloads/configs/fashion_mnist_small_cnn_$s.json ]] || {
    echo "run_fashion_mnist.sh: no config for '$s'" \
      "(workloads/configs/fashion_mnist_small_cnn_$s.json)" >&2
    exit 2
  }
  err=$(build/bin/prunex sweep --topology puhti --gpus 8 --strategy "$(strategy_of "$s")" \
    --count-points 2>&1 >/dev/null) || { echo "run_fashion_mnist.sh: $s: ${err#prunex sweep: error: }" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for s in "${@:-ddp hsadmm hsadmm-flat topk}"; do
  for strategy in $s; do
    out=out/fashion_mnist/$strategy
    mkdir -p "$out"
    start=$(date +%s)
    mpirun -q --oversubscribe -np 4 build/bin/prunex train --gpus-per-node 2 \
      --dataset fashion-mnist --model small_cnn --strategy "$(strategy_of "$strategy")" \
      --config "workloads/configs/fashion_mnist_small_cnn_$strategy.json" --out "$out" \
      | tee "$out/console.log"
    echo "wall: $(( $(date +%s) - start )) s" | tee -a "$out/console.log"
  done
done
