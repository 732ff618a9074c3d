# Sourced by the study scripts of issue 58 (kill_loop.sh, requeue_time_limit.sh,
# soak_clusters.sh): study_setup NAME OUT sets repo (the checkout), prunex ($PRUNEX, or this
# checkout's build; exit 2 when it is not built) and out (OUT, made and absolute), and lets
# Open MPI run as root.
study_setup() {
  local name=$1
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  prunex=${PRUNEX:-$repo/build/bin/prunex}
  [[ -x $prunex ]] || { echo "$name: build first (scripts/build.sh)" >&2; exit 2; }
  mkdir -p "$2"
  out=$(cd "$2" && pwd)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}
