#!/usr/bin/env bash
# prunex sweep: --jobs 2 writes the same scaling.json as --jobs 1; the SLURM array template
# (scripts/slurm/sweep.sh, one task per point, then --merge) gives it too; --merge refuses
# doubled and foreign points, and points with times or names no sweep writes, with exit 2. A point whose process dies (--inject-failure) or
# whose array task left nothing: the others are written, scaling.json lists it under
# "missing" with why, the sweep exits 1, and --fill simulates only it, to the same
# scaling.json as the serial sweep's.
set -u
prunex=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cd "$work"
opts=(--topology puhti --model small_cnn --gpus 8,16,64 --strategy hsadmm,ddp --iterations 2)

"$prunex" sweep "${opts[@]}" --jobs 1 --out "$work/s" > log 2>&1 || fail "jobs 1: $(cat log)"
mv "$work/s" "$work/serial"
"$prunex" sweep "${opts[@]}" --jobs 2 --out "$work/s" > log 2>&1 || fail "jobs 2: $(cat log)"
grep -q "2 jobs" log || fail "jobs 2 not reported: $(cat log)"
cmp "$work/s/scaling.json" "$work/serial/scaling.json" || fail "--jobs 2 gives another scaling.json"
[[ $("$prunex" sweep "${opts[@]}" --count-points) == 6 ]] || fail "--count-points is not 2 x 3"

# The SLURM template, with a stand-in for sbatch (no SLURM here): it runs each array task
# with its SLURM_ARRAY_TASK_ID and the --export variables, then the dependent merge job.
mkdir bin
cat > bin/sbatch <<'SH'
#!/usr/bin/env bash
set -eu
array="" exports="" output=/dev/null
while [[ $1 == --* ]]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --export=ALL,*) exports=${1#--export=ALL,} ;;
    --output=*) output=${1#--output=} ;;
  esac
  shift
done
script=$1; shift
if [[ -n $array ]]; then
  for ((i = ${array%-*}; i <= ${array#*-}; i++)); do
    env SLURM_ARRAY_TASK_ID=$i $exports bash "$script" "$@" > "${output//%a/$i}" 2>&1
  done
else
  env $exports bash "$script" "$@" > "$output" 2>&1
fi
echo $((RANDOM + 1))
SH
chmod +x bin/sbatch
PATH="$work/bin:$PATH" PRUNEX="$prunex" bash "$repo/scripts/slurm/sweep.sh" "$work/slurm" "${opts[@]}" \
  > log 2>&1 || fail "slurm/sweep.sh: $(cat log)"
ls "$work/slurm/points" | sort -n | tr '\n' ' ' | grep -qx "0 1 2 3 4 5 " || fail "points: $(ls "$work/slurm/points")"
# Same file but for the config's out.
python3 - "$work/slurm/scaling.json" "$work/serial/scaling.json" "$work" <<'PY' || fail "merged differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
oa, ob = a["config"].pop("out"), b["config"].pop("out")
assert oa == sys.argv[3] + "/slurm" and ob == sys.argv[3] + "/s", (oa, ob, sys.argv[3])
assert a == b, (a, b)
PY

expect_exit2() {  # expect_exit2 WORDS ARGS...: exit 2, the words on stderr, no output folder
  local words="$1"; shift
  expect_refused "$words" "$work/bad" "$prunex" "$@" --out "$work/bad"
}
expect_exit2 "must be in [0, 5]" sweep "${opts[@]}" --point 6
expect_exit2 "--jobs" sweep "${opts[@]}" --jobs 0
expect_exit2 "--strategy lists ddp twice" sweep --topology puhti --gpus 8 --strategy ddp,topk,ddp
# A what-if that fits some sizes only: refused before any point runs, naming the first that
# cannot take it (8 GPUs of puhti are 2 nodes: no node 5).
expect_exit2 "point 0 (ddp on 8 GPUs, 2 nodes): --degrade-nic node must be in [0, 1]" \
  sweep --topology puhti --model resnet50 --strategy ddp --gpus 32,8 --degrade-nic 5=0.5
# sweep.sh refuses an OUT that holds an earlier sweep's points before submitting anything
# (the merge would refuse them only after the whole array).
mkdir -p "$work/old/points/0" && touch "$work/old/points/0/scaling.json"
expect_refused "holds an earlier sweep's points" "" env PRUNEX="$prunex" \
  "$repo/scripts/slurm/sweep.sh" "$work/old" --topology puhti --gpus 8 --strategy ddp
# Equal to the serial sweep's scaling.json but for the config's out.
same_as_serial() {  # FILE
  python3 - "$1" "$work/serial/scaling.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a["config"].pop("out"), b["config"].pop("out")
assert a == b, (a, b)
PY
}
# A point's process dies (SIGABRT before it simulates): the five others are written, the
# sixth listed with why; speedups of hsadmm's other sizes against its smallest that ran.
rc=0
"$prunex" sweep "${opts[@]}" --jobs 2 --inject-failure 0 --out "$work/f" > log 2> err || rc=$?
[[ $rc -eq 1 ]] || fail "a failed point: exit $rc, expected 1: $(cat err)"
grep -q "1 of 6 points failed (point 0 (hsadmm on 8 GPUs): its process was killed by signal 6" err &&
  grep -q "prunex sweep --fill $work/f" err || fail "the failed point not named: $(cat err)"
python3 - "$work/f/scaling.json" <<'PY' || fail "scaling.json of a sweep with a failed point"
import json, sys
d = json.load(open(sys.argv[1]))
assert [p["gpus"] for p in d["hsadmm"]] == [16, 64] and len(d["ddp"]) == 3, d
m = d["missing"]
assert len(m) == 1 and m[0]["point"] == 0 and m[0]["strategy"] == "hsadmm" and m[0]["gpus"] == 8, m
assert "killed by signal 6" in m[0]["why"], m
h = d["hsadmm"]
assert h[0]["speedup"] == 1 and abs(h[1]["speedup"] - h[0]["time_per_epoch_s"] / h[1]["time_per_epoch_s"]) < 1e-12, h
PY
"$prunex" sweep --fill "$work/f" > log 2>&1 || fail "--fill: $(cat log)"
grep -q "1 of 6 points of $work/f/scaling.json to simulate" log || fail "--fill ran more: $(cat log)"
same_as_serial "$work/f/scaling.json" || fail "--fill's scaling.json differs from the serial sweep's"
# An array task that left nothing: the merge writes the others, names the point, exits 1;
# --fill completes it.
cp -r "$work/slurm/points" "$work/p2"
rm -r "$work/p2/3"
rc=0
"$prunex" sweep --merge "$work/p2" --out "$work/m" > log 2> err || rc=$?
[[ $rc -eq 1 ]] && grep -q "point 3 (ddp on 8 GPUs): no scaling.json of it in $work/p2" err ||
  fail "--merge with a missing point: exit $rc: $(cat err)"
"$prunex" sweep --fill "$work/m" > log 2>&1 || fail "--fill after --merge: $(cat log)"
same_as_serial "$work/m/scaling.json" || fail "--fill after --merge differs from the serial sweep"
expect_refused "--fill takes the sweep's settings from" "" "$prunex" sweep --fill "$work/m" \
  --topology puhti
expect_refused "--fill $work/nothing: no scaling.json in it" "$work/nothing" "$prunex" sweep \
  --fill "$work/nothing"
"$prunex" sweep --topology puhti --model small_cnn --gpus 8 --strategy ddp --iterations 3 \
  --point 0 --out "$work/p2/3" > log 2>&1 || fail "foreign point: $(cat log)"
expect_exit2 "from another sweep" sweep --merge "$work/p2"
# Points that say what a sweep cannot have: a time that is text, 0 or negative, another
# strategy or size at a point's index.
bad_point() {  # WORDS PYTHON-EDIT: point 1's file edited, then merged
  rm -rf "$work/p3" && cp -r "$work/slurm/points" "$work/p3"
  python3 - "$work/p3/1/scaling.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
  expect_exit2 "$1" sweep --merge "$work/p3"
}
bad_point "'time_per_epoch_s' must be a number > 0 (got \"fast\")" 'd["hsadmm"][0]["time_per_epoch_s"] = "fast"'
bad_point "'time_per_epoch_s' must be a number > 0 (got 0)" 'd["hsadmm"][0]["time_per_epoch_s"] = 0'
bad_point "'time_per_iteration_s' must be a number > 0 (got -1)" 'd["hsadmm"][0]["time_per_iteration_s"] = -1'
bad_point "'gpus' must be a whole number >= 1" 'd["hsadmm"][0]["gpus"] = 0'
bad_point "unknown strategy 'gossip'" 'd["gossip"] = d.pop("hsadmm")'
bad_point "point 1 is ddp on 16 GPUs (4 nodes); the sweep's point 1 is hsadmm on 16 GPUs" \
  'd["ddp"] = d.pop("hsadmm")'
bad_point "point 1 is hsadmm on 64 GPUs (16 nodes); the sweep's point 1 is hsadmm on 16 GPUs" \
  'd["hsadmm"][0]["gpus"], d["hsadmm"][0]["nodes"] = 64, 16'
expect_exit2 "no */scaling.json" sweep --merge "$work"/bin
expect_exit2 "not a folder" sweep --merge "$work/nothing"
expect_exit2 "no --topology" sweep --merge "$work/slurm/points" --topology h100
echo "sweep: ok"
