#!/usr/bin/env bash
# Runs a fixed set of commands whose outputs must not change with a refactor, into OUT:
#   scripts/tools/snapshot_outputs.sh OUT [PRUNEX]
# Simulated (sim/): reproduce, a sweep of all 8 strategies, simulate of every strategy (and
# bf16 + pipelined, --masks, --calibration), bench --backend sim (table, NCCL's model, the
# iteration probe), calibrate --from/--steps, topology show, model-info. Live (live/, 4 MPI
# ranks as 2 x 2, synthetic data): the bucketed peers with their settings, and checkpoint +
# --resume of ddp, pactrain and cgx. Compare two snapshots with scripts/tools/compare_outputs.py.
# About 3 minutes on 2 cores.
# OUT is replaced: it must be absent, empty, or an earlier snapshot (its .prunex-snapshot
# marker); any other folder is refused, so a mistyped OUT deletes nothing. OUT and PRUNEX are
# taken from the repository's root (the script works there).
set -u
cd "$(dirname "$0")/../.."
case "${1:-}" in
  -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  ""|-*) echo "usage: snapshot_outputs.sh OUT [PRUNEX] (--help)" >&2; exit 2 ;;
esac
out=$(realpath -m -- "$1")
B=$(realpath -- "${2:-build/bin/prunex}")
[[ -x $B ]] || { echo "snapshot_outputs.sh: no prunex at $B (scripts/build.sh)" >&2; exit 2; }
if [[ -e $out && ! -e $out/.prunex-snapshot ]] && [[ ! -d $out || -n $(ls -A "$out") ]]; then
  echo "snapshot_outputs.sh: $out exists and is not a snapshot: not replacing it" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out/sim" "$out/live"
touch "$out/.prunex-snapshot"
s=$out/sim
V=results/predict_localhost/2x2
fail() { echo "snapshot_outputs.sh: $1 exited $2" >&2; }
q() {  # q NAME ARGS...: prunex ARGS, output to NAME.log
  local name=$1; shift
  "$B" "$@" > "$s/$name.log" 2>&1 || fail "$name" $?
}
q reproduce reproduce --out "$s/reproduce"
q sweep sweep --topology puhti --model resnet152 --gpus 8,16,32 --iterations 3 \
  --strategy hsadmm,hsadmm-flat,hsadmm-rail,ddp,topk,fp16,pactrain,cgx --out "$s/sweep"
for st in hsadmm hsadmm-rail hsadmm-flat ddp fp16 topk pactrain cgx; do
  q "sim_$st" simulate --topology dgx-a100 --nodes 4 --model resnet50 --strategy "$st" \
    --iterations 4 --t-freeze 2 --out "$s/sim_$st"
done
q sim_bf16 simulate --topology puhti --nodes 4 --model resnet18 --strategy hsadmm \
  --wire-dtype bf16 --pipeline-buckets true --iterations 3 --out "$s/sim_bf16"
q sim_masks simulate --topology puhti --nodes 4 --strategy hsadmm --model small_cnn --input 28 \
  --input-channels 1 --masks results/fashion_mnist/hsadmm/metrics.json --iterations 3 \
  --out "$s/sim_masks"
q bench_sim bench --backend sim --topology puhti --nodes 4 --gpus-per-node 4 --op all -b 1K \
  -e 16M -f 16 --json "$s/bench_sim.json"
q bench_nccl_model bench --backend sim --topology dgx-a100 --nodes 2 --gpus-per-node 8 \
  --group world --compare nccl-model -b 1K -e 64M -f 64
q bench_iter bench --backend sim --topology puhti --nodes 8 --op iteration -e 8M --keep 0.3 \
  --flops 1e9 --json "$s/bench_iter.json"
q cal calibrate --from $V/bench_a.json --steps $V/steps/ddp/metrics.json,$V/steps/topk/metrics.json \
  --out "$s/cal.json"
q cal_hs calibrate --from $V/bench_a.json --steps $V/steps/hsadmm/metrics.json --out "$s/cal_hs.json"
q sim_cal simulate --topology localhost --nodes 2 --gpus-per-node 2 --model small_cnn --input 28 \
  --input-channels 1 --calibration "$s/cal.json" --strategy ddp --iterations 2 --out "$s/sim_cal"
q topology topology show puhti
q model_info model-info --model resnet152 --json

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
l=$out/live
common=(train --dataset synthetic --synthetic-samples 512 --test-samples 64 --model resnet20
        --batch 16 --local-steps 3 --iterations 3 --gpus-per-node 2 --lr 0.01)
live() {  # live NAME ARGS...
  local name=$1; shift
  mpirun -q --oversubscribe -np 4 "$B" "${common[@]}" "$@" --out "$l/$name" > "$l/$name.log" 2>&1 ||
    fail "$name" $?
}
live ddp --strategy ddp
live ddp_sync --strategy ddp --sync-phases true
live fp16 --strategy fp16
live pactrain --strategy pactrain --stable-steps 2
live pactrain_tern --strategy pactrain --ternary true --stable-steps 1 --prune-ratio 0.7
live cgx --strategy cgx --bits 3 --bucket-size 512
live cgx_adapt --strategy cgx --adaptive-bits true --adapt-every 2 --stochastic-rounding true
live ddp_ck --strategy ddp --checkpoint-every 1 --iterations 2
live ddp_resume --strategy ddp --resume "$l/ddp_ck/checkpoint"
live pt_ck --strategy pactrain --stable-steps 1 --checkpoint-every 1 --iterations 2
live pt_resume --strategy pactrain --stable-steps 1 --resume "$l/pt_ck/checkpoint"
live cgx_ck --strategy cgx --adaptive-bits true --adapt-every 2 --checkpoint-every 1 --iterations 2
live cgx_resume --strategy cgx --adaptive-bits true --adapt-every 2 --resume "$l/cgx_ck/checkpoint"
echo "snapshot_outputs.sh: wrote $out"
