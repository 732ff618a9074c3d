#!/usr/bin/env bash
# prunex simulate / sweep: the same metrics.json summary keys and trace.json as `prunex train`,
# recorded masks from a metrics.json, bad input exits 2 with nothing written, and a sweep's
# scaling.json with speedup 1 at the smallest size.
set -u
prunex=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.bash"
cd "$work"

"$prunex" simulate --topology puhti --nodes 2 --gpus-per-node 4 --model small_cnn \
  --iterations 3 --t-freeze 2 --out "$work/sim" > "$work/log" 2>&1 || fail "simulate exited $?: $(cat "$work/log")"
[[ -s "$work/sim/trace.json" ]] || fail "no trace.json"
# The header names what the run assumed beyond what was typed: CIFAR-10's shape, the batch,
# the precision, the algorithm and platform settings, the mechanisms, no what-if.
grep -qxF "assumes: dataset cifar10 (32 x 32 x 3, 10 classes, 50000 samples), batch 128 per GPU, fp32; collectives: nccl (ring or tree per collective, as NCCL picks), achieved bandwidths, NCCL's base latency per call; mechanisms: interference 1.76271, DDP overhead 26.4115 passes, sync skew 0.0185; what-if: none" "$work/log" ||
  fail "no assumptions line: $(head -3 "$work/log")"
"$prunex" simulate --topology puhti --nodes 2 --gpus-per-node 4 --model resnet50 --iterations 1 \
  --dataset imagenet --batch 64 --precision amp --algo tree \
  --achieved-bandwidth false --straggler-gpus 3 --degrade-nic 1=0.5 --out "$work/sim_whatif" \
  > "$work/log_whatif" 2>&1 || fail "simulate (what-if) exited $?: $(cat "$work/log_whatif")"
grep -qxF "assumes: dataset imagenet (224 x 224 x 3, 1000 classes, 1281167 samples), batch 64 per GPU, amp; collectives: tree, signalling rates, NCCL's base latency per call; mechanisms: interference 1.76271, DDP overhead 26.4115 passes, sync skew 0.0185; what-if: --straggler-gpus 3 x2, --degrade-nic 1=0.5" "$work/log_whatif" ||
  fail "the what-if's assumptions line: $(head -3 "$work/log_whatif")"
# --dataset imagenet is --input 224 --input-channels 3 --classes 1000 --samples 1281167 (ILSVRC
# 2012's training set): the same record. A flag beside it wins (--classes 100: a custom
# workload), also from a config file, whatever the order of its keys.
"$prunex" simulate --topology puhti --nodes 2 --gpus-per-node 4 --model resnet50 --iterations 1 \
  --input 224 --input-channels 3 --classes 1000 --samples 1281167 --batch 64 --precision amp \
  --algo tree --achieved-bandwidth false --straggler-gpus 3 --degrade-nic 1=0.5 \
  --out "$work/sim_flags" > /dev/null 2>&1 || fail "simulate with the shape's four flags"
echo '{"classes": 100, "dataset": "imagenet", "topology": "puhti", "nodes": 2}' > "$work/c100.json"
"$prunex" simulate --config "$work/c100.json" --model resnet50 --iterations 1 \
  --out "$work/sim_c100" > "$work/log_c100" 2>&1 || fail "simulate --config c100.json"
grep -qF "assumes: a custom workload (224 x 224 x 3, 100 classes, 1281167 samples)" \
  "$work/log_c100" || fail "--dataset with --classes: $(sed -n 2p "$work/log_c100")"
python3 - "$work" <<'PY' || fail "--dataset's records"
import json, sys
w = sys.argv[1]
a, b, c = (json.load(open(f"{w}/{d}/metrics.json")) for d in ("sim_whatif", "sim_flags", "sim_c100"))
ca, cb = dict(a["config"]), dict(b["config"])
ca.pop("out"), cb.pop("out")
assert ca == cb, {k: (ca.get(k), cb.get(k)) for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)}
assert ca["dataset"] == "imagenet" and ca["input"] == 224 and ca["samples"] == 1281167, ca
assert a["summary"]["time_per_iteration_s"] == b["summary"]["time_per_iteration_s"]
assert c["config"]["dataset"] is None and c["config"]["classes"] == 100, c["config"]
PY
expect_refused "unknown data set 'mnist' (known: cifar10, fashion-mnist, imagenet)" "$work/bad" \
  "$prunex" simulate --topology puhti --dataset mnist --out "$work/bad"
python3 - "$work/sim" <<'PY' || fail "metrics.json check"
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/metrics.json"))
s = m["summary"]
for k in ("time_per_iteration_s", "inter_node_bytes_per_iteration",
          "dense_inter_node_bytes_per_iteration", "phase_fraction"):
    assert k in s, k
# Every second of an iteration is in a phase row (every rank alike here): the wait for the
# last rank (the sync skew, on by default) is sync_wait's, and the rows add up to the time.
ph = s["phase_seconds"]
assert ph.get("sync_wait", 0) > 0, ph
assert abs(sum(ph.values()) / s["time_per_iteration_s"] - 1) < 1e-9, (ph, s["time_per_iteration_s"])
c = m["config"]
assert c["executor"] == "simgrid" and c["network-model"] == "CM02", c
assert c["network-model-description"].startswith("CM02"), c
# Keys are the flag names, and the shape is the one used.
assert c["nodes"] == 2 and c["gpus-per-node"] == 4 and c["local-epochs"] == 1, c
its = m["iterations"]
assert len(its) == 3 and [i["mask_frozen"] for i in its] == [False, True, True], its
# small_cnn, channel keep 0.5: dense 66,410 floats; compact 34,154 floats + 180 mask bytes
# (mask_sync in iterations 1 and 2 only).
assert s["dense_inter_node_bytes_per_iteration"] == 66410 * 4
assert its[0]["bytes"]["inter"] == 34154 * 4 + 180, its[0]["bytes"]
assert its[2]["bytes"]["inter"] == 34154 * 4, its[2]["bytes"]
t = json.load(open(d + "/trace.json"))
assert len(t["traceEvents"]) > 0
PY

# Masks from a recorded run: H-SADMM replays each iteration's payload mask ("payload_density";
# runs that predate it: "density"), the last one repeating.
cat > "$work/live.json" <<'JSON'
{"config": {"model": "small_cnn", "sparsity": "channel"},
 "iterations": [{"density": {"features.3.weight": 0.5, "features.7.weight": 0.5, "features.10.weight": 0.5},
                 "payload_density": {"features.3.weight": 0.25, "features.7.weight": 0.5, "features.10.weight": 0.75}},
                {"density": {"features.3.weight": 0.5, "features.7.weight": 0.5, "features.10.weight": 0.5}}]}
JSON
"$prunex" simulate --topology puhti --nodes 2 --model small_cnn --iterations 3 \
  --masks "$work/live.json" --out "$work/masks" > "$work/log" 2>&1 || fail "--masks exited $?: $(cat "$work/log")"
python3 -c "
import json; m = json.load(open('$work/masks/metrics.json'))
b = [i['bytes']['inter'] for i in m['iterations']]
# keep 1/4, 1/2, 3/4 of the input channels of features.3 (32x32x3x3), .7 (64x32) and .10 (64x64):
# 864 + 384 + 32*8*9 + 64*16*9 + 64*48*9 + 650 = 41066 floats; all at 1/2: 34154; + 180 mask bytes
assert b == [41066 * 4 + 180, 34154 * 4 + 180, 34154 * 4 + 180], b" || fail "--masks bytes"

expect_exit2() {  # expect_exit2 WORDS ARGS...: exit 2, the words on stderr, no output folder
  local words="$1"; shift
  expect_refused "$words" "$work/bad" "$prunex" "$@" --out "$work/bad"
}
# bench --backend sim --compare nccl-model: NCCL's model per row in the JSON, and its LL
# time for 1 KiB on 2 x 1 puhti by hand: base 6.6 + 2 net hops of the tree (5 us, one rank per
# node) = 16.6 us; busBw min(39, 12.5 / 2) = 6.25 GB/s, algBw x 2/2: + 1024 / 6250 us.
"$prunex" bench --backend sim --topology puhti --nodes 2 --gpus-per-node 1 --group world \
  -b 1K -e 1K --compare nccl-model --protocol LL --json "$work/nccl.json" > "$work/log" 2>&1 ||
  fail "bench --compare nccl-model exited $?: $(cat "$work/log")"
grep -q "geometric mean over 1 rows" "$work/log" || fail "no geometric mean: $(cat "$work/log")"
python3 -c "
import json; r = json.load(open('$work/nccl.json'))[0]
assert r['nccl_model_protocol'] == 'LL', r
assert abs(r['nccl_model_us'] - (16.6 + 1024 / 6250)) < 1e-6, r" || fail "nccl-model row"
expect_exit2 "nosuchcluster" simulate --topology nosuchcluster --nodes 2
expect_exit2 "--keep" simulate --topology puhti --nodes 2 --keep 1.5
expect_exit2 "--topology is required" simulate --nodes 2
expect_exit2 "live.json" simulate --topology puhti --nodes 2 --model resnet18 --masks "$work/live.json"
expect_exit2 "--union-growth" simulate --topology puhti --nodes 2 --union-growth -1
expect_exit2 "unknown strategy" simulate --topology puhti --nodes 2 --strategy nope
# An unknown option is named as typed, the first word no option claims.
expect_exit2 "unknown option '--nodez'" simulate --topology puhti --nodez 2
# One of two settings would be ignored: refused. --ternary's int8 sum: at most 127 ranks, as
# the live trainer refuses it (2 x 64 = 128).
expect_exit2 "--local-epochs and --local-steps are both given" simulate --topology puhti \
  --nodes 2 --local-epochs 2 --local-steps 5
# --local-steps 0 means epochs: nothing is ignored.
"$prunex" simulate --topology puhti --nodes 2 --local-epochs 2 --local-steps 0 --iterations 1 \
  --model small_cnn --input 28 --input-channels 1 --out "$work/steps0" > /dev/null 2>&1 ||
  fail "--local-steps 0 with --local-epochs refused"
# A global batch larger than the data set (1040 x 52 = 54080 > 50000): local steps are full
# batches, so refused; an epoch is each GPU's shard of 49, said in a note; with ImageNet's size
# the same run computes 52 a step, as an epoch of exactly one global batch does.
expect_exit2 "--local-steps takes full batches: --batch 52 on 1040 GPUs needs 54080 samples, more than --samples 50000 (49 per GPU)" \
  simulate --topology dgx1-v100 --nodes 130 --gpus-per-node 8 --batch 52 --model resnet50 \
  --input 224 --local-steps 1
big=(simulate --topology dgx1-v100 --nodes 130 --gpus-per-node 8 --batch 52 --model resnet50
     --input 224 --iterations 1)
"$prunex" "${big[@]}" --out "$work/epoch" >/dev/null 2>"$work/epoch.err" || fail "an epoch of 49 a GPU refused"
grep -qF "note: --batch 52 on 1040 GPUs is 54080 samples, more than --samples 50000: an epoch is one step of 49 samples per GPU" \
  "$work/epoch.err" || fail "no note on the epoch's step: $(cat "$work/epoch.err")"
"$prunex" "${big[@]}" --samples 1281167 --local-steps 1 --out "$work/imagenet" >/dev/null 2>&1 ||
  fail "batch 52 on 1040 GPUs with ImageNet's samples refused"
"$prunex" "${big[@]}" --samples 54080 --out "$work/exact" >/dev/null 2>&1 ||
  fail "batch 52 on 1040 GPUs with 54080 samples refused"
# One step of 52 (a local step on ImageNet, or an epoch of exactly one global batch) takes the
# same time; the epoch's step of 49 less.
python3 - "$work/epoch/metrics.json" "$work/imagenet/metrics.json" "$work/exact/metrics.json" <<'PY' ||
import json, sys
e, i, x = (json.load(open(p))["summary"]["time_per_iteration_s"] for p in sys.argv[1:])
assert abs(i / x - 1) < 1e-12 and e < x, (e, i, x)
PY
  fail "the step of 49 against the steps of 52"
expect_exit2 "at most 127 ranks (got 128)" simulate --topology dgx-a100 --nodes 16 \
  --gpus-per-node 8 --strategy pactrain --ternary true
expect_refused "--op must be one of allreduce, broadcast, allgather, all, compaction, alltoall, iteration, got 'barrier'" "" "$prunex" bench --backend sim \
  --topology puhti --nodes 2 --op barrier
expect_refused "--stat applies to live collectives" "" "$prunex" bench --backend sim \
  --topology puhti --nodes 2 --stat median
expect_refused "--topology applies to --backend sim" "" "$prunex" bench --backend mpi \
  --topology puhti
# An option given twice keeps its last value (a script's defaults, then the caller's).
"$prunex" simulate --topology puhti --nodes 4 --nodes 2 --iterations 1 --model small_cnn \
  --input 28 --input-channels 1 --out "$work/twice" > /dev/null 2>&1 || fail "--nodes twice"
python3 -c "
import json; c = json.load(open('$work/twice/metrics.json'))['config']
assert c['nodes'] == 2, c['nodes']" || fail "--nodes given twice: not the last"
expect_exit2 "multiple of" sweep --topology puhti --gpus 8,10 --model small_cnn
# A tree has no all-gather: topk is refused before any point runs (ddp's point came first).
expect_exit2 "topk all-gathers" sweep --topology puhti --gpus 8,16 --model small_cnn \
  --strategy ddp,topk --algo tree
expect_exit2 "a tree has no all-gather" simulate --topology puhti --nodes 2 --model small_cnn \
  --strategy cgx --algo tree
# CLI11 parsing: a word the command does not take, a value outside its type's range (shown as
# typed), an option the command does not have.
expect_exit2 "not expected: ddp" sweep --topology puhti --gpus 8,16 ddp
expect_exit2 "'9223372036854775807'" simulate --topology puhti --nodes 2 --batch 9223372036854775807
expect_exit2 "'99999999999999999999'" simulate --topology puhti --nodes 99999999999999999999
expect_exit2 "--no-such" simulate --topology puhti --no-such 1
# What-if flags that make no sense stop at once.
expect_exit2 "--degrade-nic" simulate --topology puhti --nodes 2 --degrade-nic 9=0.5
expect_exit2 "--straggler-gpus" simulate --topology puhti --nodes 2 --straggler-gpus 99
expect_exit2 "--checkpoint-seconds" simulate --topology puhti --nodes 2 --mtbf-hours 100
# A hand-written --config: null, a list or an object where a value belongs, a folder where
# the file belongs. A run's record may hold nulls (settings it did not use: the --masks run's
# union-growth) and reruns.
python3 -c "import json; assert json.load(open('$work/masks/metrics.json'))['config']['union-growth'] is None" ||
  fail "the --masks record has no null union-growth"
"$prunex" simulate --config "$work/masks/metrics.json" --out "$work/masks-again" > "$work/log" 2>&1 ||
  fail "rerun of a record with nulls exited $?: $(cat "$work/log")"
for bad in '{"model": null}' '{"batch": [32]}' '{"nodes": {}}'; do
  echo "$bad" > "$work/bad.json"
  expect_exit2 "bad.json: key '" simulate --topology puhti --config "$work/bad.json"
done
echo '{"keep": null}' > "$work/null.json"
expect_exit2 "key 'keep' is null" simulate --topology puhti --config "$work/null.json"
expect_exit2 "cannot open" simulate --topology puhti --config "$work"
# An output path given empty, for a command whose output is a file.
expect_refused "--json needs a FILE, got an empty one" "" "$prunex" bench --backend sim \
  --topology puhti --json ""
# Outputs that cannot be written, for every command that writes a file or a folder: refused
# in one line before any work (a file on the way, a folder where the file belongs, /proc).
echo x > "$work/afile"
expect_refused "--json $work/afile/x.json: $work/afile is a file" "" "$prunex" bench \
  --backend sim --topology puhti -b 1K -e 1K --json "$work/afile/x.json"
expect_refused "--json $work: is a folder, not a file" "" "$prunex" bench --backend sim \
  --topology puhti -b 1K -e 1K --json "$work"
expect_refused "its folder is not writable" "" "$prunex" plot comm-breakdown \
  "$work/sim/metrics.json" --out /proc/prunex-test.png
expect_refused "cannot create the folder" "" "$prunex" reproduce --out /proc/prunex-test
expect_refused "its folder is not writable" "" "$prunex" topology import \
  "$here/../topologies/fixtures/c4140.topo.txt" --base c4140 --out /proc/prunex-test.json
expect_refused "its folder is not writable" "" "$prunex" calibrate --memory "$work/afile" \
  --out /proc/prunex-test.json
# A setting the chosen strategy does not use: one warning line naming who uses it, and the
# run goes on; a run's record (every setting recorded) rerun as another strategy warns of none.
"$prunex" simulate --topology puhti --nodes 2 --strategy ddp --sparsity filter --iterations 1 \
  --model small_cnn --out "$work/warn" > /dev/null 2> "$work/warn.err" || fail "ddp --sparsity: exit $?"
[[ $(cat "$work/warn.err") == "prunex simulate: warning: --sparsity applies to hsadmm, hsadmm-flat, hsadmm-rail, not ddp: ignored" ]] ||
  fail "ddp --sparsity: $(cat "$work/warn.err")"
# A refused run prints its error alone, not the warning too.
expect_exit2 "nosuchcluster" simulate --topology nosuchcluster --strategy ddp --sparsity filter
echo '{"strategy": "topk", "bits": 4, "model": "small_cnn", "iterations": 1}' > "$work/topk.json"
"$prunex" simulate --topology puhti --nodes 2 --config "$work/topk.json" --out "$work/warn2" \
  > /dev/null 2> "$work/warn2.err" || fail "topk bits: exit $?"
grep -qx "prunex simulate: warning: --bits applies to cgx, not topk: ignored" "$work/warn2.err" ||
  fail "topk --bits in a config: $(cat "$work/warn2.err")"
"$prunex" simulate --config "$work/sim/metrics.json" --strategy topk --out "$work/warn3" \
  > /dev/null 2> "$work/warn3.err" || fail "record rerun as topk: exit $?"
[[ ! -s $work/warn3.err ]] || fail "a record's settings warned: $(cat "$work/warn3.err")"
# No command at all: the overview on stderr, exit 2, nothing on stdout.
"$prunex" >"$work/none.out" 2>"$work/none.err" && rc=0 || rc=$?
[[ $rc -eq 2 && ! -s $work/none.out ]] && grep -q "usage: prunex COMMAND" "$work/none.err" ||
  fail "prunex with no arguments: exit $rc, stdout $(wc -c <"$work/none.out") bytes"

# --out: empty, an existing file, under a file, uncreatable, held by another run: exit 2, one
# line, before any simulation.
out_exit2() {  # out_exit2 WORDS OUT
  expect_refused "$1" "" "$prunex" simulate --topology puhti --nodes 2 --model small_cnn \
    --iterations 1 --out "$2"
}
echo x > "$work/afile"
out_exit2 "--out needs a DIR, got an empty one" ""
out_exit2 "is an existing file" "$work/afile"
out_exit2 "is a file" "$work/afile/sub"
out_exit2 "cannot create" /proc/prunex-out-test
mkdir -p "$work/held"
flock "$work/held" sleep 30 &
holder=$!
sleep 0.5
out_exit2 "another run" "$work/held"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
[[ -z $(ls -A "$work/held") ]] || fail "a refused run wrote into the held folder"

# A straggler computes 3x as long; the failure estimate is in the record and on the console.
"$prunex" simulate --topology puhti --nodes 2 --gpus-per-node 2 --model small_cnn --iterations 2 \
  --straggler-gpus 1 --straggler-factor 3 --mtbf-hours 10 --checkpoint-seconds 30 \
  --restart-seconds 60 --out "$work/whatif" > "$work/log" 2>&1 || fail "what-if run: $(cat "$work/log")"
grep -q "^failures: system MTBF 5.00 h (2 nodes)" "$work/log" || fail "no failures line: $(cat "$work/log")"
expect_exit2 "--checkpoint-seconds applies with --mtbf-hours" simulate --topology puhti \
  --nodes 2 --checkpoint-seconds 30
expect_exit2 "--checkpoint-seconds applies with --mtbf-hours" simulate --topology puhti \
  --nodes 2 --mtbf-hours 0 --checkpoint-seconds 30
# The record's MTBF counts: a rerun may change the checkpoint interval alone.
"$prunex" simulate --config "$work/whatif/metrics.json" --checkpoint-minutes 5 \
  --out "$work/whatif5" > "$work/log" 2>&1 || fail "rerun with --checkpoint-minutes: $(cat "$work/log")"
python3 -c "
import json; m = json.load(open('$work/whatif/metrics.json'))
c = m['iterations'][0]['phases']['local_compute']['per_rank_s']
# local_compute: the compute steps (3x on rank 1) and the optimizer's memory pass (not slowed)
assert 2.9 < c[1] / c[0] <= 3 and c[0] == c[2] == c[3], c
f = m['summary']['failures']
assert f['system_mtbf_s'] == 18000 and f['expected_s'] > f['failure_free_s'] > 0, f
assert m['summary']['completed'] is True" || fail "what-if record"
# --precision amp: the GPU at its fp16 peak x the preset's amp_efficiency (dgx1-v100: 125
# TFLOP/s x 0.238); one step of resnet50 at batch 256 computes 3 x 8.2228 GFLOPs per image,
# then the SGD pass, 7 x 25,557,032 x 4 bytes at 900 GB/s. Volta has no TF32; a calibration's
# compute speed is its live run's, so it does not go with another precision.
"$prunex" simulate --topology dgx1-v100 --nodes 1 --gpus-per-node 1 --model resnet50 --input 224 \
  --classes 1000 --batch 256 --local-steps 1 --iterations 1 --strategy ddp \
  --ddp-overhead-passes 0 --precision amp --out "$work/amp" > "$work/log" 2>&1 ||
  fail "--precision amp: $(cat "$work/log")"
python3 -c "
import json; m = json.load(open('$work/amp/metrics.json'))
c = m['iterations'][0]['phases']['local_compute']['per_rank_s'][0]
want = 3 * 8.2228e9 * 256 / (125e12 * 0.238) + 7 * 25557032 * 4 / 900e9
assert abs(c / want - 1) < 1e-4, (c, want)
assert m['config']['precision'] == 'amp', m['config']['precision']" || fail "--precision amp record"
# --compute-cost layers: the matrix products (forward 8,222,825,448 FLOPs less the batch
# norms' 4 x 11,113,984) at that speed, and 13 passes of 2 bytes over the 11,113,984 batch-norm
# outputs per image at 900 GB/s.
"$prunex" simulate --config "$work/amp/metrics.json" --compute-cost layers --out "$work/layers" \
  > "$work/log" 2>&1 || fail "--compute-cost layers: $(cat "$work/log")"
python3 -c "
import json; m = json.load(open('$work/layers/metrics.json'))
c = m['iterations'][0]['phases']['local_compute']['per_rank_s'][0]
matrix = 8222825448 - 4 * 11113984
want = (3 * matrix * 256 / (125e12 * 0.238) + 13 * 11113984 * 2 * 256 / 900e9
        + 7 * 25557032 * 4 / 900e9)
assert abs(c / want - 1) < 1e-6, (c, want)
assert m['config']['compute-cost'] == 'layers'" || fail "--compute-cost layers record"
expect_exit2 "unknown compute cost 'roofline'" simulate --topology puhti --nodes 2 --compute-cost roofline
expect_exit2 "states no gpu.tf32_tflops" simulate --topology dgx1-v100 --nodes 2 --precision tf32
expect_exit2 "unknown precision 'bf16'" simulate --topology dgx-a100 --nodes 2 --precision bf16
expect_exit2 "the calibration's compute speed is its live run's" simulate --topology puhti \
  --nodes 2 --precision amp --calibration "$here/../../results/predict_localhost_2x1/2x1/calibration.json"
# (-f barely above 1: a table of 159 million rows, refused before any work)
for bad in "--compare nccl" "--compare nccl-model --protocol LL64" "--protocol LL" \
           "-b 8 -e 64M -f 1.0000001"; do
  # shellcheck disable=SC2086
  "$prunex" bench --backend sim --topology puhti $bad > "$work/stdout" 2> "$work/stderr"
  rc=$?
  [[ $rc -eq 2 && $(wc -l < "$work/stderr") -eq 1 && ! -s "$work/stdout" ]] ||
    fail "bench $bad: exit $rc, stderr $(cat "$work/stderr")"
done
# A platform beyond the machine's memory: one line before any work. 2^20 nodes x 4 GPUs
# need > 48 GiB by footprint.h's per-node bytes alone; with a 1 GiB cap, 32,768 x 4 (> 1.5
# GiB) does too.
expect_exit2 "needs about" simulate --topology puhti --nodes 1048576 --gpus-per-node 4
PRUNEX_MAX_MEMORY_GIB=1 expect_exit2 "1.0 GiB available" simulate --topology puhti --nodes 32768 --iterations 1
PRUNEX_MAX_MEMORY_GIB=1 expect_exit2 "1.0 GiB available" sweep --topology puhti --gpus 8,131072 --iterations 1
PRUNEX_MAX_MEMORY_GIB=x expect_exit2 "PRUNEX_MAX_MEMORY_GIB" simulate --topology puhti --nodes 2

# The recorded config is accepted back by --config and reproduces the run: same times and
# bytes in every iteration.
"$prunex" simulate --config "$work/sim/metrics.json" --out "$work/again" > "$work/log" 2>&1 \
  || fail "simulate --config metrics.json exited $?: $(cat "$work/log")"
python3 - "$work/sim/metrics.json" "$work/again/metrics.json" <<'PY' || fail "config round trip"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ca, cb = dict(a["config"]), dict(b["config"])
assert ca.pop("out") != cb.pop("out")
assert ca == cb, set(ca.items()) ^ set((k, v) for k, v in cb.items() if not isinstance(v, dict))
for x, y in zip(a["iterations"], b["iterations"]):
    assert x["wall_seconds"] == y["wall_seconds"] and x["bytes"] == y["bytes"], (x, y)
PY
# Old spellings (before 2026-11-25) read the same: underscores and "backend".
python3 - "$work/sim/metrics.json" "$work/old.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["config"]
json.dump({k.replace("-", "_"): v for k, v in c.items()}, open(sys.argv[2], "w"))
PY
"$prunex" simulate --config "$work/old.json" --out "$work/old" > "$work/log" 2>&1 \
  || fail "simulate --config with old spellings exited $?: $(cat "$work/log")"
cmp <(python3 -c "import json; print([i['wall_seconds'] for i in json.load(open('$work/old/metrics.json'))['iterations']])") \
    <(python3 -c "import json; print([i['wall_seconds'] for i in json.load(open('$work/sim/metrics.json'))['iterations']])") \
  || fail "old spellings give another run"

"$prunex" sweep --topology puhti --model small_cnn --gpus 16,8 --strategy hsadmm,ddp \
  --iterations 2 --out "$work/sweep" > "$work/log" 2>&1 || fail "sweep exited $?: $(cat "$work/log")"
python3 - "$work/sweep/scaling.json" <<'PY' || fail "scaling.json check"
import json, sys
j = json.load(open(sys.argv[1]))
for s in ("hsadmm", "ddp"):
    pts = j[s]
    assert [p["gpus"] for p in pts] == [8, 16], pts
    assert pts[0]["speedup"] == 1 and pts[0]["efficiency"] == 1, pts
    p = pts[1]
    assert abs(p["speedup"] - pts[0]["time_per_epoch_s"] / p["time_per_epoch_s"]) < 1e-12
    assert abs(p["efficiency"] - p["speedup"] / 2) < 1e-12
    assert p["nodes"] == 4
assert j["config"]["gpus"] == [8, 16] and j["config"]["strategy"] == ["hsadmm", "ddp"]
PY
# scaling.json's config is accepted back by sweep --config.
"$prunex" sweep --config "$work/sweep/scaling.json" --out "$work/sweep2" > "$work/log" 2>&1 \
  || fail "sweep --config scaling.json exited $?: $(cat "$work/log")"
cmp <(python3 -c "import json; j = json.load(open('$work/sweep/scaling.json')); print(j['hsadmm'], j['ddp'])") \
    <(python3 -c "import json; j = json.load(open('$work/sweep2/scaling.json')); print(j['hsadmm'], j['ddp'])") \
  || fail "sweep --config gives other points"
echo "simulate: ok"
