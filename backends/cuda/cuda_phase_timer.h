// Per-phase GPU timing with CUDA events: begin/end record events on the stream that runs
// the phase, so the times are those of the device work, not of the host enqueueing it.
// A phase may be entered several times per iteration; its spans are summed.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_handles.h"

namespace prunex {

class CudaPhaseTimer {
 public:
  explicit CudaPhaseTimer(cudaStream_t stream) : stream_(stream) {}

  void begin(const std::string& phase);
  void end(const std::string& phase);  // the phase must be open
  // Waits for the recorded work and returns seconds per phase, in order of first begin().
  // Clears the recorded spans.
  std::vector<std::pair<std::string, double>> collect();

 private:
  struct Span {
    std::string phase;
    CudaEvent start, stop;
    bool open = true;
  };
  cudaStream_t stream_;
  std::vector<Span> spans_;
};

}  // namespace prunex
