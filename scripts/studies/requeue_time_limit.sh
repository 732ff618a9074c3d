#!/usr/bin/env bash
# A training longer than its job's time limit, on the local SLURM cluster
# (scripts/slurm/local_cluster.sh: 2 emulated nodes): generic.sbatch submitted with
# --time=3 (minutes) and --signal=B:USR1@60, so SLURM warns every run of the job 60 s before
# its limit (up to 60 s earlier: SLURM's resolution); each run checkpoints at the end of its
# iteration, exits 75 and requeues the job, until the training is done. Then the record is
# compared with the same training uninterrupted (mpirun, 2 nodes of 2 ranks).
#
#   scripts/studies/requeue_time_limit.sh OUT [ITERATIONS]     (needs root and slurm-wlm)
#
# Writes OUT/REPORT.md: the job's runs (start, stop, last iteration), its state, and whether
# the per-iteration records equal the uninterrupted run's.
set -euo pipefail
source "$(dirname "$0")/study_setup.bash"
study_setup requeue_time_limit.sh "${1:?usage: requeue_time_limit.sh OUT [ITERATIONS]}"
iterations=${2:-60}
train_args="--dataset synthetic --synthetic-samples 512 --model small_cnn --batch 32 --lr 0.05 --local-steps 40"

# The uninterrupted reference, mpirun on this host, grouped as SLURM's block layout groups.
# shellcheck disable=SC2086
mpirun -q --oversubscribe -np 4 "$prunex" train $train_args --gpus-per-node 2 --strategy hsadmm \
  --iterations "$iterations" --out "$out/reference" >"$out/reference.log" 2>&1

cat >"$out/session.bash" <<SESSION
set -euo pipefail
export SBATCH_ACCOUNT=project_local SBATCH_PARTITION=local BACKEND=mpi MODEL=small_cnn
export DATASET=synthetic ITERATIONS=$iterations SPARSITY="" STRATEGY=hsadmm OUT=$out/job
export TRAIN_ARGS="$train_args"
cd "$repo"
job=\$(sbatch --parsable --nodes=2 --ntasks-per-node=2 --cpus-per-task=1 --time=3 \
  --signal=B:USR1@60 --output="$out/job.log" scripts/slurm/generic.sbatch)
echo "job \$job submitted at \$(date +%T)"
while [[ -n \$(squeue -h -j "\$job" 2>/dev/null) ]]; do sleep 2; done
scontrol show job "\$job" | grep -o 'JobState=[A-Z_]*\|Restarts=[0-9]*\|ExitCode=[0-9:]*' | tr '\n' ' '
echo
SESSION
start=$(date +%s)
"$repo/scripts/slurm/local_cluster.sh" --nodes 2 --cpus-per-node 40 --gpus-per-node 4 \
  --slowdown 10000 -- bash "$out/session.bash" >"$out/session.log" 2>&1
took=$(( $(date +%s) - start ))

python3 - "$out" "$took" "$iterations" <<'PY'
import json, re, sys
out, took, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ref = json.load(open(f"{out}/reference/metrics.json"))["iterations"]
got = json.load(open(f"{out}/job/metrics.json"))
a = [(i["iteration"], i["loss"], i.get("accuracy")) for i in ref]
b = [(i["iteration"], i["loss"], i.get("accuracy")) for i in got["iterations"]]
log = open(f"{out}/job.log").read()
session = open(f"{out}/session.log").read()
stops = re.findall(r"SIGUSR1: stopped after iteration (\d+) of (\d+)", log)
resumes = re.findall(r"resumed from \S+ at iteration (\d+)", log)
state = re.search(r"JobState=\S+ Restarts=\d+ ExitCode=\S+", session)
same = a == b and len(b) == iterations and got["summary"]["completed"] is True
lines = [
    "# A training longer than its time limit: SIGUSR1, checkpoint, requeue, resume",
    "",
    f"- Command: `scripts/studies/requeue_time_limit.sh OUT {iterations}` (the local SLURM "
    "cluster of 2 emulated nodes, generic.sbatch with `--time=3 --signal=B:USR1@60`)",
    f"- Wall time: {took} s for the cluster's start, the job's runs and the teardown",
    f"- Job: {state.group(0) if state else 'state not found'}",
    f"- Runs stopped by SIGUSR1 after iterations: {', '.join(s for s, _ in stops) or 'none'}",
    f"- Runs resumed at iterations: {', '.join(resumes) or 'none'}",
    f"- Per-iteration losses and accuracies equal the uninterrupted run's: {same} "
    f"({len(b)} of {iterations} iterations recorded)",
]
open(f"{out}/REPORT.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(0 if same else 1)
PY
