#!/usr/bin/env bash
# Fidelity of the simulator on this machine: calibrate the `localhost` topology from live MPI
# benches and a short live run, then predict live `prunex train` runs of every strategy on
# 2 x 2 and 4 x 2 emulated nodes and compare per phase (analysis/validate.py).
#
#   scripts/validate_localhost.sh [OUT]      (default out/validate; ~25 minutes on 2 cores)
#   VALIDATE_SHAPES="2x1" scripts/validate_localhost.sh out/validate_2x1   (other shapes)
#
# Per shape MxP (W = M x P ranks; default 2x2 and 4x2):
#   1. prunex bench --backend mpi (all ops, all groups, 64 B - 1 MiB: down to the mask bits)
#      after 50 ms of CPU work that ends by writing 16 MiB (--busy-us; --evict's default: the
#      buffers leave the core's caches, as after a training step), between two barriers per
#      iteration (--sync), the median over 20 iterations of each iteration's slowest rank
#      (--stat median: one scheduler stall does not move a point)       -> bench_a.json
#      the same with caches kept (--evict 0)                            -> bench_warm_a.json
#      prunex bench --op compaction --model small_cnn (memcpy row)       -> memory.json
#   2. short live runs (5 iterations of 20 steps) of ddp, hsadmm and topk: their local steps
#      measure a rank's compute, their memory phases the speed of the consensus kernels and
#      Top-K's selection
#                                                                         -> steps/
#   3. live runs of hsadmm, hsadmm-flat, ddp, topk (8 iterations of 30 steps, mask frozen
#      after iteration 4) with --sync-phases true (world barriers around every communication
#      phase, so phases time communication alone; their waits are sync_wait)   -> live/
#   4. the benches of step 1 again (a point's time drifts by up to 2x over minutes on this
#      shared host; the fit takes both passes)          -> bench_b.json, bench_warm_b.json
#   5. prunex calibrate --from bench_a.json,bench_b.json --from-warm bench_warm_{a,b}.json
#      --steps steps/*/metrics.json --memory memory.json: collectives after compute cost
#      what the cold bench measured, those after communication (H-SADMM's inter-node
#      all-reduce and broadcasts) what the warm one did. For comparison, each bench alone:
#      cal_cold.json, cal_warm.json
#   6. prunex simulate of the same work on localhost with --calibration (masks of the live
#      hsadmm runs via --masks); again with cal_cold.json and cal_warm.json (comparison)
# The calibration runs (1, 2, 4) are separate from the validated runs (3).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/validate}
prunex=build/bin/prunex
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
steps=${VALIDATE_STEPS:-30}
iters=${VALIDATE_ITERATIONS:-8}
# The mask syncs in iterations 1..T and is frozen after: T = 4 scores the sync on 3
# iterations (2-4; the first is start-up) and the frozen path on the rest.
t_freeze=${VALIDATE_T_FREEZE:-4}
samples=16000
busy_us=${VALIDATE_BUSY_US:-50000}
warm_busy_us=${VALIDATE_WARM_BUSY_US:-$busy_us}
common=(--dataset fashion-mnist --model small_cnn --train-samples $samples
        --test-samples 1000 --sync-phases true --t-freeze $t_freeze)
# Collectives as training's measurement mode meets them: after a compute burst on every rank
# (--busy-us), between barriers (--sync), not back to back. (A warm bench after 1 ms of spin,
# VALIDATE_WARM_BUSY_US=1000, under-predicted H-SADMM's later collectives by 33-83%:
# results/validate/experiments/.) Two passes per shape, one before and one after the live
# runs, so the fit averages over the same stretch of time as the runs it predicts.
bench_pass() {
  local ev busy evict name
  for ev in $busy_us:16M:bench $warm_busy_us:0:bench_warm; do
    IFS=: read -r busy evict name <<< "$ev"
    "${mpirun[@]}" $prunex bench --backend mpi --gpus-per-node $gpn --op all --group all \
      -b 64 -e 1M -f 4 -n 20 -w 1 --sync --busy-us $busy --evict $evict --stat median \
      --json "$d/${name}_$1.json" > "$d/${name}_$1.txt"
  done
}
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
pairs=() pairs_cold=() pairs_warm=()
for shape in ${VALIDATE_SHAPES:-2x2 4x2}; do
  nodes=${shape%x*}
  gpn=${shape#*x}
  np=$((nodes * gpn))
  # Open MPI yields the CPU while polling only when oversubscribed; with no more ranks than
  # cores the ranks poll without yielding, as on a real node.
  mpirun=(mpirun -q -np $np)
  [ $np -gt "$(nproc)" ] && mpirun+=(--oversubscribe)
  d=$out.tmp/$shape
  mkdir -p "$d"
  echo "== $shape ($np ranks): calibration"
  bench_pass a
  $prunex bench --op compaction --model small_cnn --json "$d/memory.json" > "$d/memory.txt"
  cal_runs=()
  for s in ddp hsadmm topk; do
    "${mpirun[@]}" $prunex train --gpus-per-node $gpn "${common[@]}" --strategy $s \
      --config workloads/configs/fashion_mnist_small_cnn_$s.json --iterations 5 \
      --local-steps 20 --out "$d/steps/$s" > "$d/steps_$s.log"
    cal_runs+=("$d/steps/$s/metrics.json")
  done
  steps_list=$(IFS=,; echo "${cal_runs[*]}")
  for s in hsadmm hsadmm-flat ddp topk; do
    echo "== $shape: live $s"
    "${mpirun[@]}" $prunex train --gpus-per-node $gpn "${common[@]}" --strategy $s \
      --config workloads/configs/fashion_mnist_small_cnn_$s.json --iterations $iters \
      --local-steps $steps --out "$d/live/$s" \
      > "$d/live_$s.log"
  done
  echo "== $shape: calibration, second bench pass"
  bench_pass b
  $prunex calibrate --from "$d/bench_a.json,$d/bench_b.json" \
    --from-warm "$d/bench_warm_a.json,$d/bench_warm_b.json" \
    --steps "$steps_list" --memory "$d/memory.json" --out "$d/calibration.json" \
    > "$d/calibrate.txt"
  grep -E "^(intra|inter|compute|memory|  )" "$d/calibrate.txt" | sed 's/^/  /'
  # For comparison: every collective from one bench, cold or warm.
  for b in bench:cal_cold bench_warm:cal_warm; do
    $prunex calibrate --from "$d/${b%:*}_a.json,$d/${b%:*}_b.json" --steps "$steps_list" \
      --memory "$d/memory.json" --out "$d/${b#*:}.json" > "$d/calibrate_${b#*:}.txt"
  done
  for s in hsadmm hsadmm-flat ddp topk; do
    masks=()
    case $s in hsadmm*) masks=(--masks "$d/live/$s/metrics.json") ;; esac
    for cal in calibration:sim cal_cold:sim_cold cal_warm:sim_warm; do
      $prunex simulate --topology localhost --calibration "$d/${cal%:*}.json" --nodes $nodes \
        --gpus-per-node $gpn --model small_cnn --input 28 --input-channels 1 --strategy $s \
        --iterations $iters --local-steps $steps --batch 32 --samples $samples \
        --t-freeze $t_freeze --keep 0.5 --ddp-overlap false "${masks[@]}" \
        --out "$d/${cal#*:}/$s" > "$d/${cal#*:}_$s.log"
    done
    pairs+=("$out/$shape/live/$s/metrics.json:$out/$shape/sim/$s/metrics.json")
    pairs_cold+=("$out/$shape/live/$s/metrics.json:$out/$shape/sim_cold/$s/metrics.json")
    pairs_warm+=("$out/$shape/live/$s/metrics.json:$out/$shape/sim_warm/$s/metrics.json")
  done
done
rm -rf "$out" && mv "$out.tmp" "$out"
/usr/bin/python3 analysis/validate.py "${pairs[@]}" --markdown "$out/VALIDATION.md" \
  --json "$out/validation.json"
# The same with medians over iterations (robust to a one-rank stall of a scheduler tick).
/usr/bin/python3 analysis/validate.py "${pairs[@]}" --stat median \
  --markdown "$out/VALIDATION_median.md" --json "$out/validation_median.json" > /dev/null
# Every collective calibrated from one bench, cold or warm (everything else the same).
for stat in mean median; do
  /usr/bin/python3 analysis/validate.py "${pairs_cold[@]}" --stat $stat \
    --markdown "$out/VALIDATION_cold_$stat.md" --json "$out/validation_cold_$stat.json" \
    > /dev/null
  /usr/bin/python3 analysis/validate.py "${pairs_warm[@]}" --stat $stat \
    --markdown "$out/VALIDATION_warm_$stat.md" --json "$out/validation_warm_$stat.json" \
    > /dev/null
done
echo "wrote $out/VALIDATION.md and $out/validation.json"
