#!/usr/bin/env bash
# SimGrid's SMPI on the PruneX platform plugin (experiments/smpi): the plugin loads under
# smpirun, the hostfile lists ranks node-major, and SMPI's ring all-reduce (smpi/allreduce:lr)
# of 1 MiB takes the alpha-beta time computed here from the preset's numbers:
#   1 x 4 puhti (NVLink pairs only): equal to prunex bench --backend sim --algo ring too;
#   2 x 2 puhti: SMPI's single rank-order ring puts each step's S/n on one 100 Gbit/s rail,
#   2(n-1)(a_nic + S/(n B_nic)), where prunex's ring runs C = 2 channels (half the bytes each).
# Builds what it needs into build/smpi (about a minute the first time, cached after);
# skips when smpicc, smpirun or pkg-config simgrid is missing.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
[[ -x ${1:-} ]] || fail "usage: smpi_platform.sh PRUNEX_BINARY (got '${1:-}')"
prunex=$(realpath "$1")
for tool in smpicc smpirun pkg-config python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 0; }
done
pkg-config --exists simgrid || { echo "SKIP: pkg-config has no simgrid"; exit 0; }
bin="$(dirname "$prunex")/../smpi"
experiments/smpi/build.sh "$bin" || fail "build.sh failed"
bytes=1048576
export PRUNEX_TOPOLOGY=puhti

# ranks NODES GPUS: writes the hostfile, checks node-major order.
hosts() {
  PRUNEX_NODES=$1 PRUNEX_GPUS_PER_NODE=$2 "$bin/print_hosts" >"$work/hosts" || fail "print_hosts $1 x $2"
  local want="" n g
  for ((n = 0; n < $1; n++)); do for ((g = 0; g < $2; g++)); do want+="n${n}g${g} "; done; done
  [[ "$(tr '\n' ' ' <"$work/hosts")" == "$want" ]] || fail "hostfile $1 x $2: $(tr '\n' ' ' <"$work/hosts")"
}

# smpi NODES GPUS: SMPI's simulated seconds for one lr all-reduce of $bytes.
smpi() {
  hosts "$1" "$2"
  PRUNEX_NODES=$1 PRUNEX_GPUS_PER_NODE=$2 smpirun -np $(($1 * $2)) \
    -platform "$bin/platform_plugin.so" -hostfile "$work/hosts" \
    --cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:1e30 \
    --cfg=network/weight-S:0 --cfg=surf/precision:1e-11 --cfg=smpi/simulate-computation:no \
    --cfg=smpi/privatization:no --cfg=smpi/wtime:0 --cfg=smpi/allreduce:lr \
    --log=root.thres:warning \
    "$bin/allreduce_probe" "$bytes" 1 >"$work/smpi.log" 2>&1 || fail "smpirun $1 x $2: $(tail -3 "$work/smpi.log")"
  sed -n 's/.*call=0 seconds=\([^ ]*\).*/\1/p' "$work/smpi.log"
}

# close A B TOL WHAT: |A/B - 1| <= TOL
close() {
  python3 -c "import sys; a, b = $1, $2; sys.exit(0 if abs(a / b - 1) <= $3 else 1)" ||
    fail "$4: $1 vs $2 (tolerance $3)"
}

# Alpha-beta terms from the preset file (the independent reference). Between nodes: the NIC
# latency plus one switch hop (both nodes under one leaf; topologies/README.md).
read -r a_nvl b_nvl a_nic b_nic < <(python3 -c "
import json
t = json.load(open('topologies/presets/puhti.json'))
i, n, f = t['intra'], t['nic'], t['fabric']
print(i['latency_us']['value'] * 1e-6, i['bandwidth_gbs']['value'] * 1e9 * i['links_per_pair']['value'],
      (n['latency_us']['value'] + f['latency_us']['value']) * 1e-6,
      n['bandwidth_gbits']['value'] * 1e9 / 8)")
step() { python3 -c "print(6 * ($1 + $bytes / 4 / $2))"; }  # n = 4: 2(n-1) steps of S/n

t14=$(smpi 1 4)
[[ -n $t14 ]] || fail "1 x 4: probe printed no time"
close "$t14" "$(step "$a_nvl" "$b_nvl")" 0.001 "1 x 4 SMPI lr vs closed form"
# (the plugin builds the file's signalling rates, so prunex's bench runs at them too, and
# SMPI launches no kernel: no NCCL base latency per call)
"$prunex" bench --backend sim --topology puhti --nodes 1 --gpus-per-node 4 --op allreduce \
  --algo ring --group world -b $bytes -e $bytes --achieved-bandwidth false --call-latency false \
  --json "$work/p.json" \
  >/dev/null || fail "prunex bench"
tp=$(python3 -c "import json; print(json.load(open('$work/p.json'))[0]['time_us'] * 1e-6)")
close "$t14" "$tp" 0.001 "1 x 4 SMPI lr vs prunex ring"

t22=$(smpi 2 2)
close "$t22" "$(step "$a_nic" "$b_nic")" 0.001 "2 x 2 SMPI lr vs single-rail ring closed form"

# A bad shape stops the plugin with its one-line message, not a crash inside SimGrid.
PRUNEX_NODES=2 PRUNEX_GPUS_PER_NODE=9 smpirun -np 1 -platform "$bin/platform_plugin.so" \
  -hostfile "$work/hosts" "$bin/allreduce_probe" 4 >"$work/bad.log" 2>&1 && fail "9 GPUs per node accepted"
grep -q "PRUNEX_GPUS_PER_NODE must be <= 4" "$work/bad.log" || fail "bad shape: $(cat "$work/bad.log")"
echo "ok: SMPI lr 1x4 $t14 s (prunex $tp s), 2x2 $t22 s"
