#!/usr/bin/env bash
# The SLURM templates on a real SLURM cluster (scripts/slurm/local_cluster.sh: Debian's
# slurm-wlm on 2 emulated nodes, puhti's links / 10000):
# 1. sbatch --test-only accepts puhti, generic and calibration_loop.sbatch as written (account,
#    partition, --gres=gpu:v100:4, --mem=320G, 10 CPUs per task);
# 2. generic.sbatch (BACKEND=mpi, account and partition from SBATCH_ACCOUNT/SBATCH_PARTITION)
#    trains hsadmm and ddp on 2 nodes x 2 ranks started by srun through PMIx: the trainer
#    groups the ranks by host into 2 nodes of 2, metrics.json records the job id and node
#    list, and the losses equal the same training started by mpirun (2 nodes of 2 ranks);
# 3. scripts/slurm/sweep.sh's array and its afterok merge give the scaling.json of a serial
#    `prunex sweep`, paths aside;
# 4. scancel of a running training job leaves whole files only;
# 5. node1 killed mid-job (slurmd, steps and ranks): the job ends (NODE_FAIL) with no rank left
#    running and whole files; node1's slurmd restarted, the job resubmitted with --resume
#    ends with the uninterrupted run's losses and accuracies (mpirun, as in 2.);
# 6. calibration_loop.sbatch measures the calibration loop (benches, ddp/hsadmm/topk
#    calibration runs, held-out hsadmm-flat on 2 x 2 and ddp/topk on 2 x 1), and
#    scripts/studies/predict_cluster.sh, on the cluster's topology file (local_cluster.sh
#    --topology-out), predicts every held-out run: the simulator's bytes per tier equal the
#    live trainer's counts in every iteration (two implementations), and each iteration time
#    is within a factor of 3 (a loose bound for gross errors: this test runs beside others on
#    2 cores, so its calibration and held-out runs meet different loads; one line per op
#    (--fit line), as a segment between two sizes timed 3 times bends with one busy moment.
#    The recorded loop, on an idle host: results/slurm_loop/);
# 7. SIGUSR1, as SLURM sends it before a time limit (generic.sbatch's --signal): the job
#    checkpoints, exits 75, requeues itself and resumes; its record equals the uninterrupted
#    run's.
# Skips with one line without root, namespaces or slurm-wlm.
set -u
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if ! "$prunex" emulate --cleanup >"$work/out" 2>"$work/err"; then
  echo "SKIP: $(cat "$work/err")"
  exit 0
fi
for p in slurmctld slurmd munged sbatch; do
  command -v $p >/dev/null || { echo "SKIP: $p not found (scripts/setup.sh installs slurm-wlm)"; exit 0; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The references: the same trainings started by mpirun on this host, grouped as SLURM's
# block layout groups them (2 nodes of 2 ranks); the 6-iteration one is part 5's
# uninterrupted run.
train_args="--dataset synthetic --synthetic-samples 512 --model small_cnn --batch 32 --lr 0.05 --local-steps 5"
ref() {  # ref OUT TRAIN_OPTIONS...
  local out=$1; shift
  # shellcheck disable=SC2086
  mpirun -q --oversubscribe -np 4 "$prunex" train $train_args --gpus-per-node 2 "$@" \
    --out "$out" >"$out.log" 2>&1 || fail "mpirun reference $*: $(tail -3 "$out.log")"
}
for s in hsadmm ddp; do ref "$work/ref_$s" --strategy $s --iterations 2; done
ref "$work/ref_full" --strategy hsadmm --iterations 6 --checkpoint-every 1

"$prunex" sweep --topology puhti --model resnet20 --gpus 8,16 --strategy hsadmm,ddp \
  --iterations 1 --out "$work/sweep_serial" >/dev/null || fail "serial sweep"
echo "slurm: [$SECONDS s] the references (mpirun trainings, serial sweep) done"

TRAIN_ARGS=$train_args "$repo/scripts/slurm/local_cluster.sh" --nodes 2 --cpus-per-node 40 \
  --gpus-per-node 4 --slowdown 10000 --topology-out "$work/loop_topology.json" -- bash "$repo/tests/cli/slurm_session.bash" "$repo" "$work" "$prunex" \
  >"$work/session.log" 2>&1 || fail "the SLURM session: $(tail -20 "$work/session.log")"
grep "^slurm:" "$work/session.log"
echo "slurm: [$SECONDS s] the SLURM session done (the cluster stopped)"

python3 - "$work" <<'PY' || fail "SLURM runs against the mpirun references"
import glob, json, sys
w = sys.argv[1]
for s in ("hsadmm", "ddp"):
    ref = json.load(open(f"{w}/ref_{s}/metrics.json"))
    got = json.load(open(f"{w}/slurm_{s}/metrics.json"))
    c = got["config"]
    assert c["nodes"] == 2 and c["gpus-per-node"] == 2 and c["world-size"] == 4, c
    sl = c["slurm"]
    assert sl["job_id"].isdigit() and sl["nodelist"] == "node[0-1]", sl
    assert sl["account"] == "project_local" and sl["partition"] == "local", sl
    a = [(i["iteration"], i["loss"], i.get("accuracy")) for i in ref["iterations"]]
    b = [(i["iteration"], i["loss"], i.get("accuracy")) for i in got["iterations"]]
    assert a == b, (s, a, b)
    print(f"slurm: {s} under SLURM job {sl['job_id']} on {sl['nodelist']}: losses equal mpirun's {[x[1] for x in b]}")
# 3. the array's merge against the serial sweep, paths aside
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if k not in ("out", "wall_seconds", "wall_s")}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d
a = strip(json.load(open(f"{w}/sweep_serial/scaling.json")))
b = strip(json.load(open(f"{w}/sweep_array/scaling.json")))
assert a == b, "merged scaling.json differs from the serial sweep"
print("slurm: the array's merged scaling.json equals the serial sweep's")
# 4. and 5. after scancel and after a node died: whole files only
for d in ("slurm_cancel", "slurm_killed"):
    assert not glob.glob(f"{w}/{d}/**/*.tmp.*", recursive=True), d
    for f in glob.glob(f"{w}/{d}/**/*.json", recursive=True):
        json.load(open(f))
    assert json.load(open(f"{w}/{d}/metrics.json"))["summary"]["completed"] is False, d
# 5. resumed after the node failure: the uninterrupted run's losses and accuracies
full = json.load(open(f"{w}/ref_full/metrics.json"))["iterations"]
res = json.load(open(f"{w}/slurm_resumed/metrics.json"))["iterations"]
a = [(i["iteration"], i["loss"], i.get("accuracy")) for i in full]
b = [(i["iteration"], i["loss"], i.get("accuracy")) for i in res]
assert len(a) == 6 and a == b, (a, b)
print("slurm: resumed after node1 died: the 6 iterations equal the uninterrupted run's")
# 7. stopped by SIGUSR1, requeued, resumed: the same, in the one job's OUT
req = json.load(open(f"{w}/slurm_requeue/metrics.json"))
b = [(i["iteration"], i["loss"], i.get("accuracy")) for i in req["iterations"]]
assert req["summary"]["completed"] is True and a == b, (a, b)
print("slurm: stopped by SIGUSR1 and requeued: the 6 iterations equal the uninterrupted run's")
PY
# 6. the loop's predictions
bash "$repo/scripts/studies/predict_cluster.sh" "$work/loop" --topology "$work/loop_topology.json" \
  --links relative --host-cores "$(nproc)" --fit line >"$work/loop_validate.txt" 2>&1 ||
  fail "predict_cluster.sh: $(tail -5 "$work/loop_validate.txt")"
if ! python3 - "$work/loop/validate/validation.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
its = {r["run"].split(" @")[0]: r for r in v["rows"] if r["phase"] == "iteration"}
assert sorted(its) == ["ddp 2x1", "hsadmm-flat 2x2", "topk 2x1"], sorted(its)
assert v["bytes_iterations_checked"] >= 6 and not v["bytes_differences"], v["bytes_differences"]
for run, r in sorted(its.items()):
    ratio = r["predicted_s"] / r["measured_s"]
    assert 1 / 3 < ratio < 3, (run, r)
    print(f"slurm: loop: {run} iteration measured {r['measured_s']:.3f} s, predicted {r['predicted_s']:.3f} s")
print(f"slurm: loop: bytes per tier equal in {v['bytes_iterations_checked']} iterations")
PY
then
  fail "the loop's predictions: $(grep -E '^\| (ddp|topk|hsadmm)' "$work/loop/validate/VALIDATION.txt")"
fi
echo "slurm: [$SECONDS s] ok"
