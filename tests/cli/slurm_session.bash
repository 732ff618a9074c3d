#!/usr/bin/env bash
# Runs on node0 of the local SLURM cluster for tests/cli/slurm.sh:
#   slurm_session.bash REPO WORK PRUNEX
# Lines starting "slurm:" are what the test prints (squeue/sacct lines included).
set -uo pipefail
repo=$1 work=$2 prunex=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "slurm: [${SECONDS} s] $*"; }  # the session's own clock: where its time goes
# in_netns NS PATTERN: the processes matching PATTERN (pgrep -f) in network namespace NS (one
# emulated node's; other tests' processes on this host are in none of them).
in_netns() {
  local p
  for p in $(pgrep -f "$2"); do
    [[ $(readlink "/proc/$p/ns/net" 2>/dev/null) == "$1" ]] && echo "$p"
  done
}
# sbatch_wait ARGS...: sbatch ARGS, then the job's end, its state polled every 0.2 s (sbatch
# --wait polls at growing intervals of up to 10 s: about 10 s lost per job). Prints sbatch's
# "Submitted batch job N"; the status is 0 when the job ends COMPLETED, 1 otherwise or when it
# has not ended in 600 s.
sbatch_wait() {
  local out job
  out=$(sbatch "$@") || return 1
  echo "$out"
  job=$(grep -o '[0-9]*' <<<"$out" | head -1)
  local state start=$SECONDS
  while (( SECONDS - start < 600 )); do  # until a state the job does not leave
    state=$(scontrol show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*')
    case $state in
      JobState=COMPLETED | JobState=FAILED | JobState=CANCELLED | JobState=TIMEOUT | \
        JobState=NODE_FAIL | JobState=OUT_OF_MEMORY | JobState=BOOT_FAIL | JobState=DEADLINE) break ;;
    esac
    sleep 0.2
  done
  [[ $state == JobState=COMPLETED ]]
}
cd "$repo" || exit 1  # the templates run build/bin/prunex of the checkout they are submitted from

# 1. The templates as written pass SLURM's own checks of their options.
for t in puhti generic calibration_loop; do
  sbatch --test-only "$repo/scripts/slurm/$t.sbatch" >"$work/testonly_$t.txt" 2>&1 ||
    fail "sbatch --test-only $t.sbatch: $(cat "$work/testonly_$t.txt")"
  say "--test-only $t.sbatch: $(tail -1 "$work/testonly_$t.txt")"
done

# 2. generic.sbatch trains on 2 nodes x 2 ranks.
export SBATCH_ACCOUNT=project_local SBATCH_PARTITION=local
export BACKEND=mpi MODEL=small_cnn DATASET=synthetic ITERATIONS=2 SPARSITY=""
for s in hsadmm ddp; do
  STRATEGY=$s OUT=$work/slurm_$s sbatch_wait --nodes=2 --ntasks-per-node=2 --cpus-per-task=1 \
    --gres=gpu:2 --output="$work/slurm_$s.log" "$repo/scripts/slurm/generic.sbatch" \
    >"$work/sbatch_$s.txt" 2>&1 || fail "sbatch generic.sbatch ($s): $(cat "$work/sbatch_$s.txt" "$work/slurm_$s.log")"
  job=$(grep -o '[0-9]*' "$work/sbatch_$s.txt" | head -1)
  say "$s: $(head -1 "$work/sbatch_$s.txt"); $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]* Reason=[^ ]*'); $(scontrol show job "$job" | grep -o ' NodeList=[^ ]*')"
done
say "sacct -c: $(sacct -c -X -o jobid,jobname,partition,account,state,exitcode,nodelist -n 2>&1 | tr -s ' ' | tr '\n' ';')"

# 2b. A typo in the settings ends the job on the batch host before any srun (train --check):
# exit 2, and the log holds prunex's one line and nothing a rank would print.
for bad in STRATEGY=gossip TRAIN_ARGS=--no-such-option; do
  rm -f "$work/slurm_bad.log"  # generic.sbatch appends (--open-mode=append, for requeues)
  (export "$bad" OUT="$work/slurm_bad"
   sbatch_wait --nodes=2 --ntasks-per-node=2 --cpus-per-task=1 --gres=gpu:2 \
     --output="$work/slurm_bad.log" "$repo/scripts/slurm/generic.sbatch") >"$work/sbatch_bad.txt" 2>&1 &&
    fail "generic.sbatch with $bad: the job succeeded"
  job=$(grep -o '[0-9]*' "$work/sbatch_bad.txt" | head -1)
  { [[ $(grep -c . "$work/slurm_bad.log") -eq 1 ]] && grep -q "^prunex train: error: " "$work/slurm_bad.log"; } ||
    fail "generic.sbatch with $bad: the log is not prunex's one line: $(cat "$work/slurm_bad.log")"
  [[ ! -e $work/slurm_bad ]] || fail "generic.sbatch with $bad: OUT was created"
  say "generic.sbatch with $bad: $(scontrol show job "$job" | grep -o 'ExitCode=[0-9:]*'): $(cat "$work/slurm_bad.log")"
done

# 3. The sweep as an array plus a dependent merge.
PRUNEX=$prunex "$repo/scripts/slurm/sweep.sh" "$work/sweep_array" --topology puhti --model resnet20 \
  --gpus 8,16 --strategy hsadmm,ddp --iterations 1 >"$work/sweep_submit.txt" 2>&1 ||
  fail "sweep.sh: $(cat "$work/sweep_submit.txt")"
say "$(cat "$work/sweep_submit.txt")"
squeue -h -o '%i %j %T %r' | sed "s/^/slurm: [${SECONDS} s] squeue: /"
for _ in $(seq 1 240); do
  [[ -z $(squeue -h) ]] && break
  sleep 0.5
done
[[ -z $(squeue -h) ]] || fail "the sweep's jobs did not end: $(squeue)"
[[ -s $work/sweep_array/scaling.json ]] || fail "no merged scaling.json: $(cat "$work"/sweep_array/logs/*)"
say "the sweep array and its merge ended"

# 6. (before the node failures) calibration_loop.sbatch measures the calibration loop's benches
# and runs; tests/cli/slurm.sh calibrates and predicts them.
# Small: 3 calls per size up to 256 KiB (ddp's all-reduce of 257 KiB extrapolates 0.5% past
# it), their median (robust to a stall, which a mean of 3 is not), 3 iterations of 2 steps.
OUT=$work/loop BENCH_MAX=256K BENCH_ITERS=3 BENCH_ARGS="--sync --stat median" ITERATIONS=3 \
  LOCAL_STEPS=2 T_FREEZE=1 TRAIN_ARGS="--synthetic-samples 512 --test-samples 64" sbatch_wait --nodes=2 \
  --ntasks-per-node=2 --cpus-per-task=1 --gres=gpu:2 --output="$work/loop.log" \
  "$repo/scripts/slurm/calibration_loop.sbatch" >"$work/sbatch_loop.txt" 2>&1 ||
  fail "calibration_loop.sbatch: $(cat "$work/sbatch_loop.txt" "$work/loop.log")"
say "calibration_loop.sbatch wrote $(cd "$work/loop" && ls -d bench_*.json memory.json steps-* live-* | grep -v '\.log$' | tr '\n' ' ')"

# 4. scancel while a training job runs: whole files only.
STRATEGY=hsadmm OUT=$work/slurm_cancel ITERATIONS=40 TRAIN_ARGS="$TRAIN_ARGS --checkpoint-every 1" \
  sbatch --nodes=2 --ntasks-per-node=2 --cpus-per-task=1 --output="$work/slurm_cancel.log" \
  "$repo/scripts/slurm/generic.sbatch" >"$work/sbatch_cancel.txt" 2>&1 || fail "sbatch (cancel)"
job=$(grep -o '[0-9]*' "$work/sbatch_cancel.txt" | head -1)
for _ in $(seq 1 240); do
  [[ -e $work/slurm_cancel/checkpoint/LATEST ]] && break
  sleep 0.25
done
[[ -e $work/slurm_cancel/checkpoint/LATEST ]] || fail "the job to cancel wrote no checkpoint: $(cat "$work/slurm_cancel.log")"
sleep 1
scancel "$job"
for _ in $(seq 1 120); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.5
done
say "scancel $job: $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*')"

wait_for() {  # PATTERN FILE WHAT LOG: up to 120 s for PATTERN in FILE, else fail with LOG
  for _ in $(seq 1 480); do
    grep -qs "$1" "$2" && return 0
    sleep 0.25
  done
  fail "$3: $(cat "$4")"
}

# 5. node1 dies mid-job (its slurmd and everything in its namespace killed): the job ends in
# a SLURM state that says so, no rank hangs, files stay whole; once node1 is back, the job
# resubmitted with --resume ends as the uninterrupted one (tests/cli/slurm.sh ran it with
# mpirun, as its part 2 shows SLURM's runs equal mpirun's).
state=$(dirname "$SLURM_CONF")
run6() {  # SUBMIT OUT EXTRA_TRAIN_ARGS: SUBMIT (sbatch or sbatch_wait) a 6-iteration job
  local submit=$1 out=$2 extra=$3
  STRATEGY=hsadmm OUT=$out ITERATIONS=6 TRAIN_ARGS="$TRAIN_ARGS --checkpoint-every 1 $extra" \
    $submit --nodes=2 --ntasks-per-node=2 --cpus-per-task=1 --output="$out.log" \
    ${REQUEUE:---no-requeue} "$repo/scripts/slurm/generic.sbatch"
}
# (--no-requeue: the job ends with its node, as a site without requeue has it; part 7 lets
# generic.sbatch's --requeue stand.)
job=$(run6 sbatch "$work/slurm_killed" "" 2>&1 | grep -o '[0-9]*' | head -1)
wait_for "iter-0000000[2-9]" "$work/slurm_killed/checkpoint/LATEST" \
  "the job to kill reached no second checkpoint" "$work/slurm_killed.log"
slurmd1=$(pgrep -f "slurmd -D -N node1( |$)" | head -1)
[[ -n $slurmd1 ]] || fail "no slurmd of node1"
ns=$(readlink "/proc/$slurmd1/ns/net")
killed=$(date +%s)
for p in $(in_netns "$ns" "slurmd -D -N node1|slurmstepd|prunex(-train)? train"); do
  kill -9 "$p" 2>/dev/null
done
for _ in $(seq 1 240); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.5
done
took=$(( $(date +%s) - killed ))
[[ -z $(squeue -h -j "$job" 2>/dev/null) ]] || fail "job $job still queued 120 s after node1 died: $(squeue)"
# Ranks of this cluster only (other tests may train beside this one): node0's and node1's.
ranks="prunex(-train)? train"
left=$(in_netns "$(readlink /proc/self/ns/net)" "$ranks"; in_netns "$ns" "$ranks")
[[ -z $left ]] || fail "ranks left running after job $job ended: pids $(echo $left)"
say "node1 killed in job $job: $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]* Reason=[^ ]*') after $took s; $(sinfo -h -N -n node1 -o '%N %T %E' | head -1)"
# The trainer names the lost rank in one line: node1 held ranks 2 and 3, and rank 2's
# predecessor (rank 1, on node0) reports it (support/peer_watch.h).
lost=$(grep -E "^prunex train: rank [0-9]+: rank [0-9]+ \(on node1\) is lost" "$work/slurm_killed.log" || true)
[[ $(printf '%s' "$lost" | grep -c '^prunex') -eq 1 ]] ||
  fail "no one line naming the lost rank: $(cat "$work/slurm_killed.log")"
say "job output: $lost"
touch "$state/restart-node1"
for _ in $(seq 1 120); do
  [[ $(sinfo -h -N -t idle -o %N | sort -u | wc -l) -ge 2 ]] && break
  sleep 0.5
done
say "node1 back: $(sinfo -h -N -n node1 -o '%N %T' | head -1)"
run6 sbatch_wait "$work/slurm_resumed" "--resume $work/slurm_killed/checkpoint" >/dev/null 2>&1 ||
  fail "resubmitted job: $(cat "$work/slurm_resumed.log")"
grep -o "resumed from .*" "$work/slurm_resumed.log" | head -1 | sed "s/^/slurm: [${SECONDS} s] /"

# 7. SLURM's warning before a time limit or preemption (generic.sbatch's
# --signal=B:USR1@120; sent here at once by scancel --batch --signal=USR1, to the batch shell
# as SLURM sends it): the script passes it on through srun, the ranks end their iteration,
# write its checkpoint and exit 75; generic.sbatch requeues the job and its restart resumes
# from OUT/checkpoint to the end. One job, restarted once; slurm.sh checks that its record
# equals the uninterrupted run's.
job=$(REQUEUE=--requeue run6 sbatch "$work/slurm_requeue" "" 2>&1 | grep -o '[0-9]*' | head -1)
[[ -n $job ]] || fail "sbatch (requeue): $(cat "$work/slurm_requeue.log" 2>/dev/null)"
wait_for "iter   2/6" "$work/slurm_requeue.log" "the job to warn reached no second iteration" \
  "$work/slurm_requeue.log"
scancel --batch --signal=USR1 "$job" || fail "scancel --batch --signal=USR1 $job"
# Requeued, the job waits for its begin time (SLURM delays a requeued job's next start); the
# test does not wait it out.
for _ in $(seq 1 240); do
  [[ $(squeue -h -j "$job" -o %T 2>/dev/null) == PENDING ]] && break
  sleep 0.25
done
say "requeued job $job: $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]* Reason=[^ ]*\|EligibleTime=[^ ]*' | tr '\n' ' ')"
# Started at once instead, but only once the first run's steps have ended on both nodes: a
# step of the same id started while the old one tears down cannot bind PMIx's socket (SLURM's
# own delay leaves them time).
for _ in $(seq 1 240); do
  ! pgrep -f "slurmstepd: \[$job\." >/dev/null &&
    ! compgen -G "$state/slurmd-node*/stepd.slurm.pmix.$job.*" >/dev/null && break
  sleep 0.25
done
scontrol update JobId="$job" StartTime=now 2>/dev/null || true
for _ in $(seq 1 480); do
  [[ $(squeue -h -j "$job" -o %T 2>/dev/null) == "" ]] && break
  sleep 0.5
done
[[ -z $(squeue -h -j "$job" 2>/dev/null) ]] || fail "job $job still queued: $(squeue)"
info=$(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*\|Restarts=[0-9]*\|ExitCode=[0-9:]*' | tr '\n' ' ')
[[ $info == *"JobState=COMPLETED"* && $info == *"Restarts=1"* ]] ||
  fail "job $job after SIGUSR1: $info; $(cat "$work/slurm_requeue.log")"
grep -q "SIGUSR1: stopped after iteration" "$work/slurm_requeue.log" &&
  grep -q "requeueing job $job" "$work/slurm_requeue.log" &&
  grep -q "resumed from $work/slurm_requeue/checkpoint" "$work/slurm_requeue.log" ||
  fail "job $job's log lacks the stop, the requeue or the resume: $(cat "$work/slurm_requeue.log")"
say "SIGUSR1 to job $job: $(grep -o 'stopped after iteration [0-9]* of [0-9]*' "$work/slurm_requeue.log"), requeued, $(grep -o 'resumed from .*' "$work/slurm_requeue.log" | head -1); $info"
exit 0
