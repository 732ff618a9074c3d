#!/usr/bin/env bash
# prunex emulate: MPI ranks on network namespaces joined by shaped veth links. Checks, against
# the link settings (arithmetic, not the code's own numbers): a 2 x 1 cluster at 100 Mbit/s
# carries a 4 MiB all-reduce at a bus bandwidth within 10% of 12.5 MB/s; with 1000 us of NIC
# latency a 4-byte all-reduce takes one hop (1010 us) and less than 1.6 hops; two rails
# double an 8 MiB broadcast's bus bandwidth (within 15%); a 1 x 2 cluster's intra-node all-reduce
# is not held to the link rate; bad input exits 2 with one line; and after a passing run, a
# failing run and a run interrupted with SIGINT nothing of the project is left in `ip netns`
# or `ip link`. Skips (exit 0, one line) where namespaces cannot be made (not root).
set -u
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

# Usage errors come first, before any privilege check.
"$prunex" emulate --nodes 2 -- bench > "$work/out" 2> "$work/err"
[[ $? -eq 2 && $(wc -l < "$work/err") -eq 1 ]] || fail "no --topology: $(cat "$work/err")"
"$prunex" emulate --topology ethernet-100m --nodes 2 > "$work/out" 2> "$work/err"
[[ $? -eq 2 ]] && grep -q "missing the command" "$work/err" || fail "no command: $(cat "$work/err")"
"$prunex" emulate --topology ethernet-100m --slowdown 0 -- bench > "$work/out" 2> "$work/err"
[[ $? -eq 2 ]] && grep -q -- "--slowdown" "$work/err" || fail "slowdown 0: $(cat "$work/err")"
"$prunex" emulate --topology ethernet-100m -- nosuchcommand > "$work/out" 2> "$work/err"
[[ $? -eq 2 ]] && grep -q "nosuchcommand" "$work/err" || fail "bad command: $(cat "$work/err")"
"$prunex" emulate --topology ethernet-100m --program -- nosuchprogram > "$work/out" 2> "$work/err"
[[ $? -eq 2 && $(wc -l < "$work/err") -eq 1 ]] && grep -q "nosuchprogram" "$work/err" ||
  fail "--program without a program: $(cat "$work/err")"
# The command's own options are read before anything is built (no privilege needed for
# that): one line, exit 2. Its --help still reaches it.
expect_refused "the command to run: unknown strategy 'bogus'" "" "$prunex" emulate \
  --topology ethernet-100m --nodes 2 -- train --strategy bogus

if ! "$prunex" emulate --cleanup > "$work/out" 2> "$work/err"; then
  echo "SKIP: $(cat "$work/err")"
  exit 0
fi
command -v mpirun > /dev/null || { echo "SKIP: mpirun not found"; exit 0; }
leftovers() { { ip netns list; ip -o link show; } | grep -c 'pxe[0-9a-f]\{6\}' || true; }
before=$(leftovers)

topo() {  # topo FILE RAILS LATENCY_US: ethernet-100m with other rails / NIC latency
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
t = json.load(open("topologies/presets/ethernet-100m.json"))
t["name"] = "test-emulated"
t["nic"]["rails"] = int(sys.argv[2])
t["nic"]["latency_us"] = float(sys.argv[3])
t["fabric"]["latency_us"] = 10
json.dump(t, open(sys.argv[1], "w"))
PY
}
busbw() {  # busbw JSON: the first row's bus bandwidth in MB/s, #wrong must be 0
  python3 -c "
import json; r = json.load(open('$1'))[0]
assert r['wrong'] == 0, r
print(r['busbw_gbs'] * 1000)"
}
emulate() {  # emulate LOG ARGS...: prunex emulate, stdout+stderr to LOG
  local log=$1; shift
  "$prunex" emulate "$@" > "$log" 2>&1 || fail "emulate $*: exit $?: $(tail -5 "$log")"
}

# best TOPOLOGY OP RUNS SIZE: the best world OP bus bandwidth (MB/s) at SIZE of RUNS emulations of
# 2 x 1 (the host's 2 cores are shared by both ranks and the links' shaping and forwarding: a
# run can lose 15% to scheduling, the best of several does not; ctest runs this test alone).
best() {
  local b=0 i v
  for ((i = 1; i <= $3; i++)); do
    emulate "$work/best$i.log" --topology "$1" --nodes 2 --gpus-per-node 1 -- bench --backend mpi \
      --op "$2" --group world -b "$4" -e "$4" -n 3 -w 1 --json "$work/best$i.json"
    v=$(busbw "$work/best$i.json") || fail "$4 row: $(cat "$work/best$i.log")"
    b=$(python3 -c "print(max($b, $v))")
  done
  echo "$b"
}

# 2 x 1 at 100 Mbit/s: 12.5 MB/s bus bandwidth (2 ranks: busbw = algbw x 2(n-1)/n = algbw).
# 4 MiB is 0.34 s a call at that rate: the shaper's burst and the first round trips are under
# 1% of it.
one=$(best ethernet-100m allreduce 3 4M)
python3 -c "import sys; sys.exit(0 if abs($one / 12.5 - 1) <= 0.10 else 1)" ||
  fail "4 MiB all-reduce at $one MB/s, not within 10% of 12.5 MB/s"
grep -q "emulate: link node0 -> node1 on rail 0" "$work/best1.log" || fail "no link check line"

# 1000 us NIC latency + 10 us switch: one hop takes 1010 us each way (netem, or on kernels
# without it the switch in user space). Back-to-back all-reduces of 4 bytes on 2 ranks take
# one hop each on average (the mean over iterations; Open MPI's exchange overlaps the next
# call's send with the previous call's receive): at least 1010 us, and well under two hops (a
# latency applied twice, once per link end, would give 2020 us or more).
topo "$work/slow.json" 1 1000
emulate "$work/lat.log" --topology "$work/slow.json" --nodes 2 --gpus-per-node 1 \
  --topology-out "$work/lat_topology.json" -- \
  bench --backend mpi --op allreduce --group world -b 4 -e 4 -n 9 -w 2 \
  --json "$work/lat.json"
python3 -c "
import json; r = json.load(open('$work/lat.json'))[0]
assert r['wrong'] == 0 and 1010 <= r['time_us'] < 1.6 * 1010, r" ||
  fail "4-byte all-reduce not within [1010, 1616) us: $(cat "$work/lat.json") $(tail -3 "$work/lat.log")"
# --topology-out: the cluster as built, 2 nodes of 1 rank, one 100 Mbit/s rail, 1010 us one
# way on the NIC (the switch hop folded in), a star that is no bottleneck.
python3 -c "
import json; t = json.load(open('$work/lat_topology.json'))
assert t['nodes']['value'] == 2 and t['gpus_per_node']['value'] == 1, t
assert t['nic']['rails']['value'] == 1 and abs(t['nic']['bandwidth_gbits']['value'] - 0.1) < 1e-9, t['nic']
assert abs(t['nic']['latency_us']['value'] - 1010) < 1e-6 and t['fabric']['kind'] == 'star', t" ||
  fail "--topology-out: $(cat "$work/lat_topology.json")"
echo "emulate: 4-byte all-reduce over a 1010 us hop: $(python3 -c "import json; print(json.load(open('$work/lat.json'))[0]['time_us'])") us ($(grep -q 'switch in user space' "$work/lat.log" && echo 'user-space switch' || echo netem))"

# Two rails: Open MPI stripes large messages over both, so twice the bus bandwidth. Measured
# with a broadcast (one direction): an all-reduce on two rails drives four shaped directions
# at once and is held back by the 2 cores (1.7-1.8x here; docs/emulation.md).
topo "$work/two.json" 2 50
# 8 MiB: each rail's half is the 4 MiB that holds the rate on one.
bc1=$(best ethernet-100m broadcast 3 8M)
two=$(best "$work/two.json" broadcast 3 8M)
python3 -c "import sys; sys.exit(0 if abs($two / (2 * $bc1) - 1) <= 0.15 else 1)" ||
  fail "2 rails: broadcast at $two MB/s, not within 15% of 2 x $bc1"

# One node, 2 ranks: shared memory, far above the 12.5 MB/s links.
emulate "$work/intra.log" --topology ethernet-100m --nodes 1 --gpus-per-node 2 -- \
  bench --backend mpi --op allreduce --group intra -b 4M -e 4M -n 3 -w 1 --json "$work/intra.json"
intra=$(busbw "$work/intra.json") || fail "intra: $(cat "$work/intra.log")"
python3 -c "import sys; sys.exit(0 if $intra > 10 * 12.5 else 1)" || fail "intra all-reduce at $intra MB/s"

# train on 2 x 2 with grouping by host (--gpus-per-node 0): the hostnames make 2 nodes of 2,
# and metrics.json records the emulation.
emulate "$work/train.log" --topology ethernet-100m --nodes 2 --gpus-per-node 2 -- train \
  --gpus-per-node 0 --dataset fashion-mnist --model small_cnn --strategy hsadmm \
  --train-samples 2000 --iterations 1 --out "$work/train"
python3 -c "
import json; c = json.load(open('$work/train/metrics.json'))['config']
assert c['nodes'] == 2 and c['gpus-per-node'] == 2, c
e = c['emulation']
assert e['rate_mbits'] == 100 and e['slowdown'] == 1 and e['nodes'] == 2, e" ||
  fail "train under emulate: $(tail -3 "$work/train.log")"

# --program: a program of its own runs as the ranks, in each node's namespace, and finds the
# nodes' addresses in PRUNEX_EMULATION (how scripts/studies/pytorch_ddp.py meets its peers). Each
# node is one host to NCCL too: its own NCCL_HOSTID, whatever the caller's environment says.
NCCL_HOSTID=inherited emulate "$work/program.log" --topology ethernet-100m --nodes 2 \
  --gpus-per-node 2 --program -- \
  sh -c 'echo "rank $OMPI_COMM_WORLD_RANK on $(hostname) as ${NCCL_HOSTID:-unset}: $PRUNEX_EMULATION" > "$0/rank$OMPI_COMM_WORLD_RANK"' "$work"
python3 - "$work" <<'PY' || fail "--program: $(cat "$work/program.log" "$work"/rank* 2>&1)"
import json, sys
lines = [open("%s/rank%d" % (sys.argv[1], r)).read() for r in range(4)]
hosts = [l.split(" on ")[1].split(" as ")[0] for l in lines]
ids = [l.split(" as ")[1].split(":")[0] for l in lines]
# Ranks 0, 1 on one node and 2, 3 on the other, each node in its own namespace.
assert hosts[0] == hosts[1] != hosts[2] == hosts[3], hosts
assert ids[0] == ids[1] != ids[2] == ids[3] and "inherited" not in ids, ids
e = json.loads(lines[0].split(": ", 1)[1])
assert e["addresses"] == ["198.18.0.1", "198.18.0.2"] and e["interface"] == "rail0", e
PY

# A failing command (exit 2 inside), then one interrupted by SIGINT: nothing left behind.
"$prunex" emulate --topology ethernet-100m --nodes 2 -- bench --backend mpi --op nope \
  > "$work/bad.log" 2>&1 && fail "a failing command exited 0"
"$prunex" emulate --topology ethernet-100m --nodes 2 -- bench --backend mpi --op allreduce \
  --group world -b 64M -e 64M -n 20 -w 1 > "$work/int.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q "rail 0" "$work/int.log" 2>/dev/null && break; sleep 0.1; done
sleep 2
kill -INT $pid
wait $pid
rc=$?
[[ $rc -ne 0 ]] || fail "interrupted run exited 0"
[[ $(leftovers) -eq $before ]] || fail "left behind: $({ ip netns list; ip -o link show; } | grep 'pxe')"
echo "emulate: ok (100 Mbit/s all-reduce: $one MB/s; broadcast 1 rail $bc1, 2 rails $two MB/s; intra $intra MB/s)"
