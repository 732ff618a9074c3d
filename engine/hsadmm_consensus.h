// The consensus half of an H-SADMM outer iteration (Algorithm 1, phases 2-5) over a
// Communicator, on flat float buffers holding every layout tensor end to end. The local
// step (phase 1) belongs to the caller: a LibTorch trainer, or a closed-form solver in
// tests; it only needs add_proximal() for eq. 8.
//
// hsadmm (hierarchical): intra-node SUM of theta + u -> z~_i (eq. 9) -> projection
// (eq. 10) or the frozen mask -> leaders: mask union (eq. 14, one bitwise-OR all-reduce),
// pack z_i + v_i by the union mask, bucketed inter-node SUM -> intra-node broadcast of the
// union mask and the compact buckets -> every rank unpacks z = sum / M (eq. 11) -> duals
// (eqs. 12, 13), residuals, adaptive penalties, stopping test.
// hsadmm-rail: as hsadmm, but every rank packs and local rank r all-reduces slice r of each
// compact bucket with the r-th ranks of the other nodes (Group::rail, its own NIC), then the
// node all-gathers the slices: the same sums, each NIC carrying 1/P of the node's payload.
// hsadmm-flat (PruneX (AR)): one level over the world: dense SUM of theta + u, z = projection of
// the candidate, u += theta - z. No leaders, no shrinkage.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/communicator.h"
#include "engine/compaction.h"
#include "engine/consensus_math.h"
#include "engine/hsadmm_config.h"
#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/mask_freeze.h"
#include "engine/penalty.h"
#include "engine/phase_timer.h"
#include "engine/residuals.h"
#include "engine/sparsity_spec.h"
#include "engine/state_sections.h"
#include "engine/strategy.h"

namespace prunex {

struct ConsensusStep {
  ResidualReport mine;               // this rank's own residual norms (per layer)
  ResidualReport global;             // over the world; global.converged is the stopping test
  std::vector<double> rho1, rho2;    // penalties used in this iteration (per layer)
  bool frozen = false;               // the mask is frozen for the following iterations
  std::vector<double> mask_density;  // per layer: kept fraction of the global mask
  // Per layer: kept fraction of the mask that compacted this iteration's inter-node payload
  // (before the mask freezes: the union of node masks; it may keep more than mask_density
  // in the iteration that freezes). Empty for the flat variant (dense payload).
  std::vector<double> payload_density;
  // That mask itself (hsadmm; empty for the flat variant): the plan of this iteration is
  // built from it (tests/conformance).
  ModelMask payload_mask;
};

class HsadmmConsensus {
 public:
  // theta0: the initial parameters (identical on every rank): z_i = z = theta0, duals 0.
  // strategy: hsadmm, hsadmm_flat or hsadmm_rail (UsageError otherwise). wire: the type of
  // the compact inter-node payload (f32, or bf16 / f16 for hsadmm and hsadmm-rail: converted
  // in pack and unpack, summed in that type). math: where the arithmetic runs and the
  // state lives (null: the host); its space must be comm's memory space, and theta0, the
  // theta of step() and the pointers below live there.
  HsadmmConsensus(const ModelLayout& layout, SparsitySpec spec, HsadmmConfig cfg,
                  int64_t bucket_bytes, Strategy strategy, Communicator& comm, const float* theta0,
                  DType wire = DType::f32, std::unique_ptr<ConsensusMath> math = nullptr);

  // Eq. 8's extra gradient term for layer l: grad += rho1_l * (theta - z_i + u).
  void add_proximal(int layer, float* grad, const float* theta) const;
  // The same for every layer l (grads[l], thetas[l]): one call into the math, so a device
  // synchronises once per local step.
  void add_proximal_all(const std::vector<float*>& grads,
                        const std::vector<const float*>& thetas) const;
  // Phases 2-5 given this rank's theta^{k+1} (flat buffer); k is 1-based.
  ConsensusStep step(int k, const float* theta, PhaseTimer& timer);

  int64_t size() const { return n_; }
  int64_t offset(int layer) const { return offset_[layer]; }
  const float* z() const { return z_.as<float>(); }
  const float* z_i() const { return zi_.as<float>(); }
  const float* u() const { return u_.as<float>(); }
  const float* v() const { return v_.as<float>(); }
  // Where those live, and the arithmetic that runs there (masked retraining uses it).
  ConsensusMath& math() const { return *math_; }
  const ModelMask& global_mask() const { return global_mask_; }
  const SparsitySpec& spec() const { return spec_; }
  const ModelLayout& layout() const { return layout_; }
  Strategy strategy() const { return strategy_; }
  // Penalty rho1 of layer l for the next local steps (eq. 8's proximal weight).
  double rho1(int layer) const { return penalty_.rho1(layer); }
  // The mask is frozen: later iterations apply global_mask() instead of projecting.
  bool frozen() const { return freezer_.frozen(); }
  // Checkpoints: z_i, z, u, v, the penalties, the global mask and the freeze state as
  // sections named "consensus/..."; load_state() restores them into a consensus built with the
  // same layout, spec and config, which then continues exactly as the saved one would have.
  void save_state(StateSections& s) const;
  void load_state(const StateSections& s);
  // A resume on another shape (nodes and ranks regrouped), after load_state of rank 0's
  // sections: every node variable restarts at the global consensus (z_i = z) and the duals at
  // zero, as at a fresh start from z; the penalties, the mask and the freeze state stay.
  void restart_from_consensus();
  // Pipelined buckets (hsadmm, hsadmm-rail): with several buckets, bucket b's inter-node
  // all-reduce is started (non-blocking) as soon as it is packed, so it runs while b + 1 is
  // packed, and bucket b is received and unpacked while b + 1 still travels.
  void set_pipelined(bool on) { pipelined_ = on && !flat(); }
  bool pipelined() const { return pipelined_; }
  // Bytes of all layout tensors in fp32: what the inter tier carries without shrinkage.
  int64_t dense_bytes() const { return n_ * 4; }

 private:
  // Returns the mask that compacted the payload (ConsensusStep::payload_mask).
  ModelMask inter_node_consensus(int k, const ModelMask& node_mask, PhaseTimer& timer);
  int64_t rail_slice(int b) const;
  char* rail_slice_ptr(int b);
  void rail_gather(int b);
  void rail_exchange(PhaseTimer& timer);
  void whole_exchange(const float* const* z, const float* const* v, float* const* out, float scale,
                      PhaseTimer& timer);
  void pipelined_exchange(const float* const* z, const float* const* v, float* const* out,
                          float scale, PhaseTimer& timer);
  // The plan's buckets in the wire type (hsadmm-rail: padded to P equal slices).
  // Whether this rank packs and sends the compact payload (payload_packers, engine/strategy.h).
  bool packs() const;
  void make_buckets();
  // A host byte vector through a collective in the communicator's memory space.
  void host_bytes_collective(std::vector<uint8_t>& bytes, bool unite);
  // Whether the mask was frozen after the iteration before the previous one (freeze_steps).
  bool frozen_two_back_ = false;
  float* at(const SpaceBuffer& b, int l) const { return b.as<float>() + offset_[l]; }
  std::vector<float> host_copy(const SpaceBuffer& b) const;
  void load_buffer(SpaceBuffer& b, const std::vector<float>& host);

  const ModelLayout& layout_;
  SparsitySpec spec_;
  HsadmmConfig cfg_;
  int64_t bucket_bytes_;
  Strategy strategy_;  // hsadmm, hsadmm-flat or hsadmm-rail
  bool flat() const { return strategy_ == Strategy::hsadmm_flat; }
  bool rail() const { return strategy_ == Strategy::hsadmm_rail; }
  Communicator& comm_;
  std::unique_ptr<ConsensusMath> math_;
  AdaptivePenalty penalty_;
  MaskFreezer freezer_;
  ModelMask global_mask_;
  std::vector<int64_t> offset_;  // per layer, then the total
  int64_t n_ = 0;
  SpaceBuffer u_, v_, zi_, zi_prev_, z_, z_prev_, buf_;
  SpaceBuffer sums_;   // residual partials
  SpaceBuffer bytes_;  // mask bits on their way through the communicator
  SpaceBuffer slice_;  // hsadmm-rail: this rank's summed slice, all-gathered
  std::unique_ptr<CompactionPlan> compaction_;  // for global_mask_; kept while the mask is frozen
  DType wire_ = DType::f32;
  bool pipelined_ = false;
};

}  // namespace prunex
