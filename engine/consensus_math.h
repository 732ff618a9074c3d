// The arithmetic of an H-SADMM consensus step, done where its buffers live: in host memory
// (make_host_consensus_math, this folder: engine/hsadmm_updates.h, projection.h,
// compaction.h, residuals.h) or in GPU memory (backends/cuda/cuda_consensus_math.h: the
// CUDA kernels). HsadmmConsensus holds the orchestration and the communication, once for
// both; it keeps every buffer it hands to its Communicator in that communicator's memory
// space, which must be this space.
//
// Every pointer passed in lives in space(); float buffers are flat model buffers (every
// layout tensor end to end) or one layer of them. Calls return when their results are in
// place (a device implementation synchronises its stream), so host timers measure them.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "engine/communicator.h"
#include "engine/compaction.h"
#include "engine/hsadmm_updates.h"
#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/memory_space.h"
#include "engine/sparsity_spec.h"

namespace prunex {

// The buffers residual_partials reads (engine/residuals.h): this rank's theta^{k+1},
// z_i^{k+1}, z_i^k, u^{k+1}, and, when inter (the node's leader, not the flat variant),
// z^{k+1}, z^k, v^{k+1}. offset: each layer's first element in the flat buffers, then the
// total.
struct ResidualInputs {
  const std::vector<int64_t>* offset = nullptr;
  const float *theta = nullptr, *z_i = nullptr, *z_i_prev = nullptr, *u = nullptr;
  const float *z = nullptr, *z_prev = nullptr, *v = nullptr;
  bool inter = false;
};

class ConsensusMath {
 public:
  virtual ~ConsensusMath() = default;
  // The space its buffers live in: their allocation and copies (engine/memory_space.h).
  virtual SpaceMemory& memory() const = 0;
  MemorySpace space() const { return memory().space(); }

  // Per element, n floats (engine/hsadmm_updates.h).
  // Eq. 8: grad += rho1 * (theta - z_i + u).
  virtual void add_proximal(float* grad, const float* theta, const float* z_i, const float* u,
                            double rho1, int64_t n) = 0;
  // Eq. 8 for many layers at once (one local step's): a device implementation enqueues them
  // all and waits once, not once per layer.
  struct ProximalTerm {
    float* grad;
    const float* theta;
    const float* z_i;
    const float* u;
    double rho1;
    int64_t n;
  };
  virtual void add_proximal_layers(const std::vector<ProximalTerm>& terms) {
    for (const ProximalTerm& t : terms) add_proximal(t.grad, t.theta, t.z_i, t.u, t.rho1, t.n);
  }
  // Algorithm 1 line 6: buf = theta + u.
  virtual void theta_plus_u(const float* theta, const float* u, float* buf, int64_t n) = 0;
  // Eq. 9: out = (rho1 * sum + rho2 * (z - v)) / gamma.
  virtual void node_candidate(const float* sum, const float* z, const float* v,
                              const CandidateParams& p, float* out, int64_t n) = 0;
  // Eqs. 12, 13: u += theta - z_i; v += z_i - z (v null: the flat variant, u only).
  virtual void duals(float* u, float* v, const float* theta, const float* z_i, const float* z,
                     int64_t n) = 0;
  // Scaled duals after a penalty change: x *= factor.
  virtual void rescale(float* x, double factor, int64_t n) = 0;

  // Whole model; w[l]: layout layer l. Eq. 10 in place, returning the masks.
  virtual ModelMask project(float* const* w, const ModelLayout& layout,
                            const SparsitySpec& spec) = 0;
  // Algorithm 1 line 11: zeroes what m prunes in every pruned layer.
  virtual void apply_mask(float* const* w, const ModelMask& m) = 0;

  // ResidualPartials::kFields sums per layer, layer-major, into sums (this space): what
  // ResidualPartials::add_intra / add_inter give.
  virtual void residual_partials(const ResidualInputs& in, double* sums) = 0;

  // The compact buckets of a plan, in this space (plan null: none). pad_to > 1 rounds each
  // bucket's storage up to a multiple of pad_to values (hsadmm-rail); wire: f32, or the
  // 16-bit type values are converted to as they are packed.
  virtual void set_plan(const CompactionPlan* plan, int pad_to, DType wire) = 0;
  virtual int buckets() const = 0;
  virtual void* bucket(int b) = 0;
  virtual int64_t bucket_values(int b) const = 0;
  virtual int64_t bucket_padded(int b) const = 0;
  // Bucket b <- compact(z + v), or every bucket with b = -1. Callers pack 0, 1, ... in order
  // and unpack in the same order: an implementation may pack every bucket at b = 0 and
  // unpack every bucket at the last one (the device does: one launch each).
  virtual void pack(const float* const* z, const float* const* v, int b) = 0;
  // out[l] <- scale * expand(bucket b), zeros outside the kept groups; b = -1: every bucket.
  virtual void unpack(float* const* out, float scale, int b) = 0;
};

std::unique_ptr<ConsensusMath> make_host_consensus_math();

}  // namespace prunex
