#!/usr/bin/env bash
# The calibration loop on a GPU, prediction side: calibrates the `localhost` topology from the
# measurements scripts/gpu_check.sh made on the GPU machine (its OUT/calibration-runs) and
# predicts the held-out live runs there, per phase (analysis/validate.py). Runs where SimGrid
# is (this development machine); the GPU machine has none.
#
#   scripts/validate_gpu.sh RUNS [OUT]     (default OUT: results/gpu/validate)
#
# RUNS holds (gpu_check.sh section 6):
#   bench_nccl_2x2.json      prunex bench --backend nccl, every op and group, 2 x 2 ranks
#   memory.json              prunex bench --op compaction --device cuda (its device copy row)
#   steps-2x2-{ddp,hsadmm}/  calibration runs: their local steps give the compute speed, their
#                            memory phases the consensus kernels' speeds
#   live-SHAPE-STRATEGY/     held-out runs (other strategies, another shape), predicted here
# Every run has --sync-phases true (phases time communication alone). The simulations take
# each held-out run's settings from its metrics.json config, and hsadmm's masks from it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:?usage: validate_gpu.sh RUNS [OUT]}
out=${2:-results/gpu/validate}
prunex=build/bin/prunex
[ -f "$runs/bench_nccl_2x2.json" ] || { echo "validate_gpu.sh: no bench_nccl_2x2.json in $runs" >&2; exit 2; }
mkdir -p "$out"
steps=$(ls -d "$runs"/steps-*/ | sed 's|/$|/metrics.json|' | paste -sd, -)
memory=()
[ -f "$runs/memory.json" ] && memory=(--memory "$runs/memory.json")
# The ranks share one GPU, in the calibration runs and the held-out ones alike (4 ranks each):
# no host-core sharing model (--host-cores 0).
$prunex calibrate --from "$runs/bench_nccl_2x2.json" --steps "$steps" "${memory[@]}" \
  --host-cores 0 --out "$out/calibration.json" > "$out/calibrate.txt"
grep -E "^(intra|inter|compute|memory)" "$out/calibrate.txt" | sed 's/^/  /' || true
pairs=()
for live in "$runs"/live-*/; do
  live=${live%/}
  name=$(basename "$live")
  # The simulation's settings from the live run's record.
  read -r nodes gpn model input channels strategy iterations steps_n batch samples t_freeze keep < <(
    /usr/bin/python3 - "$live/metrics.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["config"]
print(c["nodes"], c["gpus-per-node"], c["model"], c["input"], c["input-channels"], c["strategy"],
      c["iterations"], c["local-steps"], c["batch"], c["samples"], c["t-freeze"], c["keep"])
PY
  )
  # The options of the run's strategy only (simulate warns about the others).
  extra=()
  case $strategy in
    hsadmm*) extra=(--masks "$live/metrics.json" --t-freeze "$t_freeze" --keep "$keep") ;;
    ddp|fp16|pactrain|cgx) extra=(--ddp-overlap false --ddp-overhead-passes 0) ;;
  esac
  $prunex simulate --topology localhost --calibration "$out/calibration.json" --nodes "$nodes" \
    --gpus-per-node "$gpn" --model "$model" --input "$input" --input-channels "$channels" \
    --strategy "$strategy" --iterations "$iterations" --local-steps "$steps_n" --batch "$batch" \
    --samples "$samples" --interference 1 --sync-skew 0 "${extra[@]}" --out "$out/sim/$name" \
    > "$out/sim_$name.log"
  pairs+=("$live/metrics.json:$out/sim/$name/metrics.json")
done
/usr/bin/python3 analysis/validate.py "${pairs[@]}" --stat mean --markdown "$out/VALIDATION.md" \
  --json "$out/validation.json" | tee "$out/VALIDATION.txt"
echo "wrote $out/VALIDATION.md and $out/validation.json"
