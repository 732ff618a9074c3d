#!/usr/bin/env bash
# Runs NP MPI ranks that share this machine's GPU(s) over NCCL, as if each were its own host.
#
#   scripts/nccl_one_gpu.sh NP COMMAND [ARGS...]
#   scripts/nccl_one_gpu.sh 4 build/bin/prunex train --backend nccl --gpus-per-node 2 ...
#
# NCCL refuses two ranks of one host on one GPU ("Duplicate GPU detected"), but it compares
# host identities first: each rank here gets its own NCCL_HOSTID, so NCCL treats the ranks as
# different hosts and connects them through its socket transport, on the loopback interface
# (NCCL_SOCKET_IFNAME=lo). Every NCCL transfer then crosses sockets, even between ranks of
# one emulated node: a functional test of many ranks, and a slow network, not NVLink.
# Each rank uses GPU (its index among the ranks on this host) modulo the visible GPUs.
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: nccl_one_gpu.sh NP COMMAND [ARGS...]" >&2
  exit 2
fi
np="$1"
shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np "$np" --oversubscribe --bind-to none \
  -x NCCL_SOCKET_IFNAME=lo -x NCCL_IB_DISABLE=1 \
  bash -c 'NCCL_HOSTID="prunex-job$PPID-rank$OMPI_COMM_WORLD_RANK" exec "$@"' nccl_one_gpu "$@"
