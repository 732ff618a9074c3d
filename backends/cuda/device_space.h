// GPU memory as a SpaceMemory (engine/memory_space.h): cudaMalloc'd, zeroed buffers and copies
// on one stream, each synchronised before it returns. The consensus math passes its own
// stream; the collective bench and the host-staged communicator the legacy default stream
// (nullptr), which their NCCL calls' streams are ordered after by the synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "engine/memory_space.h"

namespace prunex {

std::unique_ptr<SpaceMemory> make_device_space(cudaStream_t stream = nullptr);

}  // namespace prunex
