#!/usr/bin/env bash
# Our ddp against PyTorch's own DistributedDataParallel (scripts/studies/pytorch_ddp.py, gloo), and
# with --strategies ddp,fp16,powersgd our fp16 against DDP with PyTorch's fp16_compress_hook and
# our powersgd against its powerSGD_hook (rank 1, compressed from step 10 of each rank), on the
# same work: Fashion-MNIST, small_cnn, 4 ranks, batch 32 per rank, SGD with the cosine
# schedule, one local epoch per iteration. Twice: on shared memory (mpirun on this host, 4
# ranks) and on an emulated slow cluster (prunex emulate, puhti's links divided by
# --slowdown; needs root, else skipped with one line). Prints seconds per epoch (training
# only, evaluation apart), final accuracy and the ratio ours / PyTorch's.
#
#   scripts/studies/ddp_side_by_side.sh [--strategies ddp] [--nodes 4] [--slowdown 5000]
#       [--train-samples 8000] [--test-samples 2000] [--epochs 2] [--out out/ddp_side_by_side]
#
# Writes OUT/{shm,emulated}/STRATEGY/{prunex,pytorch}/ (metrics.json or pytorch.json,
# console.log) and OUT/table.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
strategies=ddp nodes=4 slowdown=5000 train=8000 test=2000 epochs=2 out=out/ddp_side_by_side
while [[ $# -gt 0 ]]; do
  case $1 in
    --strategies) strategies=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --slowdown) slowdown=$2; shift 2 ;;
    --train-samples) train=$2; shift 2 ;;
    --test-samples) test=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ddp_side_by_side.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
for v in "$nodes" "$train" "$test" "$epochs"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "ddp_side_by_side.sh: '$v' is not a count" >&2; exit 2; }
done
[[ $strategies =~ ^(ddp|fp16|powersgd)(,(ddp|fp16|powersgd))*$ ]] ||
  { echo "ddp_side_by_side.sh: --strategies takes ddp, fp16 and powersgd, got '$strategies'" >&2; exit 2; }
[[ $slowdown =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "ddp_side_by_side.sh: --slowdown '$slowdown' is not a number" >&2; exit 2; }
prunex=build/bin/prunex
[[ -x $prunex ]] || { echo "ddp_side_by_side.sh: build first (scripts/build.sh)" >&2; exit 2; }
py=/usr/bin/python3
"$py" -c "import torch" 2>/dev/null ||
  { echo "ddp_side_by_side.sh: $py has no torch (scripts/setup.sh installs python3-torch)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$out"
mkdir -p "$out"

run() {  # NAME DIR COMMAND...: runs it, its output to DIR/console.log
  local name=$1 dir=$2; shift 2
  mkdir -p "$dir"
  echo "== $name"
  "$@" >"$dir/console.log" 2>&1 || { echo "ddp_side_by_side.sh: $name failed:" >&2; tail -5 "$dir/console.log" >&2; exit 1; }
}

root=1
[[ $(id -u) -eq 0 ]] || { root=0; echo "ddp_side_by_side.sh: not root, so no emulated cluster (network namespaces); shared memory only"; }
emu=(emulate --topology puhti --nodes "$nodes" --gpus-per-node 1 --slowdown "$slowdown")
IFS=, read -ra strategy_list <<< "$strategies"
for s in "${strategy_list[@]}"; do
  hook=none
  [[ $s == ddp ]] || hook=$s
  ours=(train --dataset fashion-mnist --model small_cnn --strategy "$s"
        --config "workloads/configs/fashion_mnist_small_cnn_$s.json"
        --train-samples "$train" --test-samples "$test" --iterations "$epochs")
  theirs=("$py" scripts/studies/pytorch_ddp.py --hook "$hook" --train-samples "$train"
          --test-samples "$test" --epochs "$epochs")
  [[ $s == powersgd ]] && theirs+=(--matrix-approximation-rank 1 --start-powersgd-iter 10)
  d=$out/shm/$s
  run "$s, shared memory, ours ($nodes ranks)" "$d/prunex" \
    mpirun -q --oversubscribe -np "$nodes" "$prunex" "${ours[@]}" --out "$d/prunex"
  run "$s, shared memory, PyTorch ($nodes ranks)" "$d/pytorch" \
    mpirun -q --oversubscribe -np "$nodes" "${theirs[@]}" --json "$d/pytorch/pytorch.json"
  [[ $root -eq 1 ]] || continue
  d=$out/emulated/$s
  run "$s, emulated $nodes x 1 / $slowdown, ours" "$d/prunex" \
    "$prunex" "${emu[@]}" -- "${ours[@]}" --out "$d/prunex"
  run "$s, emulated $nodes x 1 / $slowdown, PyTorch" "$d/pytorch" \
    "$prunex" "${emu[@]}" --program -- "${theirs[@]}" --json "$d/pytorch/pytorch.json"
done

"$py" - "$out" "$nodes" "$slowdown" "$strategies" <<'PY'
import json, os, statistics, sys
out, nodes, slowdown, strategies = sys.argv[1:]
rows = ["| setting | framework | s per epoch (each) | final accuracy | ours / PyTorch |",
        "|---|---|---|---|---|"]
places = (("shm", "shared memory, %s ranks" % nodes),
          ("emulated", "emulated %s x 1, puhti / %s" % (nodes, slowdown)))
for (setting, where), s in ((p, s) for p in places for s in strategies.split(",")):
    label = "%s, %s" % (s, where)
    ours_p = os.path.join(out, setting, s, "prunex", "metrics.json")
    theirs_p = os.path.join(out, setting, s, "pytorch", "pytorch.json")
    if not (os.path.exists(ours_p) and os.path.exists(theirs_p)):
        continue
    ours = json.load(open(ours_p))["iterations"]
    theirs = json.load(open(theirs_p))
    o = [i["wall_seconds"] for i in ours]
    t = [e["train_seconds"] for e in theirs["epochs"]]
    ratio = statistics.median(o) / statistics.median(t)
    rows.append("| %s | prunex %s | %s | %.2f%% | %.2f |" % (
        label, s, ", ".join("%.2f" % x for x in o), 100 * ours[-1]["accuracy"], ratio))
    hook = {"fp16": ", fp16_compress_hook", "powersgd": ", powerSGD_hook"}.get(theirs["hook"], "")
    rows.append("| %s | %s DDP (gloo%s) | %s | %.2f%% | |" % (
        label, theirs["framework"], hook, ", ".join("%.2f" % x for x in t),
        100 * theirs["epochs"][-1]["accuracy"]))
table = "\n".join(rows) + "\n"
open(os.path.join(out, "table.md"), "w").write(table)
print(table, end="")
PY
