// CGX's compressed all-reduce of one buffer (torch_cgx's reductions, over the engine's
// point-to-point messages), leaving the SUM over the world on every rank, the same values on
// all of them:
// 1. Inside each node (P > 1), scatter-reduce-allgather: the buffer's P chunks
//    (CgxBufferCodec::chunk) are owned by the local ranks; each rank quantizes every other
//    rank's chunk and sends it to its owner; the owner adds the dequantized chunks to its
//    own fp32 values (in local rank order), quantizes the sum, takes the dequantized sum as
//    its own result and sends the quantized sum to every other rank.
// 2. Across nodes (M > 1), the leaders' ring: M - 1 reduce-scatter hops, each re-quantizing
//    the running fp32 sum of the chunk it forwards; the owner quantizes its finished chunk and
//    keeps the dequantized values; M - 1 all-gather hops forward the quantized chunks as they
//    are.
// 3. With both (P > 1 and M > 1), each leader broadcasts the quantized chunks of step 2 to its
//    node (one uint8 broadcast), and the others decode them.
// With one rank per node step 1 and 3 are skipped; on one node, step 2 and 3.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cgx_quantize.h"
#include "engine/communicator.h"
#include "engine/memory_space.h"
#include "engine/peer_kernels.h"

namespace prunex {

struct CgxReduceOptions {
  bool stochastic = false;
  uint64_t seed = 1;  // stochastic rounding: mixed with the rank and the hop
};

// Wire buffers of cgx_allreduce in its kernels' memory space, kept from call to call: each
// call takes them in the same order, and a buffer is replaced only when a call needs more.
class CgxScratch {
 public:
  void rewind() { next_ = 0; }
  uint8_t* take(SpaceMemory& memory, int64_t bytes);

 private:
  std::vector<SpaceBuffer> buffers_;
  std::size_t next_ = 0;
};

// data, the encoding and the decoding in the memory of `kernels` (engine/peer_kernels.h): host
// memory on MPI, the GPU on NCCL, where comm's buffers live.
void cgx_allreduce(Communicator& comm, float* data, const CgxBufferCodec& codec,
                   const CgxReduceOptions& opt, PeerKernels& kernels, CgxScratch& scratch);
// In host memory, with scratch for this call.
void cgx_allreduce(Communicator& comm, float* data, const CgxBufferCodec& codec,
                   const CgxReduceOptions& opt);

// Bytes one rank sends in each step (the plan's sizes): the SRA's two rounds send
// wire(chunk) to each of P - 1 peers; the ring's two rounds send one chunk per hop; the
// broadcast carries the quantized chunks of the M-way split.
struct CgxStepBytes {
  double sra_block = 0;   // mean wire bytes of one of the P chunks
  double ring_block = 0;  // mean wire bytes of one of the M chunks
  int64_t broadcast = 0;  // wire bytes of the whole buffer split M ways
};
CgxStepBytes cgx_step_bytes(const CgxBufferCodec& codec, int gpus_per_node, int nodes);

}  // namespace prunex
