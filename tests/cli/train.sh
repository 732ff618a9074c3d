#!/usr/bin/env bash
# prunex train under mpirun: outputs of a short run, bad input (exit 2, one line, no files),
# and a diverging run (NaN in z) that must end every rank with a message instead of hanging.
set -euo pipefail
prunex=$(realpath "$1")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun -q --oversubscribe -np 4)
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
tmp=$work
common=(train --gpus-per-node 2 --dataset synthetic --synthetic-samples 256 --model small_cnn
        --batch 32 --lr 0.05 --iterations 2)

# 1. A short hsadmm run writes metrics.json and trace.json with the documented keys.
"${mpi[@]}" "$prunex" "${common[@]}" --strategy hsadmm --out "$tmp/run" >"$tmp/out.txt"
grep -q "iter   2/2" "$tmp/out.txt" || fail "no progress line for iteration 2"
python3 - "$tmp/run" <<'PY'
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/metrics.json"))
assert m["config"]["strategy"] == "hsadmm" and m["config"]["iterations"] == 2, m["config"]
assert len(m["iterations"]) == 2
it = m["iterations"][1]
for p in ("local_compute", "intra_allreduce", "projection", "mask_sync", "pack",
          "inter_allreduce", "unpack", "broadcast", "dual_update"):
    assert p in it["phases"], p
    assert len(it["phases"][p]["per_rank_s"]) == 4
for k in ("intra", "inter", "world"):
    assert k in it["bytes"]
assert "features.3.weight" in it["density"] and "features.0.weight" not in it["density"]
assert len(it["residuals"]["features.3.weight"]) == 4
s = m["summary"]
for k in ("time_per_iteration_s", "inter_node_bytes_per_iteration",
          "dense_inter_node_bytes_per_iteration", "phase_fraction", "test_accuracy"):
    assert k in s, k
assert 0 < s["inter_node_bytes_per_iteration"] < s["dense_inter_node_bytes_per_iteration"]
assert abs(sum(s["phase_fraction"].values()) - 1) < 1e-9
t = json.load(open(d + "/trace.json"))
tids = {e["tid"] for e in t["traceEvents"] if e["ph"] == "X"}
assert tids == {0, 1, 2, 3}, tids
PY

# 1b. Each iteration records the mask that compacted its inter-node payload: the bytes the
# communicator counted are that mask's compact floats (small_cnn: 1,898 floats in unpruned
# layers; features.3/.7/.10 hold 9,216 / 18,432 / 36,864) plus 180 mask bytes while the mask
# syncs (iterations 1-2). On 4 nodes at this rate the nodes disagree in iteration 2: its
# union keeps more than the mask it freezes to. simulate --masks replays those masks.
mpirun -q --oversubscribe -np 4 "$prunex" "${common[@]}" --iterations 3 --gpus-per-node 1 \
  --lr 0.2 --t-freeze 2 --strategy hsadmm --out "$tmp/union" >"$tmp/union.txt"
"$prunex" simulate --topology localhost --nodes 4 --gpus-per-node 1 --model small_cnn \
  --strategy hsadmm --iterations 3 --t-freeze 2 \
  --masks "$tmp/union/metrics.json" --out "$tmp/union_sim" >"$tmp/union_sim.txt"
# The progress lines say what the mask did: none before the freeze, "(mask freezes)" on the
# iteration after which it froze (2), "(mask frozen)" on those that ran on it; before the first
# iteration an estimate of the computing, after it one of the rest; an evaluated iteration's
# accuracy with its seconds.
python3 - "$tmp/union.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
it = {int(m.group(1)): l for l in lines if (m := re.match(r"iter +(\d+)/3 ", l))}
assert "mask" not in it[1] and it[2].endswith("(mask freezes)") and it[3].endswith("(mask frozen)"), it
est = [l for l in lines if l.startswith("estimate: ")]
assert len(est) == 2, lines
# Before the start: the computing of 3 iterations at a step's timed pace, adding up.
m = re.match(r"estimate: about (\d+) s of computing for 3 iterations of (\d+) steps at "
             r"(\d+\.\d{3}) s a step \(timed here before the start\)", est[0])
assert m and lines.index(est[0]) < lines.index(it[1]), (est[0], lines)
total, steps, step = int(m.group(1)), int(m.group(2)), float(m.group(3))
assert steps >= 1 and abs(total - 3 * steps * step) <= 0.5 + 3 * steps * 0.0005, est[0]
assert lines.index(est[1]) == lines.index(it[1]) + 1, lines
assert re.search(r"for the other 2 iterations at iteration 1's pace$", est[1]), est
assert re.search(r"acc +\d+\.\d\d% \(eval \d+\.\d s\)", it[3]), it[3]
assert any(re.match(r"test accuracy: .*\(the evaluations took \d+\.\d s", l) for l in lines), lines
PY
python3 - "$tmp/union/metrics.json" "$tmp/union_sim/metrics.json" <<'PY'
import json, sys
live, sim = (json.load(open(p))["iterations"] for p in sys.argv[1:])
numel = {"features.3.weight": 9216, "features.7.weight": 18432, "features.10.weight": 36864}
for k, it in enumerate(live, 1):
    floats = 1898 + sum(it["payload_density"][n] * numel[n] for n in numel)
    assert it["bytes"]["inter"] == 4 * floats + (180 if k <= 2 else 0), (k, it["bytes"], it["payload_density"])
    assert sim[k - 1]["bytes"]["inter"] == it["bytes"]["inter"], (k, sim[k - 1]["bytes"], it["bytes"])
assert live[1]["payload_density"] != live[1]["density"], live[1]
PY

# 1c. The recorded config is accepted back by --config and reruns the same run (same seed,
# same ranks): identical config and per-iteration loss. On another world size it is refused.
"${mpi[@]}" "$prunex" train --config "$tmp/run/metrics.json" --out "$tmp/again" >"$tmp/again.txt"
python3 - "$tmp/run/metrics.json" "$tmp/again/metrics.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ca, cb = dict(a["config"]), dict(b["config"])
assert ca.pop("out") != cb.pop("out")
assert ca == cb, {k: (ca.get(k), cb.get(k)) for k in set(ca) | set(cb) if ca.get(k) != cb.get(k)}
assert ca["executor"] == "mpi" and ca["world-size"] == 4 and ca["gpus-per-node"] == 2, ca
assert [i["loss"] for i in a["iterations"]] == [i["loss"] for i in b["iterations"]]
PY
set +e
mpirun -q --oversubscribe -np 2 "$prunex" train --config "$tmp/run/metrics.json" \
  --out "$tmp/np2" >"$tmp/np2.out" 2>"$tmp/np2.err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "--config on another world size: exit $rc, expected 2"
grep -q "recorded on world-size 4" "$tmp/np2.err" || fail "no world-size message: $(cat "$tmp/np2.err")"
[ ! -e "$tmp/np2" ] || fail "--config on another world size wrote $tmp/np2"

# 2. Bad input: exit 2, one line on stderr, no output folder. train --check (no ranks, no
# LibTorch) refuses the same with the same line, except what only the launched ranks see.
launch_only="|world not a multiple of P|--inject-failure of no rank|a model beyond the memory|\
--backend nccl without what it needs|--config with backend nccl|"
check_bad() {
  local what=$1; shift
  expect_refused "" "$tmp/bad" "${mpi[@]}" "$prunex" "$@" --out "$tmp/bad"
  local line
  line=$(cat "$work/refused.err")
  if [[ $launch_only == *"|$what|"* ]]; then
    "$prunex" "$@" --check --out "$tmp/bad" >/dev/null 2>&1 || fail "--check refused: $what"
    [ ! -e "$tmp/bad" ] || fail "--check left $tmp/bad ($what)"
  else
    expect_refused "$line" "$tmp/bad" "$prunex" "$@" --check --out "$tmp/bad"
  fi
  echo "$line" >"$work/refused.err"  # the launched run's line, for the checks below
}
check_bad "keep out of range" "${common[@]}" --keep 1.5
check_bad "unknown strategy" "${common[@]}" --strategy gossip
check_bad "world not a multiple of P" "${common[@]}" --gpus-per-node 3
check_bad "int out of range" "${common[@]}" --batch 9223372036854775807
check_bad "stray word" "${common[@]}" ddp
echo '{"iterations": 2, "no_such_key": 1}' >"$tmp/cfg.json"
check_bad "unknown config key" "${common[@]}" --config "$tmp/cfg.json"
check_bad "missing data file" "${common[@]}" --dataset cifar10 --data-dir "$tmp/nowhere"
check_bad "a folder where a config file belongs" "${common[@]}" --config "$tmp"
# A simulate record given to train: named as another command's record, not as a typo.
"$prunex" simulate --topology puhti --nodes 2 --iterations 1 --model small_cnn --input 28 \
  --input-channels 1 --out "$tmp/simrec" > /dev/null 2>&1 || fail "simulate for the record"
check_bad "another command's record" "${common[@]}" --config "$tmp/simrec/metrics.json"
grep -q "the record of another command" "$work/refused.err" ||
  fail "a simulate record: $(cat "$work/refused.err")"
echo '{"model": null}' >"$tmp/null.json"
check_bad "a null setting" "${common[@]}" --config "$tmp/null.json"
grep -q "key 'model' is null" "$work/refused.err" || fail "null model: $(cat "$work/refused.err")"
# Fashion-MNIST files whose test images (32x32) disagree with the training images and the model
# (28x28): named, before any training. (Four images a file: the shapes, not 60,000 reads.)
mkdir -p "$tmp/fm32"
python3 - "$tmp/fm32" <<'PY'
import gzip, struct, sys
d = sys.argv[1]
gzip.open(d + "/train-images-idx3-ubyte.gz", "wb").write(struct.pack(">IIII", 2051, 4, 28, 28) + bytes(4 * 28 * 28))
gzip.open(d + "/train-labels-idx1-ubyte.gz", "wb").write(struct.pack(">II", 2049, 4) + bytes([0, 1, 2, 3]))
gzip.open(d + "/t10k-images-idx3-ubyte.gz", "wb").write(struct.pack(">IIII", 2051, 4, 32, 32) + bytes(4 * 32 * 32))
gzip.open(d + "/t10k-labels-idx1-ubyte.gz", "wb").write(struct.pack(">II", 2049, 4) + bytes([0, 1, 2, 3]))
PY
check_bad "test images of another size" "${common[@]}" --dataset fashion-mnist --data-dir "$tmp/fm32"
grep -qF "fashion-mnist test images in $tmp/fm32 are 1x32x32 (channels x height x width); fashion-mnist's are 1x28x28" \
  "$work/refused.err" || fail "32x32 test images: $(cat "$work/refused.err")"
check_bad "--inject-failure of no phase" "${common[@]}" --inject-failure 1:1:lunch
check_bad "--inject-failure of no rank" "${common[@]}" --inject-failure 9:1:pack
check_bad "a model beyond the memory" "${common[@]}" --classes 1000000000
check_bad "negative --checkpoint-every" "${common[@]}" --checkpoint-every -1
check_bad "absurd thread count" "${common[@]}" --threads 100000
check_bad "endless run" "${common[@]}" --iterations 1000000000
check_bad "unknown backend" "${common[@]}" --backend gloo
# --backend nccl: here (no GPU, a CPU-only LibTorch) one line naming what is missing.
check_bad "--backend nccl without what it needs" "${common[@]}" --backend nccl
grep -qE "no CUDA device|without CUDA|LibTorch has no CUDA" "$work/refused.err" ||
  fail "--backend nccl: $(cat "$work/refused.err")"
# The same from a config file: "backend" reaches the option (it is not an old record's
# executor name).
echo '{"backend": "nccl"}' >"$tmp/nccl.json"
check_bad "--config with backend nccl" "${common[@]}" --config "$tmp/nccl.json"
grep -qE "no CUDA device|without CUDA|LibTorch has no CUDA" "$work/refused.err" ||
  fail "--config backend nccl: $(cat "$work/refused.err")"

# 2b. train --check passes a good run without starting it, reporting what it checked: the
# model's parameters as torchvision counts them, the data set's sizes (the synthetic test
# set is a quarter of the training set, at least 64), and --out left uncreated.
"$prunex" train --check --model resnet50 --dataset synthetic --synthetic-samples 256 \
  --out "$tmp/chk" >"$tmp/chk.txt" || fail "--check of a good run: exit $?"
[ ! -e "$tmp/chk" ] || fail "--check left its --out behind"
want=$(/usr/bin/python3 -c "import torchvision; print(sum(p.numel() for p in torchvision.models.resnet50(num_classes=10).parameters()))")
grep -qF "resnet50: $want parameters" "$tmp/chk.txt" || fail "--check: not $want parameters: $(cat "$tmp/chk.txt")"
grep -qF "256 training and 64 test images" "$tmp/chk.txt" || fail "--check data: $(cat "$tmp/chk.txt")"
if [ -d /usr/share/datasets/fashion-mnist ]; then  # the published sizes (Xiao et al. 2017)
  "$prunex" train --check --dataset fashion-mnist --out "$tmp/chk" >"$tmp/chk.txt" ||
    fail "--check of Fashion-MNIST refused"
  grep -qF "60000 training and 10000 test images" "$tmp/chk.txt" || fail "--check fashion-mnist: $(cat "$tmp/chk.txt")"
fi

# 3. A diverging run stops (never hangs) naming the layer and iteration.
set +e
timeout 300 "${mpi[@]}" "$prunex" "${common[@]}" --lr 1e30 --strategy hsadmm --out "$tmp/nan" \
  >"$tmp/nan.out" 2>"$tmp/nan.err"
rc=$?
set -e
[ $rc -ne 124 ] || fail "diverging run hung"
[ $rc -ne 0 ] || fail "diverging run exited 0"
grep -q "non-finite value in z of layer .* at iteration" "$tmp/nan.err" || { cat "$tmp/nan.err"; fail "no NaN message"; }
# What it measured before diverging may be there, marked unfinished; never a finished record.
if [ -e "$tmp/nan/metrics.json" ]; then
  python3 -c "import json, sys; sys.exit(json.load(open('$tmp/nan/metrics.json'))['summary']['completed'] is not False)" ||
    fail "diverging run left a metrics.json not marked unfinished"
fi

# 3b. DDP and Top-K stop the same way, naming the layer and iteration of the averaged
# (gathered) gradient that went non-finite.
for s in ddp topk; do
  set +e
  timeout 300 "${mpi[@]}" "$prunex" "${common[@]}" --lr 1e30 --strategy $s --out "$tmp/nan_$s" \
    >"$tmp/nan_$s.out" 2>"$tmp/nan_$s.err"
  rc=$?
  set -e
  [ $rc -ne 124 ] || fail "diverging $s run hung"
  [ $rc -ne 0 ] || fail "diverging $s run exited 0"
  grep -q "non-finite value in the [a-z]* gradient of layer .* at iteration" "$tmp/nan_$s.err" ||
    { cat "$tmp/nan_$s.err"; fail "no NaN message from $s"; }
done

# 3c. A rank that dies (--inject-failure: exits abruptly, no MPI finalize) ends the whole job
# within 30 s, in compute and inside collectives (H-SADMM's inter-node all-reduce: rank 1 is
# a follower, it dies where the phase begins), with a message naming the rank.
for spec in hsadmm:1:1:local_compute hsadmm:1:2:intra_allreduce hsadmm:1:2:inter_allreduce \
            ddp:2:1:allreduce; do
  s=${spec%%:*} what=${spec#*:}
  start=$(date +%s)
  set +e
  timeout 60 "${mpi[@]}" "$prunex" "${common[@]}" --iterations 3 --strategy "$s" \
    --inject-failure "$what" --out "$tmp/inject" >"$tmp/inject.out" 2>"$tmp/inject.err"
  rc=$?
  set -e
  took=$(( $(date +%s) - start ))
  [ $rc -ne 124 ] || fail "--inject-failure $spec: the job hung"
  [ $rc -ne 0 ] || fail "--inject-failure $spec: exit 0"
  [ $took -le 30 ] || fail "--inject-failure $spec: the job took $took s to end"
  grep -q "rank ${what%%:*}: injected failure" "$tmp/inject.err" ||
    fail "--inject-failure $spec: no message naming the rank: $(cat "$tmp/inject.err")"
done

# 4. metrics.json after every outer iteration: read while the run goes on, it is whole and
# marked unfinished; the final one is marked completed. --out in use by another run: exit 2.
"${mpi[@]}" "$prunex" "${common[@]}" --iterations 4 --synthetic-samples 1536 --strategy ddp \
  --out "$tmp/live" >"$tmp/live.txt" &
runner=$!
for _ in $(seq 1 3000); do
  [ -e "$tmp/live/metrics.json" ] && { cp "$tmp/live/metrics.json" "$tmp/partial.json"; break; }
  sleep 0.02
done
set +e
"${mpi[@]}" "$prunex" "${common[@]}" --strategy ddp --out "$tmp/live" >"$tmp/busy.out" 2>"$tmp/busy.err"
rc=$?
set -e
wait "$runner" || fail "the 4-iteration run failed"
[ -e "$tmp/partial.json" ] || fail "no metrics.json while the run went on"
[ $rc -eq 2 ] && grep -q "another run is writing there" "$tmp/busy.err" ||
  fail "a second run on a busy --out: exit $rc, $(cat "$tmp/busy.err")"
python3 - "$tmp/partial.json" "$tmp/live/metrics.json" <<'PY'
import json, sys
partial, final = (json.load(open(p)) for p in sys.argv[1:])
assert partial["summary"]["completed"] is False, partial["summary"]
assert 1 <= len(partial["iterations"]) < 4, len(partial["iterations"])
assert final["summary"]["completed"] is True and len(final["iterations"]) == 4
assert final["iterations"][0]["loss"] == partial["iterations"][0]["loss"]
PY
echo "train CLI: ok"
