#!/usr/bin/env bash
# Runs NP MPI ranks that share this machine's GPU(s) over NCCL, as if each were its own host.
#
#   scripts/gpu/nccl_one_gpu.sh [--mps | --mps-share] NP COMMAND [ARGS...]
#   scripts/gpu/nccl_one_gpu.sh 4 build/bin/prunex train --backend nccl --gpus-per-node 2 ...
#
# NCCL refuses two ranks of one host on one GPU ("Duplicate GPU detected"), but it compares
# host identities first: each rank here gets its own NCCL_HOSTID, so NCCL treats the ranks as
# different hosts and connects them through its socket transport, on the loopback interface
# (NCCL_SOCKET_IFNAME=lo). Every NCCL transfer then crosses sockets, even between ranks of
# one emulated node: a functional test of many ranks, and a slow network, not NVLink.
# Each rank uses GPU (its index among the ranks on this host) modulo the visible GPUs.
#
# Without MPS the ranks' kernels take turns on the GPU in time slices (on an H200 a 64-byte
# all-reduce took 9 ms on 2 ranks: results/gpu/2026-11-27-h200/README.md). --mps starts NVIDIA's
# Multi-Process Service for the run (its own pipe and log folders under /tmp, stopped after),
# so the ranks' kernels run side by side; if it does not start, the run goes on without it
# and says so on stderr. The exit status is the command's.
# --mps-share is --mps with each rank held to an equal share of its GPU's streaming
# multiprocessors (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 100 / the ranks on one GPU, in each
# rank's environment; NVIDIA's MPS documentation: on Volta and later it constrains the
# portion of the device's threads a client may use). Under plain MPS a rank's kernels may fill the whole GPU, so its
# compute depends on what the other ranks launch at that moment
# (results/gpu/2026-11-27-h200-peers/README.md: the same local steps took 55-87 ms across
# runs); with a fixed share each rank is closer to
# a device of its own, which is what the simulator models.
set -euo pipefail
mps=0 share=0
case "${1:-}" in
  -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --mps) mps=1; shift ;;
  --mps-share) mps=1 share=1; shift ;;
esac
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: nccl_one_gpu.sh [--mps | --mps-share] NP COMMAND [ARGS...]" >&2
  exit 2
fi
np="$1"
shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(mpirun -np "$np" --oversubscribe --bind-to none
        -x NCCL_SOCKET_IFNAME=lo -x NCCL_IB_DISABLE=1)
if [ "$mps" = 0 ]; then
  exec "${launch[@]}" bash -c 'NCCL_HOSTID="prunex-job$PPID-rank$OMPI_COMM_WORLD_RANK" exec "$@"' \
    nccl_one_gpu "$@"
fi
dir=$(mktemp -d /tmp/prunex-mps.XXXXXX)
export CUDA_MPS_PIPE_DIRECTORY="$dir/pipe" CUDA_MPS_LOG_DIRECTORY="$dir/log"
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
mps_control() { echo "$1" | nvidia-cuda-mps-control 2>/dev/null; }
stop_mps() {
  # The daemon removes its pipes as it exits: wait for it (at most 10 s) before the folder goes.
  local pid i
  pid=$(cat "$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid" 2>/dev/null || true)
  mps_control quit > /dev/null || true
  for i in $(seq 50); do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  rm -rf "$dir"
}
# The control daemon starts the server only for a first client; starting it here shows at
# once whether MPS works on this machine.
if command -v nvidia-cuda-mps-control > /dev/null && nvidia-cuda-mps-control -d &&
  mps_control "start_server -uid $(id -u)" > /dev/null &&
  [ -n "$(mps_control get_server_list)" ]; then
  trap stop_mps EXIT
  launch+=(-x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY)
  if [ "$share" = 1 ]; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
    [ "${gpus:-0}" -ge 1 ] || gpus=1
    per_gpu=$(((np + gpus - 1) / gpus))  # ranks take GPUs by local index modulo the GPUs
    pct=$((100 / per_gpu))
    launch+=(-x "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct")
    echo "nccl_one_gpu.sh: MPS started, $pct% of the GPU's threads a rank (pipe $CUDA_MPS_PIPE_DIRECTORY)" >&2
  else
    echo "nccl_one_gpu.sh: MPS started (pipe $CUDA_MPS_PIPE_DIRECTORY)" >&2
  fi
else
  command -v nvidia-cuda-mps-control > /dev/null && stop_mps || rm -rf "$dir"
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  echo "nccl_one_gpu.sh: MPS did not start; the ranks take turns on the GPU" >&2
fi
rc=0
"${launch[@]}" bash -c 'NCCL_HOSTID="prunex-job$PPID-rank$OMPI_COMM_WORLD_RANK" exec "$@"' \
  nccl_one_gpu "$@" || rc=$?
exit "$rc"
