#!/usr/bin/env bash
# A resume on another shape, on Fashion-MNIST: hsadmm with small_cnn
# (workloads/configs/fashion_mnist_small_cnn_hsadmm.json, 14 outer iterations of one local
# epoch, its learning rate held constant) on 2 nodes x 2 ranks with a checkpoint after every iteration; its checkpoint after
# iteration K resumed to the end on 1 node x 2 and on 3 nodes x 2. The final test accuracy of
# each resumed run against the uninterrupted one (the target: within one point).
#
#   scripts/studies/elastic_fashion_mnist.sh OUT [K] [STRATEGY]   (default K = 7, hsadmm;
#                                             PRUNEX= another build's bin/prunex)
#
# Writes OUT/REPORT.md (command, machine, the accuracy of every iteration of the three runs)
# and each run's folder (metrics.json, console.txt).
set -euo pipefail
source "$(dirname "$0")/study_setup.bash"
study_setup elastic_fashion_mnist.sh "${1:?usage: elastic_fashion_mnist.sh OUT [K] [STRATEGY]}"
k=${2:-7}
strategy=${3:-hsadmm}
config=$repo/workloads/configs/fashion_mnist_small_cnn_$strategy.json
[[ -f $config ]] || { echo "elastic_fashion_mnist.sh: no $config" >&2; exit 2; }
# A constant learning rate: a cosine schedule spans --iterations, and the run stopped at K
# (whose checkpoint the others resume) has --iterations K.
train=(train --config "$config" --dataset fashion-mnist --model small_cnn --gpus-per-node 2
       --lr-schedule constant --checkpoint-every 1)

run() {  # run NAME RANKS ARGS...: one launch, its console kept, its wall time in NAME.seconds
  local name=$1 ranks=$2; shift 2
  local start=$SECONDS
  mpirun -q --oversubscribe -np "$ranks" "$prunex" "${train[@]}" "$@" --out "$out/$name" \
    >"$out/$name.console.txt" 2>&1 ||
    { echo "elastic_fashion_mnist.sh: $name failed: $(tail -3 "$out/$name.console.txt")" >&2; exit 1; }
  echo $((SECONDS - start)) >"$out/$name.seconds"
}

run uninterrupted 4 --checkpoint-dir "$out/uninterrupted_checkpoints"
# The checkpoint of iteration K: a run stopped there, on the same shape (bit-identical to the
# uninterrupted run's first K iterations, docs/training.md).
run first_k 4 --iterations "$k"
for shape in 1x2 3x2; do
  run "resumed_on_$shape" $((${shape%x*} * 2)) --resume "$out/first_k/checkpoint"
done

python3 - "$out" "$k" "$strategy" "$(nproc)" "$(uname -srm)" <<'PY'
import json, sys
out, k, strategy, cores, host = sys.argv[1:]
k = int(k)
runs = {n: json.load(open(f"{out}/{n}/metrics.json"))
        for n in ("uninterrupted", "resumed_on_1x2", "resumed_on_3x2")}
secs = {n: int(open(f"{out}/{n}.seconds").read()) for n in runs}
acc = {n: [i.get("accuracy") for i in m["iterations"]] for n, m in runs.items()}
final = {n: a[-1] for n, a in acc.items()}
rows = "\n".join(
    f"| {i + 1} | " + " | ".join(f"{100 * acc[n][i]:.2f}%" if acc[n][i] is not None else "-"
                                   for n in runs) + " |"
    for i in range(len(acc["uninterrupted"])))
gap = {n: 100 * (final[n] - final["uninterrupted"]) for n in runs}
verdict = "within one point" if all(abs(g) <= 1 for g in gap.values()) else "NOT within one point"
for n in ("resumed_on_1x2", "resumed_on_3x2"):
    s = runs[n]["summary"]["resumed_on_another_shape"]
    assert s["iteration"] == k and s["world-size"] == 4, s
report = f"""# {strategy} on Fashion-MNIST, resumed on another shape

- **Command:** `scripts/studies/elastic_fashion_mnist.sh {out} {k} {strategy}`
  (workloads/configs/fashion_mnist_small_cnn_{strategy}.json with a constant learning rate:
  small_cnn, 60,000 training and 10,000 test images, one local epoch an outer iteration)
- **Machine:** {cores} cores, {host}, no GPU; ranks oversubscribed
- **Runs:** 2 nodes x 2 ranks uninterrupted ({secs['uninterrupted']} s); the checkpoint of
  iteration {k} of 2 x 2 resumed on 1 node x 2 ({secs['resumed_on_1x2']} s for the resumed part)
  and on 3 nodes x 2 ({secs['resumed_on_3x2']} s)

Final test accuracy: uninterrupted {100 * final['uninterrupted']:.2f}%, resumed on 1 x 2
{100 * final['resumed_on_1x2']:.2f}% ({gap['resumed_on_1x2']:+.2f} points), on 3 x 2
{100 * final['resumed_on_3x2']:.2f}% ({gap['resumed_on_3x2']:+.2f} points): {verdict}.

Test accuracy after each outer iteration (iterations 1-{k} of the resumed runs are the
checkpoint's, as their records keep them):

| iteration | 2 x 2 uninterrupted | 1 x 2 from {k} | 3 x 2 from {k} |
|---|---:|---:|---:|
{rows}
"""
open(f"{out}/REPORT.md", "w").write(report)
print(report)
PY
