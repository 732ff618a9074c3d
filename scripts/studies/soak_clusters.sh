#!/usr/bin/env bash
# The emulated cluster and the local SLURM cluster started again and again: E back-to-back
# `prunex emulate` runs (2 nodes, an all-reduce across them) and S starts of
# scripts/slurm/local_cluster.sh (2 nodes, sinfo and one srun across them). After each, the
# host must be as before: the same network namespaces, links, prunex/SLURM/munge processes
# and /tmp/prunex-* folders. Stops at the first failure or leftover.
#
#   scripts/studies/soak_clusters.sh OUT [E] [S]     (default 50 and 20; needs root)
#
# Writes OUT/REPORT.md and OUT/starts.tsv (kind, start, seconds, status).
set -euo pipefail
source "$(dirname "$0")/study_setup.bash"
study_setup soak_clusters.sh "${1:?usage: soak_clusters.sh OUT [E] [S]}"
emulate_starts=${2:-50}
slurm_starts=${3:-20}

# What a start may not leave behind.
snapshot() {
  {
    echo "# netns"; ip netns list 2>/dev/null | awk '{print $1}' | sort
    echo "# links"; ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
    echo "# processes"
    pgrep -a -f "slurmctld|slurmd|munged|prunex(-train)? |emulate-probe" | grep -v "soak_clusters" |
      awk '{$1=""; print}' | sort || true
    echo "# files"; ls -d /tmp/prunex-* 2>/dev/null | sort || true
  } >"$1"
}
snapshot "$out/before.txt"
printf 'kind\tstart\tseconds\tstatus\n' >"$out/starts.tsv"
failures=0
run() {  # KIND N COMMAND...: one start, then the host compared with before
  local kind=$1 n=$2; shift 2
  local t0=$SECONDS rc=0
  "$@" >"$out/$kind-$n.log" 2>&1 || rc=$?
  snapshot "$out/after.txt"
  local status=ok
  if [[ $rc -ne 0 ]]; then
    status="exit $rc"
  elif ! diff -q "$out/before.txt" "$out/after.txt" >/dev/null; then
    status="leftovers: $(diff "$out/before.txt" "$out/after.txt" | grep '^>' | tr '\n' ' ')"
  fi
  printf '%s\t%s\t%s\t%s\n' "$kind" "$n" $((SECONDS - t0)) "$status" >>"$out/starts.tsv"
  echo "soak: $kind $n: $((SECONDS - t0)) s: $status"
  if [[ $status != ok ]]; then failures=$((failures + 1)); return 1; fi
  rm -f "$out/$kind-$n.log"
}
for n in $(seq 1 "$emulate_starts"); do
  run emulate "$n" "$prunex" emulate --topology ethernet-100m --nodes 2 --gpus-per-node 1 -- \
    bench --backend mpi --op allreduce --group world -b 1K -e 1K -n 1 -w 0 || break
done
if [[ $failures -eq 0 ]]; then
  for n in $(seq 1 "$slurm_starts"); do
    run slurm "$n" "$repo/scripts/slurm/local_cluster.sh" --nodes 2 -- \
      bash -c 'sinfo -h && srun -N 2 -n 2 hostname' || break
  done
fi
python3 - "$out" "$emulate_starts" "$slurm_starts" <<'PY'
import csv, statistics, sys
out, e, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = list(csv.DictReader(open(f"{out}/starts.tsv"), delimiter="\t"))
lines = ["# The emulated and the SLURM cluster started again and again", "",
         f"- Command: `scripts/studies/soak_clusters.sh OUT {e} {s}`"]
for kind, want in (("emulate", e), ("slurm", s)):
    rs = [r for r in rows if r["kind"] == kind]
    ok = [r for r in rs if r["status"] == "ok"]
    secs = [int(r["seconds"]) for r in rs] or [0]
    lines.append(f"- {kind}: {len(ok)} of {want} starts clean (median {statistics.median(secs)} s, "
                 f"max {max(secs)} s)")
    lines += [f"  - start {r['start']}: {r['status']}" for r in rs if r["status"] != "ok"]
open(f"{out}/REPORT.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
bad = [r for r in rows if r["status"] != "ok"]
sys.exit(1 if bad or len(rows) < e + s else 0)
PY
