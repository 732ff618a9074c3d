#!/usr/bin/env bash
# prunex train --checkpoint-every / --resume on 2 nodes (of 2 ranks, or of 1), synthetic data:
# 1. under mpirun, a run resumed from iteration 2 equals an uninterrupted 4-iteration run bit
#    for bit: per-iteration loss and accuracy in metrics.json, and the iteration-4 checkpoint
#    files themselves (theta, z, z_i, u, v, momentum, masks, generators), for hsadmm and
#    powersgd (every strategy, the same trainer on in-process ranks:
#    tests/conformance/checkpoint_resume_test.cc);
# 2. a rank killed inside the inter-node all-reduce ends the job within 30 s, and the last
#    complete checkpoint still resumes to the same losses;
# 3. resume refuses (exit 2, one line, nothing written) another model or strategy, a truncated,
#    corrupt or swapped rank file, and a checkpoint with nothing left
#    to run, a missing rank file; train --check refuses those that need no ranks with the same
#    line, without starting any; on another shape (1 node of 2 ranks) it resumes and says so;
# 4. SIGTERM to mpirun during a run leaves only whole files (no temporaries, every JSON parses).
set -euo pipefail
prunex=$(realpath "$1")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun -q --oversubscribe -np 4)
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
tmp=$work
common=(train --gpus-per-node 2 --dataset synthetic --synthetic-samples 256 --model small_cnn
        --batch 32 --lr 0.05 --local-steps 2 --t-freeze 3)

same_run() {  # metrics A, metrics B: identical loss and accuracy in every iteration
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ia, ib = a["iterations"], b["iterations"]
assert len(ia) == len(ib) == 4, (len(ia), len(ib))
for x, y in zip(ia, ib):
    assert x["iteration"] == y["iteration"]
    assert x["loss"] == y["loss"], (x["iteration"], x["loss"], y["loss"])
    assert x.get("accuracy") == y.get("accuracy"), (x["iteration"], x.get("accuracy"), y.get("accuracy"))
    assert x.get("test_loss") == y.get("test_loss"), x["iteration"]
assert b["summary"]["completed"] is True
PY
}

# 1. Uninterrupted against stopped at 2 and resumed, through mpirun and metrics.json: hsadmm on
# 2 nodes of 2 (its node groups), powersgd flat on 2 nodes of 1 (every rank's state crosses
# the inter-node link either way). powersgd compresses from its second step, so its Q (warm
# start), error and draws cross.
for s in hsadmm powersgd; do
  case $s in
    hsadmm*) run=(mpirun -q --oversubscribe -np 4 "$prunex" "${common[@]}") ranks=4 ;;
    *) run=(mpirun -q --oversubscribe -np 2 "$prunex" "${common[@]}" --gpus-per-node 1) ranks=2 ;;
  esac
  [ $s = powersgd ] && run+=(--start-powersgd-iter 1)
  "${run[@]}" --strategy $s --iterations 4 --checkpoint-every 1 \
    --out "$tmp/$s/full" >"$tmp/$s.full.txt" 2>&1 ||
    fail "$s full: $(tail -3 "$tmp/$s.full.txt")"
  "${run[@]}" --strategy $s --iterations 2 --checkpoint-every 1 \
    --out "$tmp/$s/first" >"$tmp/$s.first.txt" 2>&1 ||
    fail "$s first: $(tail -3 "$tmp/$s.first.txt")"
  "${run[@]}" --strategy $s --iterations 4 --checkpoint-every 1 \
    --resume "$tmp/$s/first/checkpoint" --out "$tmp/$s/resumed" >"$tmp/$s.resumed.txt" 2>&1 ||
    fail "$s resumed: $(tail -3 "$tmp/$s.resumed.txt")"
  grep -q "resumed from .*iter-00000002 at iteration 2" "$tmp/$s.resumed.txt" ||
    fail "$s: no resume line: $(cat "$tmp/$s.resumed.txt")"
  same_run "$tmp/$s/full/metrics.json" "$tmp/$s/resumed/metrics.json" || fail "$s: resumed run differs"
  for ((r = 0; r < ranks; r++)); do
    f=checkpoint/iter-00000004/rank-0000$r.ckpt
    cmp -s "$tmp/$s/full/$f" "$tmp/$s/resumed/$f" || fail "$s: rank $r's state after iteration 4 differs"
  done
  # Only the newest checkpoint is kept.
  [ "$(ls "$tmp/$s/full/checkpoint")" = "$(printf 'LATEST\niter-00000004')" ] ||
    fail "$s: checkpoint folder holds $(ls "$tmp/$s/full/checkpoint")"
done

# 2. Rank 1 dies in iteration 3's inter-node all-reduce: the job ends within 30 s naming it;
# the checkpoint of iteration 2 resumes and the run ends as the uninterrupted one.
start=$(date +%s)
set +e
timeout 60 "${mpi[@]}" "$prunex" "${common[@]}" --strategy hsadmm --iterations 4 \
  --checkpoint-every 1 --inject-failure 1:3:inter_allreduce --out "$tmp/killed" \
  >"$tmp/killed.out" 2>"$tmp/killed.err"
rc=$?
set -e
took=$(( $(date +%s) - start ))
[ $rc -ne 124 ] && [ $rc -ne 0 ] || fail "injected failure: exit $rc"
[ $took -le 30 ] || fail "injected failure: the job took $took s to end"
grep -q "rank 1: injected failure" "$tmp/killed.err" || fail "no message naming rank 1: $(cat "$tmp/killed.err")"
[ "$(cat "$tmp/killed/checkpoint/LATEST")" = "iter-00000002" ] || fail "LATEST: $(cat "$tmp/killed/checkpoint/LATEST")"
"${mpi[@]}" "$prunex" "${common[@]}" --strategy hsadmm --iterations 4 \
  --resume "$tmp/killed/checkpoint" --out "$tmp/killed_resumed" >/dev/null
same_run "$tmp/hsadmm/full/metrics.json" "$tmp/killed_resumed/metrics.json" ||
  fail "resumed after the failure differs from the uninterrupted run"

# 3. Refusals: exit 2, one line naming the problem, no --out written. train --check (no ranks,
# no LibTorch) refuses those that need no ranks with the launched run's own line; the world
# size, the grouping and the rank files' checksums only a launched run checks ("launch").
check_bad() {
  local expect=$2 np=$3 check=$4; shift 4  # $1: what the case is (the failure names the command)
  expect_refused "$expect" "$tmp/bad" mpirun -q --oversubscribe -np "$np" "$prunex" "$@" \
    --out "$tmp/bad"
  local line
  line=$(cat "$work/refused.err")
  if [[ $check == launch ]]; then
    "$prunex" "$@" --check --out "$tmp/bad" >/dev/null 2>&1 || fail "--check refused: $1"
    [ ! -e "$tmp/bad" ] || fail "--check left $tmp/bad"
  else
    expect_refused "$line" "$tmp/bad" "$prunex" "$@" --check --out "$tmp/bad"
  fi
}
ck="$tmp/hsadmm/first/checkpoint"
check_bad "other model" "model" 4 check "${common[@]}" --model resnet20 --iterations 4 --resume "$ck"
check_bad "other strategy" "strategy" 4 check "${common[@]}" --strategy ddp --iterations 4 --resume "$ck"
# Another shape: 1 node of 2 ranks resumes the 2 x 2 checkpoint, says so and ends its run
# (the per-rank semantics: tests/conformance/checkpoint_resume_test.cc).
mpirun -q --oversubscribe -np 2 "$prunex" "${common[@]}" --iterations 4 --resume "$ck" \
  --out "$tmp/elastic" >"$tmp/elastic.txt" 2>&1 || fail "resume on 1 x 2: $(tail -3 "$tmp/elastic.txt")"
grep -qF "train: on another shape: 2 ranks (1 nodes x 2), the checkpoint's run 4 (2 x 2)" \
  "$tmp/elastic.txt" || fail "resume on 1 x 2 said nothing of it: $(cat "$tmp/elastic.txt")"
python3 - "$tmp/elastic/metrics.json" <<'PY' || fail "resume on 1 x 2: the record"
import json, math, sys
m = json.load(open(sys.argv[1]))
assert m["summary"]["completed"] is True and len(m["iterations"]) == 4, m["summary"]
assert m["summary"]["resumed_on_another_shape"] == {"iteration": 2, "world-size": 4, "gpus-per-node": 2}
assert math.isfinite(m["iterations"][-1]["loss"])
PY
check_bad "nothing left" "leaves nothing to run" 4 check "${common[@]}" --iterations 2 --resume "$ck"
check_bad "no checkpoint" "no complete checkpoint" 4 check "${common[@]}" --iterations 4 --resume "$tmp"
# A checkpoint folder that cannot be made is found before the first iteration, not at the
# first checkpoint.
touch "$tmp/afile"
check_bad "checkpoint folder under a file" "--checkpoint-dir $tmp/afile/ck" 2 check "${common[@]}" \
  --gpus-per-node 1 --iterations 4 --checkpoint-every 1 --checkpoint-dir "$tmp/afile/ck"
cp -r "$ck" "$tmp/cut"
truncate -s -100 "$tmp/cut/iter-00000002/rank-00003.ckpt"
check_bad "truncated rank file" "rank-00003.ckpt" 4 check "${common[@]}" --iterations 4 --resume "$tmp/cut"
cp -r "$ck" "$tmp/gone"
rm "$tmp/gone/iter-00000002/rank-00002.ckpt"
check_bad "missing rank file" "rank-00002.ckpt" 4 check "${common[@]}" --iterations 4 --resume "$tmp/gone"
cp -r "$ck" "$tmp/flip"
python3 - "$tmp/flip/iter-00000002/rank-00001.ckpt" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x40
open(p, "wb").write(b)
PY
check_bad "corrupt rank file" "rank-00001.ckpt: checksum" 4 launch "${common[@]}" --iterations 4 \
  --resume "$tmp/flip"
cp -r "$ck" "$tmp/swap"  # a whole, valid file of another rank in its place
cp "$tmp/swap/iter-00000002/rank-00000.ckpt" "$tmp/swap/iter-00000002/rank-00002.ckpt"
check_bad "another rank's file" "rank-00002.ckpt: checksum differs from the manifest" 4 launch \
  "${common[@]}" --iterations 4 --resume "$tmp/swap"
# A good resume passes --check, which says on what to launch it and leaves --out uncreated.
"$prunex" "${common[@]}" --iterations 4 --resume "$ck" --check --out "$tmp/chk" >"$tmp/chk.txt" ||
  fail "--check of a good resume refused"
grep -qF "iter-00000002 at iteration 2 of 4: launch it on 4 ranks, 2 per node" "$tmp/chk.txt" ||
  fail "--check: no resume line: $(cat "$tmp/chk.txt")"
[ ! -e "$tmp/chk" ] || fail "--check left its --out behind"

# 4. SIGTERM to mpirun while the run writes metrics and checkpoints every iteration.
"${mpi[@]}" "$prunex" "${common[@]}" --strategy hsadmm --iterations 40 --checkpoint-every 1 \
  --out "$tmp/term" >/dev/null 2>&1 &
runner=$!
for _ in $(seq 1 600); do
  [ -e "$tmp/term/checkpoint/LATEST" ] && break
  sleep 0.05
done
sleep 1.5
kill -TERM $runner
wait $runner || true
leftover=$(find "$tmp/term" -name '*.tmp.*')
[ -z "$leftover" ] || fail "SIGTERM left temporaries: $leftover"
python3 - "$tmp/term" <<'PY'
import glob, json, sys
d = sys.argv[1]
m = json.load(open(d + "/metrics.json"))
assert m["summary"]["completed"] is False
for f in glob.glob(d + "/checkpoint/iter-*/manifest.json"):
    json.load(open(f))
PY
echo "checkpoint CLI: ok"
