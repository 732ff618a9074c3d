#!/usr/bin/env bash
# Fidelity of the simulator where communication matters (issue 17): calibrate on an emulated
# cluster (`prunex emulate`: network namespaces, tc-shaped links) at one link speed and on
# shapes of 2 ranks, then predict held-out live `prunex train` runs on other shapes (2 x 2,
# 4 x 1) at other link speeds (puhti's links / 5000 and / 20000), per phase
# (analysis/score_prediction.py).
#
#   scripts/studies/predict_emulated.sh [--out DIR] [--predict-only]      (about 35 minutes; root)
#
# Calibration (puhti's links / 2000: 50 Mbit/s per rail, 2 rails; never seen by the held-out
# runs), into OUT/cal/:
#   1. bench --backend mpi on 2 x 1 (inter-node and world rows) and 1 x 2 (intra-node rows),
#      all ops, 64 B - 1 MiB, --sync, the median over 10 iterations: after 50 ms of compute
#      that ends by writing 16 MiB (cold: what follows a training step) and back to back
#      (warm: what follows other communication); once before and once after the held-out
#      runs. The 2 x 1 run also writes the cluster's topology (emulate --topology-out).
#   2. short live runs of ddp, hsadmm and topk on 2 x 1 (10 iterations of 10 steps): a rank's
#      compute and the memory phases' speeds; the compaction bench's memcpy row.
#   3. prunex calibrate --links relative --topology <the 2 x 1 cluster's topology>: the inter
#      tier and per-op costs over it kept relative to the links they were measured on.
# Held-out runs, into OUT/<shape>_x<slowdown>/: every strategy (hsadmm, hsadmm-flat, ddp,
# topk), 8 iterations of 10 steps, mask frozen after iteration 4, --sync-phases true (each
# communication phase timed alone), twice (live/, live_repeat/: the run-to-run floor).
# Predictions: prunex simulate on the held-out run's own emulated topology (--topology-out)
# with the calibration (hsadmm: the live run's masks; prunex's own trainer, so no PyTorch DDP
# overhead and no interference: --ddp-overhead-passes 0 --interference 1; --sync-phases puts a
# barrier before each phase, which takes the ranks' skew: --sync-skew 0), OUT/VALIDATION.md
# (mean over iterations) and OUT/VALIDATION_median.md.
# --predict-only redoes the calibration fit, the simulations and the tables on OUT's
# measurements (a minute), e.g. after changing the simulator.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validate_emulated predict_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --predict-only) predict_only=1; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "predict_emulated.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
prunex=build/bin/prunex
[[ -x $prunex ]] || { echo "predict_emulated.sh: build first (scripts/build.sh)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cal_slowdown=2000
shapes=(2x2 4x1)
slowdowns=(5000 20000)
strategies=(hsadmm hsadmm-flat ddp topk)
iters=8 steps=10 t_freeze=4 samples=16000
common=(--dataset fashion-mnist --model small_cnn --train-samples $samples --test-samples 1000
        --sync-phases true)
emulate() {  # emulate M P SLOWDOWN [emulate options] -- command...
  local m=$1 p=$2 x=$3; shift 3
  $prunex emulate --topology puhti --nodes "$m" --gpus-per-node "$p" --slowdown "$x" "$@"
}

bench_pass() {  # bench_pass M P GROUPS SUFFIX [emulate options]
  local m=$1 p=$2 groups=$3 sfx=$4; shift 4
  local d=$out/cal
  emulate "$m" "$p" $cal_slowdown "$@" -- bench --backend mpi --op all --group "$groups" \
    -b 64 -e 1M -f 4 -n 10 -w 1 --sync --busy-us 50000 --evict 16M --stat median \
    --json "$d/bench_${m}x${p}_$sfx.json" > "$d/bench_${m}x${p}_$sfx.txt" 2> "$d/bench_${m}x${p}_$sfx.log"
  emulate "$m" "$p" $cal_slowdown -- bench --backend mpi --op all --group "$groups" \
    -b 64 -e 1M -f 4 -n 10 -w 1 --sync --stat median \
    --json "$d/bench_warm_${m}x${p}_$sfx.json" > "$d/bench_warm_${m}x${p}_$sfx.txt" \
    2> "$d/bench_warm_${m}x${p}_$sfx.log"
}

train_run() {  # train_run M P SLOWDOWN STRATEGY DIR ITERS T_FREEZE [emulate options]
  local m=$1 p=$2 x=$3 s=$4 dir=$5 it=$6 tf=$7; shift 7
  mkdir -p "$dir"
  emulate "$m" "$p" "$x" "$@" -- train --gpus-per-node "$p" "${common[@]}" --strategy "$s" \
    --config "workloads/configs/fashion_mnist_small_cnn_$s.json" --iterations "$it" \
    --local-steps $steps --t-freeze "$tf" --out "$dir" > "$dir/console.log" 2>&1 ||
    { echo "validate_emulated: $dir failed: $(tail -3 "$dir/console.log")" >&2; exit 1; }
}

if [ $predict_only = 0 ]; then
  rm -rf "$out" && mkdir -p "$out/cal"
  echo "== calibration at puhti / $cal_slowdown: benches (pass a)"
  bench_pass 2 1 all a --topology-out "$out/cal/topology.json"
  bench_pass 1 2 intra a
  echo "== calibration: compute and memory"
  $prunex bench --op compaction --model small_cnn --json "$out/cal/memory.json" > "$out/cal/memory.txt"
  for s in ddp hsadmm topk; do
    train_run 2 1 $cal_slowdown $s "$out/cal/steps/$s" 10 4
  done
  for pass in live live_repeat; do
    for shape in "${shapes[@]}"; do
      for x in "${slowdowns[@]}"; do
        for s in "${strategies[@]}"; do
          echo "== held out: $shape at puhti / $x, $s ($pass)"
          d=$out/${shape}_x$x
          train_run "${shape%x*}" "${shape#*x}" "$x" $s "$d/$pass/$s" $iters $t_freeze \
            --topology-out "$d/topology.json"
        done
      done
    done
  done
  echo "== calibration: benches (pass b)"
  bench_pass 2 1 all b
  bench_pass 1 2 intra b
fi

[ -f "$out/cal/topology.json" ] || { echo "predict_emulated.sh: no measurements in $out" >&2; exit 2; }
d=$out/cal
steps_list=$(ls "$d"/steps/*/metrics.json | paste -sd,)
$prunex calibrate --topology "$d/topology.json" --links relative --algo mpi --fit line \
  --from "$d/bench_2x1_a.json,$d/bench_2x1_b.json,$d/bench_1x2_a.json,$d/bench_1x2_b.json" \
  --from-warm "$d/bench_warm_2x1_a.json,$d/bench_warm_2x1_b.json,$d/bench_warm_1x2_a.json,$d/bench_warm_1x2_b.json" \
  --steps "$steps_list" --memory "$d/memory.json" --out "$d/calibration.json" > "$d/calibrate.txt"
grep -E "^(intra|inter|compute|memory)" "$d/calibrate.txt" | sed 's/^/  /'
pairs=() repeats=()
for shape in "${shapes[@]}"; do
  for x in "${slowdowns[@]}"; do
    dd=$out/${shape}_x$x
    for pass in live live_repeat; do
      for s in "${strategies[@]}"; do
        masks=()
        case $s in hsadmm*) masks=(--masks "$dd/$pass/$s/metrics.json") ;; esac
        sim=$dd/sim_$pass/$s
        $prunex simulate --topology "$dd/topology.json" --calibration "$d/calibration.json" \
          --nodes "${shape%x*}" --gpus-per-node "${shape#*x}" --model small_cnn --input 28 \
          --input-channels 1 --strategy $s --iterations $iters --local-steps $steps --batch 32 \
          --samples $samples --t-freeze $t_freeze --keep 0.5 --ddp-overlap false "${masks[@]}" \
          --ddp-overhead-passes 0 --interference 1 --sync-skew 0 \
          --out "$sim" > "$dd/sim_${pass}_$s.log" 2>&1
        pairs+=("$dd/$pass/$s/metrics.json:$sim/metrics.json")
        [ $pass = live_repeat ] &&
          repeats+=(--repeat "$dd/live/$s/metrics.json:$dd/live_repeat/$s/metrics.json")
      done
    done
  done
done
for stat in mean median; do
  base=VALIDATION json=validation
  [ $stat = median ] && base+=_median && json+=_median
  /usr/bin/python3 analysis/score_prediction.py "${pairs[@]}" "${repeats[@]}" --stat $stat \
    --markdown "$out/$base.md" --json "$out/$json.json" > "$out/$base.txt"
done
sed -n '/^| phase | runs/,$p' "$out/VALIDATION.txt"
echo "wrote $out/VALIDATION.md and $out/validation.json"
