#!/usr/bin/env bash
# A `prunex sweep` too large for one machine, as a SLURM array: one task per point
# (sweep_point.sbatch), then one job that merges their outputs into OUT/scaling.json
# (sweep_merge.sbatch) once every task has succeeded.
#
#   scripts/slurm/sweep.sh OUT SWEEP_OPTIONS...
#   scripts/slurm/sweep.sh out/big --topology puhti --model resnet152 \
#       --gpus 1024,16384,65536,131072 --strategy hsadmm,ddp --iterations 1
#
# Account, partition and the like come from sbatch's environment (SBATCH_ACCOUNT,
# SBATCH_PARTITION, ...); PRUNEX names the binary (default: build/bin/prunex of this
# checkout). Memory per task: SWEEP_MEM (default 8G; each task gives prunex the job's memory
# as PRUNEX_MAX_MEMORY_GIB, so it refuses a point whose estimate exceeds it: see
# simulate/footprint.h). Time per task: sweep_point.sbatch's 1 hour, or SBATCH_TIMELIMIT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  ""|-*) echo "usage: $0 OUT SWEEP_OPTIONS... (--help; see prunex sweep --help)" >&2; exit 2 ;;
esac
out=$1
shift
# Points of an earlier sweep there would only be refused by the merge, after the whole array.
if [[ -d $out/points && -n $(ls -A "$out/points") ]]; then
  echo "$0: $out/points holds an earlier sweep's points: another OUT, or remove them" >&2
  exit 2
fi
prunex=${PRUNEX:-$here/../../build/bin/prunex}
[[ -x $prunex ]] || { echo "$0: no prunex binary at $prunex (scripts/build.sh, or set PRUNEX)" >&2; exit 2; }
prunex=$(cd "$(dirname "$prunex")" && pwd)/$(basename "$prunex")
# Validates the options (exit 2 on a bad one) and counts the points.
n=$("$prunex" sweep "$@" --count-points)
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
array=$(sbatch --parsable --array="0-$((n - 1))" --job-name=prunex-sweep \
  --mem="${SWEEP_MEM:-8G}" --output="$out/logs/point-%a.log" \
  --export=ALL,PRUNEX="$prunex" "$here/sweep_point.sbatch" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=prunex-sweep-merge \
  --output="$out/logs/merge.log" --export=ALL,PRUNEX="$prunex" "$here/sweep_merge.sbatch" "$out")
echo "submitted $n points as array job $array and the merge as job ${merge%%;*}: $out/scaling.json"
