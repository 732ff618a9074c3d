#!/usr/bin/env bash
# prunex calibrate: recovers known latencies and bandwidths from bench rows generated with the
# alpha-beta formulas (written out here, independently of the simulator's closed forms),
# splits an op at the size where its constants change (or, --fit piecewise, interpolates
# between the benchmarked sizes), fits compute from a run's local steps (and from runs at two
# batch sizes a fixed cost per step beside the rate)
# and each memory phase's speed from its phases,
# and simulate / bench --backend sim reproduce those numbers with --calibration. Bad input
# exits 2 with one line and writes nothing.
set -u
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cd "$work"

# Rows on 2 nodes x 2 ranks. Ring all-reduce over n ranks: 2(n-1) L + 2(n-1)/n S / B;
# chain broadcast: (n-1) L + S / B; ring all-gather of total S: (n-1) L + (n-1) (S/n) / B.
# intra: L = 4 us, B = 3 GB/s; inter: L = 10 us, B = 1 GB/s. intra all-reduce has two
# regimes: up to 64 KiB L = 2 us, B = 0.5 GB/s; above, L = 30 us, B = 6 GB/s.
python3 - <<'PY'
import json
def ring(n, L, B, S): return 2*(n-1)*L + 2*(n-1)/n*S/B
def bcast(n, L, B, S): return (n-1)*L + S/B
def gather(n, L, B, S): return (n-1)*L + (n-1)*(S/n)/B
rows = []
def row(op, group, n, S, t):
    rows.append({"op": op, "group": group, "algo": "mpi", "bytes": S, "count": S // 4,
                 "dtype": "float", "time_us": t * 1e6, "algbw_gbs": 0, "busbw_gbs": 0,
                 "wrong": 0, "ranks": n, "backend": "mpi", "nodes": 2, "gpus_per_node": 2,
                 "world": 4})
sizes = [1024 * 4**k for k in range(8)]  # 1 KiB .. 16 MiB
for S in sizes:
    L, B = (2e-6, 0.5e9) if S <= 65536 else (30e-6, 6e9)
    row("allreduce", "intra", 2, S, ring(2, L, B, S))
    row("broadcast", "intra", 2, S, bcast(2, 4e-6, 3e9, S))
    row("allgather", "intra", 2, S, gather(2, 4e-6, 3e9, S))
    row("allreduce", "inter", 2, S, ring(2, 10e-6, 1e9, S))
    row("broadcast", "inter", 2, S, bcast(2, 10e-6, 1e9, S))
    row("allgather", "world", 4, S, gather(4, 7e-6, 2e9, S))
json.dump(rows, open("bench.json", "w"))
json.dump([dict(r, backend="sim") for r in rows], open("simrows.json", "w"))
PY

"$prunex" calibrate --from bench.json --fit line --host-cores 0 --out cal.json > cal.txt ||
  fail "calibrate exited $?"
cat cal.txt
python3 - <<'PY' || fail "fitted constants"
import json
c = json.load(open("cal.json"))
def close(a, b, what, tol=1e-6):
    assert abs(a / b - 1) < tol, f"{what}: {a} vs {b}"
ops = c["ops"]
def one(key, L, B):
    assert len(ops[key]) == 1, (key, ops[key])
    close(ops[key][0]["latency_s"], L, key + " latency"); close(ops[key][0]["bandwidth_Bps"], B, key + " bandwidth")
one("broadcast/intra", 4e-6, 3e9); one("allgather/intra", 4e-6, 3e9)
one("allreduce/inter", 10e-6, 1e9); one("broadcast/inter", 10e-6, 1e9)
one("allgather/world", 7e-6, 2e9)
seg = ops["allreduce/intra"]
assert len(seg) == 2 and seg[0]["max_bytes"] == 65536, seg
close(seg[0]["latency_s"], 2e-6, "small latency"); close(seg[0]["bandwidth_Bps"], 0.5e9, "small bw")
close(seg[1]["latency_s"], 30e-6, "large latency"); close(seg[1]["bandwidth_Bps"], 6e9, "large bw")
close(c["tiers"]["inter"]["latency_s"], 10e-6, "inter tier latency")
close(c["tiers"]["inter"]["bandwidth_Bps"], 1e9, "inter tier bandwidth")
for p in c["points"]:
    assert abs(p["rel_err"]) < 1e-6, p
print("fitted constants: OK")
PY
grep -q "^inter: latency 10.000 us, bandwidth 1.000 GB/s" cal.txt || fail "inter summary line"

# bench --backend sim with the calibration gives the formulas' times (1 MiB, 2 x 2).
sim_us() {  # OP GROUP BYTES
  "$prunex" bench --backend sim --topology localhost --nodes 2 --gpus-per-node 2 \
    --calibration cal.json --op "$1" --group "$2" -b "$3" -e "$3" | grep -v '^#' | awk '{print $6}'
}
check_us() {  # GOT WANT WHAT
  python3 -c "import sys; g, w = float('$1'), float('$2'); sys.exit(0 if abs(g / w - 1) < 0.01 else 1)" ||
    fail "$3: simulated $1 us, expected $2 us"
}
check_us "$(sim_us allreduce intra 1048576)" "$(python3 -c 'print(2*30e-6*1e6 + 1048576/6e9*1e6)')" "intra all-reduce 1 MiB"
check_us "$(sim_us allreduce intra 4096)" "$(python3 -c 'print(2*2e-6*1e6 + 4096/0.5e9*1e6)')" "intra all-reduce 4 KiB"
check_us "$(sim_us broadcast inter 1048576)" "$(python3 -c 'print(10 + 1048576/1e9*1e6)')" "inter broadcast 1 MiB"
check_us "$(sim_us allgather world 1048576)" "$(python3 -c 'print(3*7 + 3*(1048576/4)/2e9*1e6)')" "world all-gather 1 MiB"

# Compute from a run's local steps: 3 x forward FLOPs x batch x steps per second of the
# slowest rank's local_compute (the first iteration skipped).
fwd=$("$prunex" model-info --model small_cnn --input 28 --input-channels 1 --json |
      python3 -c "import json,sys; print(json.load(sys.stdin)['forward_flops'])") ||
  fail "model-info"
python3 - <<'PY'
import json
cfg = {"model": "small_cnn", "classes": 10, "input": 28, "input_channels": 1, "nodes": 2,
       "gpus_per_node": 2, "world_size": 4, "batch": 32, "samples": 8000, "local-epochs": 1,
       "local-steps": 10, "strategy": "ddp", "backend": "mpi"}
its = [{"iteration": k, "phases": {"local_compute": {"critical_path_s": s, "per_rank_s": [s] * 4}}}
       for k, s in ((1, 9.0), (2, 2.0), (3, 2.0))]
json.dump({"config": cfg, "iterations": its}, open("steps.json", "w"))
PY
"$prunex" calibrate --steps steps.json --host-cores 2 --out cal_c.json > cal_c.txt || fail "calibrate --steps exited $?"
python3 - "$fwd" <<'PY' || fail "compute fit"
import json, sys
fwd = float(sys.argv[1])
c = json.load(open("cal_c.json"))["compute"]
want = 3 * fwd * 32 * 10 / 2.0
assert abs(c["flops_per_rank"] / want - 1) < 1e-9, (c, want)
assert c["ranks"] == 4 and c["iterations"] == 2, c
PY
# The same work simulated on 2 x 2 takes 2 s of compute per iteration; on 4 x 2 (8 ranks on
# 2 cores) twice that.
for shape in "2 2.0" "4 4.0"; do
  set -- $shape
  "$prunex" simulate --topology localhost --calibration cal_c.json --nodes $1 --gpus-per-node 2 \
    --model small_cnn --input 28 --input-channels 1 --strategy hsadmm-flat --iterations 1 \
    --local-steps 10 --batch 32 --samples 8000 --out sim$1 > /dev/null || fail "simulate exited $?"
  got=$(python3 -c "import json; print(json.load(open('sim$1/metrics.json'))['iterations'][0]['phases']['local_compute']['critical_path_s'])")
  python3 -c "import sys; sys.exit(0 if abs($got / $2 - 1) < 0.01 else 1)" ||
    fail "$1 nodes: simulated local_compute $got s, expected $2 s"
done

# Runs at two batch sizes tell a fixed cost per local step from the FLOPs' rate: made here
# with c = 4 ms a step and S = 150 GFLOP/s (local_compute = 10 c + 3 x fwd x batch x 10 / S),
# calibrate recovers both, and a simulation at a third batch (16, held out; the fixed cost a
# quarter of its step) pays 10 c + its FLOPs / S on 4 ranks and twice that on 8 ranks sharing
# the 4 cores (the speed halves, so the time of every step doubles, its fixed part too).
python3 - "$fwd" <<'PY'
import json, sys
fwd = float(sys.argv[1])
for b in (32, 40, 96):
    cfg = {"model": "small_cnn", "classes": 10, "input": 28, "input_channels": 1, "nodes": 2,
           "gpus_per_node": 2, "world_size": 4, "batch": b, "samples": 8000, "local-epochs": 1,
           "local-steps": 10, "strategy": "ddp", "backend": "mpi"}
    s = 10 * 0.004 + 3 * fwd * b * 10 / 1.5e11
    its = [{"iteration": k, "phases": {"local_compute": {"critical_path_s": t, "per_rank_s": [t] * 4}}}
           for k, t in ((1, 5 * s), (2, s), (3, s))]
    json.dump({"config": cfg, "iterations": its}, open(f"steps_b{b}.json", "w"))
PY
"$prunex" calibrate --steps steps_b32.json,steps_b96.json --host-cores 4 --out cal_o.json \
  > cal_o.txt || fail "calibrate --steps at two batch sizes exited $?"
grep -q "ms per local step" cal_o.txt || fail "calibrate does not print the fixed cost: $(cat cal_o.txt)"
python3 - <<'PY' || fail "fixed cost and rate from two batch sizes"
import json
c = json.load(open("cal_o.json"))["compute"]
assert abs(c["step_overhead_s"] / 0.004 - 1) < 1e-9, c
assert abs(c["flops_per_rank"] / 1.5e11 - 1) < 1e-9, c
PY
# The same calibration without its fixed cost isolates what the fixed cost adds: exactly
# 10 steps x c (x 2 on 8 ranks); the level, 10 c + FLOPs / S, holds within 3% (the plan's own
# memory passes, at the preset's memory bandwidth, come on top).
python3 -c "
import json; c = json.load(open('cal_o.json')); del c['compute']['step_overhead_s']
json.dump(c, open('cal_rate.json', 'w'))"
for shape in "2 1" "4 2"; do
  set -- $shape
  for cal in cal_o cal_rate; do
    "$prunex" simulate --topology localhost --calibration $cal.json --nodes $1 --gpus-per-node 2 \
      --model small_cnn --input 28 --input-channels 1 --strategy hsadmm-flat --iterations 1 \
      --local-steps 10 --batch 16 --samples 8000 --out simo_${cal}_$1 > /dev/null ||
      fail "simulate exited $?"
  done
  python3 - "$fwd" "$2" simo_cal_o_$1 simo_cal_rate_$1 <<'PY' || fail "simulated local_compute at batch 16 on $1 nodes"
import json, sys
fwd, times, with_c, without = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
def compute(out):
    m = json.load(open(f"{out}/metrics.json"))
    return m, m["iterations"][0]["phases"]["local_compute"]["critical_path_s"]
m, got = compute(with_c)
_, rate_only = compute(without)
assert abs((got - rate_only) / (times * 10 * 0.004) - 1) < 1e-6, (got, rate_only)
want = times * (10 * 0.004 + 3 * fwd * 16 * 10 / 1.5e11)
assert abs(got / want - 1) < 0.03, (got, want)
assert abs(m["config"]["compute-calibration"]["step_overhead_s"] - times * 0.004) < 1e-12, m["config"]
PY
done
# Batch sizes under 1.5x apart (32 and 40) leave the fixed cost unresolved: the rate alone.
"$prunex" calibrate --steps steps_b32.json,steps_b40.json --host-cores 4 --out cal_close.json \
  > /dev/null || fail "calibrate --steps at close batch sizes exited $?"
python3 - <<'PY' || fail "close batch sizes"
import json
c = json.load(open("cal_close.json"))["compute"]
assert "step_overhead_s" not in c and "under 1.5x apart" in c["source"], c
PY
# The calibration's fixed cost and --step-overhead-ms are two answers to one question.
expect_refused "which fitted a fixed cost per step" simo2 "$prunex" simulate --topology localhost \
  --calibration cal_o.json --step-overhead-ms 3 --model small_cnn --input 28 --input-channels 1 \
  --strategy hsadmm-flat --iterations 1 --out simo2
# A file whose fixed cost is negative is refused when read.
python3 -c "
import json; c = json.load(open('cal_o.json')); c['compute']['step_overhead_s'] = -1
json.dump(c, open('cal_neg.json', 'w'))"
expect_refused "step_overhead_s" simo3 "$prunex" simulate --topology localhost \
  --calibration cal_neg.json --model small_cnn --input 28 --input-channels 1 \
  --strategy hsadmm-flat --iterations 1 --out simo3

# Memory phases from a run's phases: the median over iterations of the plan's bytes over the
# slowest rank's seconds. hsadmm-flat's plan (engine/plan_builder.h): dual_update 5D + 4D +
# 11D, projection D per iteration, D = fp32 bytes of the model. Iteration 3's dual_update
# stalled (10x); the median ignores it, where summed bytes over summed seconds would not.
D=$("$prunex" model-info --model small_cnn --input 28 --input-channels 1 --json |
    python3 -c "import json,sys; print(json.load(sys.stdin)['fp32_bytes'])") || fail "model-info"
python3 - <<'PY'
import json
cfg = {"model": "small_cnn", "classes": 10, "input": 28, "input_channels": 1, "nodes": 2,
       "gpus_per_node": 2, "world_size": 4, "batch": 32, "samples": 8000, "local-epochs": 1,
       "local-steps": 10, "strategy": "hsadmm-flat", "backend": "mpi"}
def it(k, du, pr):
    return {"iteration": k, "phases": {
        "local_compute": {"critical_path_s": 2.0, "per_rank_s": [2.0] * 4},
        "dual_update": {"critical_path_s": du, "per_rank_s": [du / 2] * 3 + [du]},
        "projection": {"critical_path_s": pr, "per_rank_s": [pr] * 4}}}
json.dump({"config": cfg, "iterations": [it(1, 1.0, 1.0), it(2, 0.003, 0.001),
                                         it(3, 0.030, 0.002), it(4, 0.003, 0.003)]},
          open("steps_m.json", "w"))
PY
"$prunex" calibrate --steps steps_m.json --host-cores 2 --out cal_m.json > cal_m.txt ||
  fail "calibrate --steps (memory phases) exited $?"
python3 - "$D" <<'PY' || fail "memory phase fit"
import json, sys
D = float(sys.argv[1])
m = json.load(open("cal_m.json"))["memory_phases"]
assert set(m) == {"dual_update", "projection"}, m
for phase, per_it, secs in (("dual_update", 20 * D, 0.003), ("projection", D, 0.002)):
    f = m[phase]
    assert abs(f["bandwidth_Bps"] / (per_it / secs) - 1) < 1e-9, (phase, f)
    assert f["iterations"] == 3 and f["ranks"] == 4, f
PY
# Simulated on the same shape, a phase takes its median time; on 4 x 2 (8 ranks on 2 cores)
# twice that. The GPU memory bandwidth of the topology no longer matters.
for shape in "2 1" "4 2"; do
  set -- $shape
  "$prunex" simulate --topology localhost --calibration cal_m.json --nodes $1 --gpus-per-node 2 \
    --model small_cnn --input 28 --input-channels 1 --strategy hsadmm-flat --iterations 1 \
    --local-steps 10 --batch 32 --samples 8000 --out simm$1 > /dev/null ||
    fail "simulate exited $?"
  python3 - simm$1/metrics.json $2 <<'PY' || fail "$1 nodes: simulated memory phases"
import json, sys
ph = json.load(open(sys.argv[1]))["iterations"][0]["phases"]
f = float(sys.argv[2])
for phase, want in (("dual_update", 0.003 * f), ("projection", 0.002 * f)):
    got = ph[phase]["critical_path_s"]
    assert abs(got / want - 1) < 1e-6, (phase, got, want)
PY
done

# Warm-cache benches (--from-warm) cost the collectives with no compute since the previous
# collective: H-SADMM's mask sync, inter-node all-reduces and broadcasts, not its intra-node
# all-reduce (after the local steps). Warm rows: intra broadcast L = 1 us (cold 4 us), inter
# all-reduce L = 5 us (cold 10 us), same bandwidths. On 2 x 2 (one compacted bucket) a 2-rank
# chain broadcast has one latency step and a 2-rank ring all-reduce two, so per iteration
# broadcast (mask bits + the bucket) is 2 x 3 us shorter, inter_allreduce and mask_sync
# 2 x 5 us each, and intra_allreduce is unchanged.
python3 - <<'PY'
import json
rows = [r for r in json.load(open("bench.json"))
        if (r["op"], r["group"]) in (("broadcast", "intra"), ("allreduce", "inter"))]
for r in rows:
    S = r["bytes"]
    t = 1e-6 + S / 3e9 if r["op"] == "broadcast" else 2 * 5e-6 + S / 1e9
    r["time_us"] = t * 1e6
json.dump(rows, open("warm.json", "w"))
PY
"$prunex" calibrate --from bench.json --from-warm warm.json --fit line --host-cores 0 --out cal_w.json \
  > cal_w.txt || fail "calibrate --from-warm exited $?"
python3 - <<'PY' || fail "warm constants"
import json
w = json.load(open("cal_w.json"))["ops_warm"]
assert set(w) == {"broadcast/intra", "allreduce/inter"}, w
for key, L in (("broadcast/intra", 1e-6), ("allreduce/inter", 5e-6)):
    assert len(w[key]) == 1 and abs(w[key][0]["latency_s"] / L - 1) < 1e-6, (key, w[key])
PY
for c in cal cal_w; do
  "$prunex" simulate --topology localhost --calibration $c.json --nodes 2 --gpus-per-node 2 \
    --model small_cnn --input 28 --input-channels 1 --strategy hsadmm --iterations 1 \
    --local-steps 10 --batch 32 --samples 8000 --keep 0.5 --out sim_$c > /dev/null ||
    fail "simulate with $c.json exited $?"
done
python3 - <<'PY' || fail "warm collectives"
import json
def phases(d):
    return json.load(open(d + "/metrics.json"))["iterations"][0]["phases"]
cold, warm = phases("sim_cal"), phases("sim_cal_w")
for phase, less in (("broadcast", 6e-6), ("inter_allreduce", 10e-6), ("mask_sync", 10e-6),
                    ("intra_allreduce", 0.0)):
    got = cold[phase]["critical_path_s"] - warm[phase]["critical_path_s"]
    assert abs(got - less) < 1e-9, (phase, got, less)
PY

# --fit piecewise (the default): a line between each two consecutive sizes. intra
# all-reduce (2 ranks, t = 2L + S/B) from L = 2 us, B = 0.5 GB/s up to 16 KiB to L = 30 us,
# B = 2 GB/s from 64 KiB: segments inside a regime recover its constants, the one across (16-64 KiB) is the
# chord through its two sizes, and the end segments extrapolate. intra broadcast at 1, 4,
# 16 KiB takes 50, 40, 60 us: the first segment would fall with size, so it is the
# latency-only least-relative-squares fit of 50 and 40 us, sum(1/t) / sum(1/t^2).
python3 - <<'PY'
import json
rows = []
def row(op, S, t):
    rows.append({"op": op, "group": "intra", "algo": "mpi", "bytes": S, "count": S // 4,
                 "dtype": "float", "time_us": t * 1e6, "algbw_gbs": 0, "busbw_gbs": 0,
                 "wrong": 0, "ranks": 2, "backend": "mpi", "nodes": 2, "gpus_per_node": 2,
                 "world": 4})
for k in range(8):
    S = 1024 * 4**k
    L, B = (2e-6, 0.5e9) if S <= 16384 else (30e-6, 2e9)
    row("allreduce", S, 2 * L + S / B)
for S, us in ((1024, 50), (4096, 40), (16384, 60)):
    row("broadcast", S, us * 1e-6)
json.dump(rows, open("bench_pw.json", "w"))
PY
"$prunex" calibrate --from bench_pw.json --host-cores 0 --out cal_pw.json \
  > cal_pw.txt || fail "calibrate (piecewise, the default) exited $?"
python3 - <<'PY' || fail "piecewise constants"
import json
c = json.load(open("cal_pw.json"))
assert c["op_fit"] == "piecewise", c["op_fit"]
seg = c["ops"]["allreduce/intra"]
assert [s["max_bytes"] for s in seg] == [1024 * 4**k for k in range(1, 8)], seg
def close(a, b, what):
    assert abs(a / b - 1) < 1e-6, f"{what}: {a} vs {b}"
for k, s in enumerate(seg):
    if k == 2:
        continue
    L, B = (2e-6, 0.5e9) if k < 2 else (30e-6, 2e9)
    close(s["latency_s"], L, f"segment {k} latency"); close(s["bandwidth_Bps"], B, f"segment {k} bw")
t16, t64 = 2 * 2e-6 + 16384 / 0.5e9, 2 * 30e-6 + 65536 / 2e9
inv_b = (t64 - t16) / (65536 - 16384)
close(seg[2]["bandwidth_Bps"], 1 / inv_b, "chord bandwidth")
close(seg[2]["latency_s"], (t16 - 16384 * inv_b) / 2, "chord latency")
b = c["ops"]["broadcast/intra"]
assert len(b) == 2 and b[0]["bandwidth_Bps"] >= 1e29, b
close(b[0]["latency_s"], (1 / 50 + 1 / 40) / (1 / 50**2 + 1 / 40**2) * 1e-6, "flat segment")
for p in c["points"]:
    if p["op"] == "allreduce":
        assert abs(p["rel_err"]) < 1e-6, p
print("piecewise constants: OK")
PY
# Simulated: linear interpolation between the benchmarked sizes, extrapolation past the ends.
pw_us() {  # OP BYTES
  "$prunex" bench --backend sim --topology localhost --nodes 2 --gpus-per-node 2 \
    --calibration cal_pw.json --op "$1" --group intra -b "$2" -e "$2" | grep -v '^#' | awk '{print $6}'
}
check_us "$(pw_us allreduce 32768)" \
  "$(python3 -c 'a, b = 4 + 16384 / 500, 60 + 65536 / 2000; print(a + (b - a) * (32768 - 16384) / (65536 - 16384))')" \
  "piecewise all-reduce 32 KiB (chord)"
check_us "$(pw_us allreduce 512)" "$(python3 -c 'print(4 + 512 / 500)')" "piecewise all-reduce 512 B"
check_us "$(pw_us allreduce 33554432)" "$(python3 -c 'print(60 + 33554432 / 2000)')" \
  "piecewise all-reduce 32 MiB"
check_us "$(pw_us broadcast 2048)" "$(python3 -c 'print((1/50 + 1/40) / (1/50**2 + 1/40**2))')" \
  "piecewise broadcast 2 KiB (flat segment)"

expect_exit2() {  # WORDS ARGS...
  local words="$1"; shift
  expect_refused "$words" "" "$prunex" "$@"
}
expect_exit2 "cannot open file" calibrate --from missing.json --out x.json
# Relative to localhost's placeholder links would be a fit relative to nothing measured.
expect_exit2 "--links relative needs --topology" calibrate --from bench.json --links relative \
  --out x.json
echo '[{"op": ' > broken.json
expect_exit2 "malformed JSON" calibrate --from broken.json --out x.json
expect_exit2 "not a live measurement" calibrate --from simrows.json --out x.json
# A run record holds nothing its command line could not say: a batch of 0 (a divisor of the
# plan) is refused as --batch 0 is, a world of 0 nodes likewise; a document nested beyond
# any the toolkit writes is refused while it is read (a copy of it overflowed the stack).
python3 - <<'PY'
import json
m = json.load(open("steps.json"))
m["config"]["batch"] = 0
json.dump(m, open("steps_batch0.json", "w"))
m["config"]["batch"], m["config"]["nodes"] = 32, 0
json.dump(m, open("steps_nodes0.json", "w"))
open("deep.json", "w").write('{"a":' * 100000 + "1" + "}" * 100000)
PY
expect_exit2 "config.batch: --batch must be in [1, " calibrate --steps steps_batch0.json --out x.json
expect_exit2 "config.nodes, gpus-per-node and samples must be >= 1" calibrate \
  --steps steps_nodes0.json --out x.json
expect_exit2 "nested deeper than 64 levels" calibrate --steps deep.json --out x.json
for cmd in simulate sweep train; do
  expect_refused "--config deep.json: nested deeper than 64 levels" "$work/deep_out" \
    "$prunex" $cmd --config deep.json --out "$work/deep_out"
done
expect_refused "input deep.json: nested too deep to read" "" "$prunex" plot scaling deep.json \
  --out deep.png
expect_exit2 "--out FILE is required" calibrate --from bench.json
expect_exit2 "nothing to calibrate from" calibrate --out x.json
expect_exit2 "--from-warm needs --from" calibrate --from-warm warm.json --out x.json
expect_exit2 "unknown fit 'spline'" calibrate --from bench.json --fit spline --out x.json
echo '{"format": "prunex-calibration-1", "memory_phases": {"pack": {"ranks": 1}}}' > badmem.json
expect_exit2 "memory_phases.pack.bandwidth_Bps is missing" simulate --topology localhost \
  --calibration badmem.json --nodes 2 --gpus-per-node 2 --model small_cnn --out s
# Every key is known: a misspelt one is named, not ignored (here or in a nested fit).
python3 - "$work/cal.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
bad = dict(c); bad["tier"] = bad.pop("tiers")
json.dump(bad, open("misspelt.json", "w"))
bad = json.loads(json.dumps(c)); t = next(iter(bad["tiers"].values())); t["latency"] = t.pop("latency_s")
json.dump(bad, open("misspelt_fit.json", "w"))
bad = json.loads(json.dumps(c)); bad["host_cores"] = "two"
json.dump(bad, open("wrongtype.json", "w"))
PY
expect_exit2 "tier is an unknown key" simulate --topology localhost --calibration misspelt.json \
  --nodes 2 --gpus-per-node 2 --model small_cnn --out s
expect_exit2 "latency_s is missing" simulate --topology localhost --calibration misspelt_fit.json \
  --nodes 2 --gpus-per-node 2 --model small_cnn --out s
expect_exit2 "host_cores must be" simulate --topology localhost --calibration wrongtype.json \
  --nodes 2 --gpus-per-node 2 --model small_cnn --out s
echo '{"format": "other"}' > notcal.json
expect_exit2 "not a prunex calibration file" simulate --topology localhost --calibration notcal.json \
  --nodes 2 --gpus-per-node 2 --model small_cnn --out s
[[ ! -e x.json && ! -e s ]] || fail "a failed run wrote output"
echo "calibrate: OK"
