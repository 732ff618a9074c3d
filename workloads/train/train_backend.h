// What moves a live training's data and where its tensors live (no LibTorch here: cmd_train
// builds one). --backend mpi: one MPI communicator for everything, tensors on the CPU.
// --backend nccl: MPI for the host's control traffic, NCCL for the tensors on this rank's GPU.
#pragma once

#include <functional>
#include <memory>

#include "engine/communicator.h"
#include "engine/consensus_math.h"
#include "engine/peer_kernels.h"

namespace prunex {

struct TrainBackend {
  // Host buffers that are not a strategy's payload: the records, evaluation sums, batch-norm
  // averages, data and memory checks, checkpoints.
  Communicator* control = nullptr;
  // The strategies' payload in its memory space (H-SADMM's consensus: device buffers on NCCL).
  Communicator* data = nullptr;
  // The CUDA device of this rank's tensors, or -1: the CPU.
  int cuda_device = -1;
  // The consensus math of data's memory space (null: the host's).
  std::function<std::unique_ptr<ConsensusMath>()> consensus_math;
  // The peers' codec kernels in data's memory space (null: the host's, host_peer_kernels()).
  PeerKernels* peer_kernels = nullptr;

  // Everything on one host communicator (--backend mpi, tests).
  static TrainBackend host(Communicator& comm) {
    TrainBackend b;
    b.control = b.data = &comm;
    return b;
  }
};

}  // namespace prunex
