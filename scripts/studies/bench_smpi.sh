#!/usr/bin/env bash
# SimGrid's own SMPI (smpirun, libsimgrid-dev) against `prunex bench --backend sim` on the same
# platform: MPI_Allreduce of S bytes (float sum) at several rank counts, wall and simulated
# time of each, and their ratios. See results/smpi/RESULTS.md.
#
#   scripts/studies/bench_smpi.sh [--prunex BIN] [--topology NAME] [--gpus-per-node P] [--bytes S]
#                         [--ranks "64 512 1024 2048 4096"] [--limit SECONDS]
#                         [--default-ranks "64"] [--out DIR]
#
# Rank counts run in order; the first SMPI run that does not finish within --limit stops the
# sweep (larger ones would not finish either). SMPI runs its ring algorithm (smpi/allreduce:lr,
# reduce-scatter + all-gather around the rank-order ring), prunex runs --algo ring; at
# --default-ranks SMPI also runs its default selector (reduce to rank 0 + binomial bcast).
# Both use CM02, crosstraffic off, TCP-gamma lifted, weight-S 0, precision 1e-11 (prunex's
# settings, backends/simgrid/README.md); SMPI gets the link latencies inside SimGrid, prunex
# adds them outside (its default). Needs smpicc/smpirun, g++, pkg-config simgrid, python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
prunex=build/bin/prunex topology=puhti gpn=4 bytes=232657192  # ResNet-152 fp32 gradients
ranks_list="64 512 1024 2048 4096" limit=600 default_ranks=64 out=build/smpi/results
while [[ $# -gt 0 ]]; do
  case $1 in
    --prunex) prunex=$2 ;;
    --topology) topology=$2 ;;
    --gpus-per-node) gpn=$2 ;;
    --bytes) bytes=$2 ;;
    --ranks) ranks_list=$2 ;;
    --limit) limit=$2 ;;
    --default-ranks) default_ranks=$2 ;;
    --out) out=$2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_smpi.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
  shift 2
done
command -v smpirun >/dev/null || { echo "bench_smpi.sh: smpirun not found (libsimgrid-dev)" >&2; exit 2; }
[[ -x $prunex ]] || { echo "bench_smpi.sh: no prunex binary at $prunex (--prunex)" >&2; exit 2; }
bin=build/smpi
experiments/smpi/build.sh "$bin"
mkdir -p "$out"
export PRUNEX_TOPOLOGY=$topology PRUNEX_GPUS_PER_NODE=$gpn
cfg=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:1e30
     --cfg=network/weight-S:0 --cfg=surf/precision:1e-11
     --cfg=smpi/simulate-computation:no --cfg=smpi/privatization:no
     --cfg=smpi/shared-malloc:global
     --cfg=smpi/wtime:0
     --log=root.thres:warning)

# run_smpi RANKS ALGO: prints "wall_s simulated_s" (or "timeout -")
run_smpi() {
  local n=$1 algo=$2 log="$out/smpi_${1}_${2}.log"
  local t0 t1 rc=0 block
  # Shared malloc maps one block file over and over: each rank's two buffers take
  # 2 x ceil(S/block) mappings, and all ranks together must stay under vm.max_map_count
  # (65530 by default). The smallest power-of-two block >= 1 MiB (SMPI's default) that fits.
  block=$(python3 -c "
import math
b, cap = 1 << 20, int(open('/proc/sys/vm/max_map_count').read()) * 0.9
while $n * (2 * math.ceil($bytes / b) + 4) > cap: b *= 2
print(b)")
  t0=$(date +%s.%N)
  # TMPDIR=/dev/shm: the block file lives in memory (on disk, dirty pages get written back).
  TMPDIR=/dev/shm PRUNEX_NODES=$((n / gpn)) timeout "$limit" smpirun -np "$n" -platform "$bin/platform_plugin.so" -hostfile "$out/hosts_$n" \
    "${cfg[@]}" --cfg=smpi/shared-malloc-blocksize:"$block" --cfg=smpi/allreduce:"$algo" "$bin/allreduce_probe" "$bytes" 1 >"$log" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [[ $rc -ne 0 ]]; then
    [[ $rc -eq 124 ]] && { echo "timeout -"; return; }
    echo "bench_smpi.sh: smpirun -np $n ($algo) failed ($rc), see $log" >&2; exit 1
  fi
  local sim
  sim=$(sed -n 's/.*call=0 seconds=\([^ ]*\).*/\1/p' "$log")
  echo "$(python3 -c "print(f'{$t1 - $t0:.2f}')") $sim"
}

# run_prunex RANKS: prints "wall_s simulated_s"
run_prunex() {
  local n=$1 json="$out/prunex_$1.json" t0 t1
  t0=$(date +%s.%N)
  "$prunex" bench --backend sim --topology "$topology" --nodes $((n / gpn)) --gpus-per-node "$gpn" \
    --op allreduce --algo ring --group world -b "$bytes" -e "$bytes" --json "$json" \
    >"$out/prunex_$n.log"
  t1=$(date +%s.%N)
  python3 -c "import json; print(f'{$t1 - $t0:.2f}', json.load(open('$json'))[0]['time_us'] * 1e-6)"
}

# ring_bound RANKS: SMPI's lr in closed form, 2(n-1) x max over ring edges of
# (route latency + (count/n) floats / bottleneck bandwidth): blocking sendrecv steps move
# in lockstep, so the slowest edge sets every step (the count % n remainder is left out).
ring_bound() {
  local n=$1
  PRUNEX_NODES=$((n / gpn)) "$bin/print_hosts" --ring-edges | python3 -c "
import sys
n, chunk = $n, ($bytes // 4 // $n) * 4
step = max(float(l.split()[2]) + chunk / float(l.split()[3]) for l in sys.stdin)
print(2 * (n - 1) * step)"
}

table="$out/table.md"
{
  echo "| ranks | nodes x gpus | SMPI wall s | prunex wall s | wall ratio | SMPI predicted s | prunex predicted s | predicted ratio | SMPI lr closed form s |"
  echo "|---|---|---|---|---|---|---|---|---|"
} >"$table"
for n in $ranks_list; do
  (( n % gpn == 0 )) || { echo "bench_smpi.sh: $n ranks is not a multiple of $gpn GPUs per node" >&2; exit 2; }
  PRUNEX_NODES=$((n / gpn)) "$bin/print_hosts" >"$out/hosts_$n"
  res=$(run_prunex "$n")
  read -r pw ps <<<"$res"
  bound=$(ring_bound "$n")
  res=$(run_smpi "$n" lr)
  read -r sw ss <<<"$res"
  if [[ $sw == timeout ]]; then
    echo "| $n | $((n / gpn)) x $gpn | > $limit (timeout) | $pw | - | - | $ps | - | $bound |" >>"$table"
    echo "ranks $n: SMPI did not finish within $limit s; stopping" >&2
    break
  fi
  python3 - "$n" "$gpn" "$sw" "$pw" "$ss" "$ps" "$bound" >>"$table" <<'PY'
import sys
n, g, sw, pw, ss, ps, b = sys.argv[1:]
sw, pw, ss, ps, b = map(float, (sw, pw, ss, ps, b))
print(f"| {n} | {int(n)//int(g)} x {g} | {sw:.2f} | {pw:.2f} | {sw/pw:.2f} | {ss:.6f} | {ps:.6f} | {ss/ps:.3f} | {b:.6f} |")
PY
  tail -n 1 "$table"
  for d in $default_ranks; do
    if [[ $d == "$n" ]]; then
      res=$(run_smpi "$n" default)
      read -r dw ds <<<"$res"
      echo "ranks $n, SMPI default selector (reduce to 0 + binomial bcast): wall $dw s, predicted $ds s" |
        tee -a "$out/default.txt"
    fi
  done
done
t0=$(date +%s.%N)
"$prunex" --help >/dev/null 2>&1 || true
t1=$(date +%s.%N)
echo "prunex startup alone (prunex --help): $(python3 -c "print(f'{$t1 - $t0:.2f}')") s" | tee "$out/startup.txt"
echo "bytes $bytes, topology $topology, $gpn GPUs per node; table in $table"
cat "$table"
