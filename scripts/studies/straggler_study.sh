#!/usr/bin/env bash
# How one slow GPU slows each strategy (issue 21): per strategy and GPU count, one simulated
# outer iteration of ResNet-152 on CIFAR-10 on puhti without and with one straggler (GPU 1, a
# follower of node 0, computing --factor times slower), and the slowdown. An iteration is one
# epoch over the GPUs (--local-steps 0: strong scaling, the paper's E = 1) or N steps of 128
# samples per GPU (--local-steps N, with a training set of 128 N samples per GPU: the same
# work per GPU at every size).
#
#   scripts/studies/straggler_study.sh [--gpus 64,4096] [--factor 2] [--local-steps 0]
#                              [--strategies hsadmm,hsadmm-flat,ddp,topk] [--out DIR]
#
# Each point: prunex simulate --topology puhti --nodes G/4 --gpus-per-node 4 --model resnet152
#   --strategy S --iterations 1 --local-steps N [--straggler-gpus 1 --straggler-factor X]
# Writes DIR/stragglers.json (rows: strategy, gpus, factor, baseline_s, straggler_s,
# slowdown, compute_s: the iteration's local compute without the straggler) and
# DIR/table.md; `prunex plot stragglers DIR/stragglers.json --out F.png` draws it.
set -euo pipefail
cd "$(dirname "$0")/../.."
gpus=64,4096 factor=2 steps=0 strategies=hsadmm,hsadmm-flat,ddp,topk out=out/stragglers
while [[ $# -gt 0 ]]; do
  case $1 in
    --gpus) gpus=$2; shift 2 ;;
    --factor) factor=$2; shift 2 ;;
    --local-steps) steps=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "straggler_study.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ $gpus =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "straggler_study.sh: --gpus must be a list of counts" >&2; exit 2; }
[[ $factor =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "straggler_study.sh: --factor must be a number" >&2; exit 2; }
[[ $steps =~ ^[0-9]+$ ]] || { echo "straggler_study.sh: --local-steps must be a count" >&2; exit 2; }
prunex=build/bin/prunex
[[ -x $prunex ]] || { echo "straggler_study.sh: build first (scripts/build.sh)" >&2; exit 2; }
IFS=, read -ra gpu_list <<< "$gpus"
IFS=, read -ra strat_list <<< "$strategies"
for g in "${gpu_list[@]}"; do
  (( g % 4 == 0 && g >= 8 )) || { echo "straggler_study.sh: --gpus: $g is not a multiple of 4 (>= 8)" >&2; exit 2; }
done
# The strategy names as prunex reads them, before any run (its one line, exit 2).
for s in "${strat_list[@]}"; do
  [[ -n $s ]] || { echo "straggler_study.sh: --strategies has an empty entry" >&2; exit 2; }
done
err=$("$prunex" sweep --topology puhti --gpus 8 --strategy "$strategies" --count-points 2>&1 \
  >/dev/null) || { echo "straggler_study.sh: --strategies: ${err#prunex sweep: error: }" >&2; exit 2; }
mkdir -p "$out/runs"
rows=()
for s in "${strat_list[@]}"; do
  for g in "${gpu_list[@]}"; do
    for case in base slow; do
      d=$out/runs/${s}_${g}_$case
      extra=() samples=()
      # N full batches on every GPU: a training set of 128 x N samples per GPU.
      (( steps > 0 )) && samples=(--samples $((128 * steps * g)))
      [[ $case == slow ]] && extra=(--straggler-gpus 1 --straggler-factor "$factor")
      echo "== $s, $g GPUs, $case" >&2
      $prunex simulate --topology puhti --nodes $((g / 4)) --gpus-per-node 4 --model resnet152 \
        --strategy "$s" --iterations 1 --local-steps "$steps" "${samples[@]}" "${extra[@]}" \
        --out "$d" > "$d.log" 2>&1 ||
        { echo "straggler_study.sh: $d failed: $(tail -2 "$d.log")" >&2; exit 1; }
    done
    b=$out/runs/${s}_${g}_base/metrics.json w=$out/runs/${s}_${g}_slow/metrics.json
    rows+=("$(jq -c --arg s "$s" --argjson g "$g" --argjson x "$factor" --slurpfile w "$w" '
      {strategy: $s, gpus: $g, factor: $x, baseline_s: .summary.run_s,
       straggler_s: $w[0].summary.run_s, slowdown: ($w[0].summary.run_s / .summary.run_s),
       compute_s: .iterations[0].phases.local_compute.critical_path_s}' "$b")")
  done
done
printf '%s\n' "${rows[@]}" | jq -s --arg x "$factor" \
  --argjson steps "$steps" '{rows: ., config: {topology: "puhti", gpus_per_node: 4, model: "resnet152",
    iteration: (if $steps == 0 then "one epoch of CIFAR-10 over the GPUs" else "\($steps) steps of 128 per GPU" end),
    straggler: ("GPU 1 (a follower of node 0) computes " + $x + " times slower"),
    command: "scripts/studies/straggler_study.sh"}}' > "$out/stragglers.json.tmp"
mv "$out/stragglers.json.tmp" "$out/stragglers.json"
{
  echo "| strategy | GPUs | iteration (s) | with one straggler x$factor (s) | slowdown | compute share |"
  echo "|---|---:|---:|---:|---:|---:|"
  jq -r '.rows[] | "| \(.strategy) | \(.gpus) | \(.baseline_s * 1000 | round / 1000) | " +
    "\(.straggler_s * 1000 | round / 1000) | \(.slowdown * 1000 | round / 1000)x | " +
    "\(.compute_s / .baseline_s * 100 | round)% |"' "$out/stragglers.json"
} > "$out/table.md"
cat "$out/table.md"
