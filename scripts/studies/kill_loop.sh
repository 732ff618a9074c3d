#!/usr/bin/env bash
# SIGTERM at random moments of a run that writes a checkpoint after every iteration (as
# scancel or a node drain sends it), N times; after each kill the run is resumed for one more
# iteration. A kill must never leave a checkpoint that looks complete but is not: the resume
# either continues from the newest complete checkpoint, with the loss of an uninterrupted
# run's next iteration to the bit, or says in one line that there is none (exit 2).
#
#   scripts/studies/kill_loop.sh OUT [N]      (default 50 kills; needs Open MPI; PRUNEX=
#                                             another build's bin/prunex)
#
# The run: 2 ranks (2 emulated nodes of 1), hsadmm on ResNet-20 over synthetic 32 x 32
# images, one local step an iteration and a checkpoint after each, so writing checkpoints
# (about 6 MB a rank: parameters, momentum, the consensus variables) takes a good part of
# the run. Writes OUT/REPORT.md and OUT/kills.tsv (trial, kill time, newest checkpoint,
# outcome).
set -euo pipefail
source "$(dirname "$0")/study_setup.bash"
study_setup kill_loop.sh "${1:?usage: kill_loop.sh OUT [N]}"
n=${2:-50}
args=(train --dataset synthetic --synthetic-samples 64 --model resnet20 --batch 8 --local-steps 1
      --strategy hsadmm --gpus-per-node 1 --checkpoint-every 1)
iterations=40
mpirun -q --oversubscribe -np 2 "$prunex" "${args[@]}" --iterations "$iterations" \
  --out "$out/reference" >"$out/reference.log" 2>&1
SECONDS=0
printf 'trial\tkill_after_s\tnewest\toutcome\n' >"$out/kills.tsv"
for t in $(seq 1 "$n"); do
  run=$out/trial_$t
  rm -rf "$run"
  # A kill time over the whole run: LibTorch's start, the iterations and their checkpoints.
  delay=$(python3 -c "import random; random.seed($t); print(round(random.uniform(2.5, 8.0), 3))")
  mpirun -q --oversubscribe -np 2 "$prunex" "${args[@]}" --iterations "$iterations" \
    --out "$run" >"$run.log" 2>&1 &
  pid=$!
  sleep "$delay"
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  newest=$(cat "$run/checkpoint/LATEST" 2>/dev/null || echo none)
  k=0
  if [[ $newest == iter-* ]]; then k=$((10#${newest#iter-})); fi
  if [[ $newest == none ]]; then
    rc=0
    mpirun -q --oversubscribe -np 2 "$prunex" "${args[@]}" --iterations "$iterations" \
      --resume "$run/checkpoint" --out "$run" >"$run.resume.log" 2>&1 || rc=$?
    if [[ $rc -eq 2 ]] && grep -q "no complete checkpoint\|no such folder" "$run.resume.log"; then
      outcome="none usable, said so (exit 2)"
    else
      outcome="BAD: resume without a checkpoint exited $rc"
    fi
  elif [[ $k -ge $iterations ]]; then
    outcome="run had finished"
  else
    rc=0
    mpirun -q --oversubscribe -np 2 "$prunex" "${args[@]}" --iterations $((k + 1)) \
      --resume "$run/checkpoint" --out "$run" >"$run.resume.log" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
      outcome="BAD: resume from $newest exited $rc: $(tail -1 "$run.resume.log")"
    elif python3 - "$out/reference/metrics.json" "$run/metrics.json" $((k + 1)) <<'PY'; then
import json, sys
ref = json.load(open(sys.argv[1]))["iterations"]
got = json.load(open(sys.argv[2]))["iterations"]
k = int(sys.argv[3])
a = [(i["iteration"], i["loss"]) for i in ref[:k]]
b = [(i["iteration"], i["loss"]) for i in got]
sys.exit(0 if a == b else 1)
PY
      outcome="resumed from $newest, iteration $((k + 1)) equal to the uninterrupted run's"
    else
      outcome="BAD: resumed from $newest, losses differ from the uninterrupted run's"
    fi
  fi
  printf '%s\t%s\t%s\t%s\n' "$t" "$delay" "$newest" "$outcome" >>"$out/kills.tsv"
  echo "kill_loop: [$t/$n, ${SECONDS} s] SIGTERM after $delay s: newest $newest: $outcome"
  rm -rf "$run"/checkpoint/iter-*/rank-*.ckpt  # keep the manifests and logs
done
python3 - "$out" "$n" <<'PY'
import csv, sys
out, n = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(f"{out}/kills.tsv"), delimiter="\t"))
bad = [r for r in rows if r["outcome"].startswith("BAD")]
kinds = {}
for r in rows:
    key = r["outcome"].split(" from ")[0].split(",")[0]
    kinds[key] = kinds.get(key, 0) + 1
# Kills between an iteration's end (its line printed) and its checkpoint's completion line:
# while metrics.json or the checkpoint was being written.
import re
writing = 0
for r in rows:
    log = open(f"{out}/trial_{r['trial']}.log").read()
    its = re.findall(r"^iter +(\d+)/", log, re.M)
    cks = re.findall(r"checkpoint of iteration (\d+)", log)
    if its and (not cks or cks[-1] != its[-1]):
        writing += 1
lines = ["# SIGTERM at random moments of a checkpointing run, then resume", "",
         f"- Command: `scripts/studies/kill_loop.sh OUT {n}`",
         f"- Trials: {len(rows)}; outcomes: " + "; ".join(f"{k}: {v}" for k, v in sorted(kinds.items())),
         f"- Killed after an iteration's end and before its checkpoint's completion line (while "
         f"metrics.json or the checkpoint was written): {writing}",
         f"- Checkpoints that looked complete but were not: {len(bad)}", "",
         "| trial | SIGTERM after (s) | newest checkpoint | outcome |", "|---|---|---|---|"]
lines += [f"| {r['trial']} | {r['kill_after_s']} | {r['newest']} | {r['outcome']} |" for r in rows]
open(f"{out}/REPORT.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines[:6]))
sys.exit(1 if bad else 0)
PY
