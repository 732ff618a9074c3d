#!/usr/bin/env bash
# prunex sweep: --jobs 2 writes the same scaling.json as --jobs 1; the SLURM array template
# (scripts/slurm/sweep.sh, one task per point, then --merge) gives it too; --merge refuses
# missing, doubled and foreign points with exit 2.
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
cp -r "$work/slurm/points" "$work/p2"
rm -r "$work/p2/3"
expect_exit2 "points missing (of 0..5): 3" sweep --merge "$work/p2"
"$prunex" sweep --topology puhti --model small_cnn --gpus 8 --strategy ddp --iterations 3 \
  --point 0 --out "$work/p2/3" > log 2>&1 || fail "foreign point: $(cat log)"
expect_exit2 "from another sweep" sweep --merge "$work/p2"
expect_exit2 "no */scaling.json" sweep --merge "$work"/bin
expect_exit2 "not a folder" sweep --merge "$work/nothing"
expect_exit2 "no --topology" sweep --merge "$work/slurm/points" --topology h100
echo "sweep: ok"
