#!/usr/bin/env bash
# A real SLURM cluster on this host: `prunex emulate` builds M nodes as network namespaces
# (own hostname nodeK, own address 198.18.0.(K+1), links shaped as the topology says, divided
# by --slowdown), and each node runs a slurmd of Debian's slurm-wlm 22.05 (node0 also the
# slurmctld), authenticated by a munged of its own. Once every node is idle, COMMAND runs on
# node0 (sbatch, srun, squeue, ... reach the controller from there); then everything is
# removed, also on failure and on SIGINT/SIGTERM.
#
#   scripts/slurm/local_cluster.sh [--nodes 2] [--cpus-per-node 2] [--gpus-per-node G]
#       [--memory-mb 400000] [--topology puhti] [--slowdown 1000] [--state DIR]
#       [--topology-out FILE] -- COMMAND ...
#   scripts/slurm/local_cluster.sh --cleanup     (what killed runs left behind)
#
# SLURM sees M nodes (partition "local", default; "gpu" and "gputest" as on Puhti) of P CPUs
# and G placeholder GPUs each (gres gpu:v100:G, files under the state folder: the GPU
# templates' --gres lines parse; nothing runs on them). Memory is declared, not enforced.
# --topology-out writes the emulated cluster as a topology file (prunex emulate's: rails,
# rate, latency), the one scripts/studies/predict_cluster.sh --links relative calibrates.
# COMMAND gets SLURM_CONF and, for srun-launched Open MPI ranks, OMPI_MCA_* settings that keep
# them on the emulated links (docs/gpus-and-clusters.md). What is switched off and why:
#   no cgroups (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, cgroup.conf's
#   CgroupPlugin=cgroup/v1, whose init does nothing): there is no systemd here and the
#   namespaces' /sys has no cgroup mount; no accounting database (sacct reads the job
#   completion file, JobCompType=jobcomp/filetxt: sacct -c); the nodes declare more CPUs and
#   memory than the host has (SlurmdParameters=config_overrides).
# Needs root; scripts/setup.sh installs slurmctld, slurmd, slurm-client and munge.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nodes=2 cpus=2 gpus="" memory=400000 topology=puhti slowdown=1000 state="" cleanup=0
topology_out=""
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "local_cluster.sh: $*" >&2; exit 2; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --nodes|--cpus-per-node|--gpus-per-node|--memory-mb|--topology|--slowdown|--state|--topology-out)
      [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value (--help)" ;;&
    --nodes) nodes=${2:-}; shift 2 ;;
    --cpus-per-node) cpus=${2:-}; shift 2 ;;
    --gpus-per-node) gpus=${2:-}; shift 2 ;;
    --memory-mb) memory=${2:-}; shift 2 ;;
    --topology) topology=${2:-}; shift 2 ;;
    --slowdown) slowdown=${2:-}; shift 2 ;;
    --state) state=${2:-}; shift 2 ;;
    --topology-out) topology_out=${2:-}; shift 2 ;;
    --cleanup) cleanup=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (--help)" ;;
  esac
done
gpus=${gpus:-$cpus}
prunex=$root/build/bin/prunex
[[ -x $prunex ]] || die "build first (scripts/build.sh)"
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, daemons)"

if [[ $cleanup -eq 1 ]]; then
  [[ $# -eq 0 ]] || die "--cleanup takes no command"
  n=0
  for d in /tmp/prunex-slurm.*; do
    [[ -d $d ]] || continue
    for p in "$d"/*.pid; do
      [[ -f $p ]] && kill -9 "$(cat "$p")" 2>/dev/null && n=$((n + 1))
    done
    rm -rf "$d"
  done
  "$prunex" emulate --cleanup
  echo "local_cluster.sh: stopped $n daemons"
  exit 0
fi

for v in "$nodes" "$cpus" "$gpus" "$memory"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive count"
done
[[ $nodes -le 250 ]] || die "--nodes at most 250"
[[ $# -gt 0 ]] || die "missing the command: local_cluster.sh [options] -- COMMAND ..."
for p in slurmctld slurmd munged sbatch sinfo; do
  command -v "$p" >/dev/null || die "$p not found (scripts/setup.sh installs slurm-wlm and munge)"
done

state=${state:-/tmp/prunex-slurm.$$}
[[ -e $state ]] && die "--state $state exists"
mkdir -p "$state"
chmod 711 "$state"  # munged wants its socket's folders searchable by all, writable by root only
state=$(cd "$state" && pwd)

munge_pid=""
finish() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n $munge_pid ]] && kill "$munge_pid" 2>/dev/null; then
    # munged writes its seed file and removes its socket as it exits: the folder is removed
    # only after it is gone (an rm racing it fails with "Directory not empty").
    for _ in $(seq 1 50); do kill -0 "$munge_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$munge_pid" 2>/dev/null || true
  fi
  if [[ $rc -eq 0 ]]; then rm -rf "$state"; else echo "local_cluster.sh: logs kept in $state" >&2; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# munge: a key and a daemon of this cluster's own, so a system munged is left alone.
dd if=/dev/urandom of="$state/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge.key"
munged --socket="$state/munge.sock" --key-file="$state/munge.key" --log-file="$state/munged.log" \
  --pid-file="$state/munged.pid" --seed-file="$state/munged.seed"
munge_pid=$(cat "$state/munged.pid")

mkdir -p "$state/ctld" "$state/gpu"
for g in $(seq 0 $((gpus - 1))); do touch "$state/gpu/nvidia$g"; done
last=$((nodes - 1))
{
  cat <<EOF
# Written by scripts/slurm/local_cluster.sh for one run; removed with it.
ClusterName=prunex
SlurmctldHost=node0(198.18.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge.sock
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$state/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=10
KillOnBadExit=1
JobRequeue=0
MinJobAge=600
StateSaveLocation=$state/ctld
SlurmctldPidFile=$state/slurmctld.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdSpoolDir=$state/slurmd-%n
SlurmdPidFile=$state/slurmd-%n.pid
SlurmdLogFile=$state/slurmd-%n.log
TmpFS=$state/tmp-%n
EOF
  for k in $(seq 0 "$last"); do
    echo "NodeName=node$k NodeAddr=198.18.0.$((k + 1)) CPUs=$cpus RealMemory=$memory Gres=gpu:v100:$gpus"
  done
  echo "PartitionName=local Nodes=node[0-$last] Default=YES MaxTime=INFINITE State=UP"
  echo "PartitionName=gpu Nodes=node[0-$last] MaxTime=INFINITE State=UP"
  echo "PartitionName=gputest Nodes=node[0-$last] MaxTime=INFINITE State=UP"
} >"$state/slurm.conf"
echo "NodeName=node[0-$last] Name=gpu Type=v100 File=$state/gpu/nvidia[0-$((gpus - 1))]" >"$state/gres.conf"
echo "CgroupPlugin=cgroup/v1" >"$state/cgroup.conf"
for k in $(seq 0 "$last"); do mkdir -p "$state/slurmd-node$k" "$state/tmp-node$k"; done

echo "local_cluster.sh: $nodes nodes x $cpus CPUs ($gpus placeholder GPUs each), $topology links / $slowdown; state $state" >&2
# One program (local_node.sh: the node's daemons) per emulated node.
emulated=()
[[ -z $topology_out ]] || emulated=(--topology-out "$state/topology.json")
rc=0
"$prunex" emulate --topology "$topology" --nodes "$nodes" --gpus-per-node 1 --slowdown "$slowdown" \
  "${emulated[@]}" --program -- "$here/local_node.sh" "$state" "$nodes" -- "$@" || rc=$?
if [[ -n $topology_out && -f $state/topology.json ]]; then
  # emulate's file names one rank per node (one slurmd each); the nodes hold G GPUs for jobs.
  /usr/bin/python3 - "$state/topology.json" "$topology_out" "$gpus" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["gpus_per_node"] = {"value": int(sys.argv[3]),
                      "source": "scripts/slurm/local_cluster.sh --gpus-per-node (gres gpu per node)"}
with open(sys.argv[2] + ".tmp", "w") as f:
    json.dump(t, f, indent=2)
    f.write("\n")
PY
  mv "$topology_out.tmp" "$topology_out"
  echo "local_cluster.sh: wrote the cluster's topology to $topology_out" >&2
fi
exit "$rc"
