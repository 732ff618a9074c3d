#!/usr/bin/env bash
# One node of scripts/slurm/local_cluster.sh, started by `prunex emulate --program` in that
# node's namespace (hostname nodeK): runs its slurmd (node0: the slurmctld too); node0 waits
# until every node is idle, runs COMMAND, and marks the run done; then every node stops its
# daemons and what their jobs left. A killed slurmd of node K > 0 is started again once
# STATE/restart-nodeK exists (tests stage a node failure that way).
#   local_node.sh STATE NODES -- COMMAND ...
set -uo pipefail
state=$1 nodes=$2
shift 3
k=${OMPI_COMM_WORLD_RANK:?local_node.sh runs under prunex emulate --program}
name=$(hostname)
[[ $name == "node$k" ]] || { echo "local_node.sh: rank $k is on host $name, not node$k" >&2; exit 1; }
# The launch's own Open MPI and PMIx variables must not reach the jobs (their ranks are
# started by srun and meet through slurmd's PMIx server instead).
for v in $(compgen -e); do
  case $v in OMPI_*|PMIX_*|OPAL_*|ORTE_*|HWLOC_*) unset "$v" ;; esac
done
export SLURM_CONF=$state/slurm.conf
log() { echo "local_cluster [node$k]: $*" >&2; }

pids=()
stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  # Steps a killed job left on this node: slurmstepd and its tasks, found by this node's
  # network namespace (their command lines name no state folder).
  local me p
  me=$(readlink /proc/self/ns/net)
  for p in $(pgrep slurmstepd); do
    [[ $(readlink "/proc/$p/ns/net" 2>/dev/null) == "$me" ]] || continue
    pkill -9 -P "$p" 2>/dev/null
    kill -9 "$p" 2>/dev/null
  done
}
trap 'stop; exit 143' TERM INT

if [[ $k -eq 0 ]]; then
  slurmctld -D -i -f "$SLURM_CONF" >>"$state/slurmctld.out" 2>&1 &
  pids+=($!)
fi
slurmd -D -N "node$k" -f "$SLURM_CONF" >>"$state/slurmd-node$k.out" 2>&1 &
pids+=($!)

if [[ $k -ne 0 ]]; then
  # This script is the node's init: a slurmd that died (a node failure staged by a test:
  # kill it, then touch STATE/restart-nodeK) comes back when asked, as after a reboot.
  until [[ -e $state/done ]]; do
    if ! kill -0 "${pids[-1]}" 2>/dev/null && [[ -e $state/restart-node$k ]]; then
      rm -f "$state/restart-node$k"
      slurmd -D -N "node$k" -f "$SLURM_CONF" >>"$state/slurmd-node$k.out" 2>&1 &
      pids+=($!)
      log "slurmd restarted"
    fi
    sleep 0.5
  done
  stop
  exit 0
fi

# node0: every node idle, or stop after 60 s with the controller's view.
for _ in $(seq 1 120); do
  idle=$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)
  [[ $idle -ge $nodes ]] && break
  sleep 0.5
done
if [[ ${idle:-0} -lt $nodes ]]; then
  log "only ${idle:-0} of $nodes nodes idle after 60 s:"
  sinfo -N >&2 || true
  touch "$state/done"
  stop
  exit 1
fi
log "$nodes nodes idle ($(sinfo -h -o '%P %D %T' | tr '\n' ';'))"
# Open MPI ranks started by srun: TCP over the emulated rails, shared memory inside a node.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=rail0 OMPI_MCA_oob_tcp_if_include=rail0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$@"
rc=$?
touch "$state/done"
scancel --full --quiet --user=root 2>/dev/null || true
stop
exit $rc
