// HsadmmConsensus's inter-node exchange of the compact buckets: whole (pack everything,
// all-reduce bucket by bucket, unpack), pipelined (set_pipelined: each bucket's all-reduce
// after its pack, its unpack after its all-reduce) and hsadmm-rail's (each of a node's P ranks
// all-reduces one slice of every bucket across nodes, then the node all-gathers the slices).
#include <memory>

#include "engine/error.h"
#include "engine/hsadmm_consensus.h"
#include "engine/phases.h"
#include "engine/wire_dtype.h"

namespace prunex {

bool HsadmmConsensus::packs() const {
  return comm_.grouping().takes_part(payload_packers(strategy()), comm_.world_rank());
}

void HsadmmConsensus::make_buckets() {
  const int pad = rail() ? comm_.grouping().gpus_per_node : 1;  // rail: P equal slices
  math_->set_plan(compaction_.get(), pad, wire_);
}

// hsadmm-rail: local rank r's slice of bucket b (the bucket padded to P equal slices).
int64_t HsadmmConsensus::rail_slice(int b) const {
  return math_->bucket_padded(b) / comm_.grouping().gpus_per_node;
}
char* HsadmmConsensus::rail_slice_ptr(int b) {
  return static_cast<char*>(math_->bucket(b)) +
         comm_.local_rank() * rail_slice(b) * dtype_size(wire_);
}
// The node's ranks all-gather their summed slices of bucket b.
void HsadmmConsensus::rail_gather(int b) {
  const auto bytes = static_cast<int64_t>(rail_slice(b) * dtype_size(wire_));
  if (slice_.bytes() < bytes) slice_ = math_->memory().alloc(bytes);
  math_->memory().copy(slice_.as<void>(), rail_slice_ptr(b), bytes);
  comm_.allgather(slice_.as<void>(), math_->bucket(b), rail_slice(b), wire_, Group::intra);
}

// hsadmm-rail: every rank of a node holds the same packed buckets; local rank r sums slice r
// of each bucket across the nodes on rail r, then the node's ranks all-gather the slices.
void HsadmmConsensus::rail_exchange(PhaseTimer& timer) {
  timer.time(Phase::inter_allreduce, [&] {
    for (int b = 0; b < math_->buckets(); ++b)
      comm_.allreduce(rail_slice_ptr(b), rail_slice(b), wire_, ReduceOp::sum, Group::rail);
  });
  timer.fence(comm_);
  timer.time(Phase::allgather, [&] {
    for (int b = 0; b < math_->buckets(); ++b) rail_gather(b);
  });
}

// Phase 4 (leaders; hsadmm-rail: every rank) and the intra-node exchange that ends it.
ModelMask HsadmmConsensus::inter_node_consensus(int k, const ModelMask& node_mask,
                                                PhaseTimer& timer) {
  const int L = static_cast<int>(layout_.layers.size());
  const int M = comm_.grouping().nodes();
  std::vector<uint8_t> bits(global_mask_.bit_bytes());
  const bool was_frozen = freezer_.frozen();  // the same on every rank
  const bool frozen_two_back = frozen_two_back_;
  frozen_two_back_ = was_frozen;
  // mask_sync and build_compaction do not depend on this iteration's freezing.
  const FreezeSteps steps = freeze_steps(frozen_two_back, was_frozen, false);
  // Fences are called by every rank (they may barrier the world), so they stay outside the
  // leaders-only branches; one fence ends a phase and starts the next.
  if (steps.mask_sync) {
    timer.fence(comm_);
    if (!comm_.is_leader()) timer.reached(Phase::mask_sync);  // leaders: in time()
    if (comm_.is_leader()) {
      timer.time(Phase::mask_sync, [&] {
        node_mask.to_bits(bits.data());
        host_bytes_collective(bits, /*unite=*/true);
      });
      global_mask_.from_bits(bits.data(), bits.size());
    }
  }
  if (comm_.is_leader()) global_mask_.to_bits(bits.data());
  // Every rank of the node learns the union mask from its leader: followers need it to
  // unpack the compact buffers they receive.
  timer.fence(comm_);
  timer.time(Phase::broadcast, [&] { host_bytes_collective(bits, /*unite=*/false); });
  timer.fence(comm_);
  global_mask_.from_bits(bits.data(), bits.size());
  if (!was_frozen) freezer_.observe(k, bits);

  // Once the mask is frozen the compact shapes no longer change: the plan and its buckets
  // are built once and reused ("one-shot buffer allocation", paper section 4.5).
  if (steps.build_compaction) {
    timer.time(Phase::pack, [&] {
      compaction_ = std::make_unique<CompactionPlan>(layout_, global_mask_, bucket_bytes_);
      make_buckets();
    });
  }
  ModelMask payload_mask = global_mask_;
  std::vector<const float*> zp(L), vp(L);
  std::vector<float*> outp(L);
  for (int l = 0; l < L; ++l) {
    zp[l] = at(zi_, l);
    vp[l] = at(v_, l);
    outp[l] = at(z_, l);
  }
  // Eq. 11: the average of z_i + v_i over the M nodes, zeros outside the union mask.
  const float scale = 1.0f / static_cast<float>(M);
  if (pipelined_ && math_->buckets() >= 2)
    pipelined_exchange(zp.data(), vp.data(), outp.data(), scale, timer);
  else
    whole_exchange(zp.data(), vp.data(), outp.data(), scale, timer);
  if (freeze_steps(frozen_two_back, was_frozen, freezer_.frozen()).project_global) {
    // Retraining keeps the mask of the projected global z: identical on every rank (z is)
    // and exactly the configured keep rate, where the union of node masks (eq. 14) can keep
    // more groups while nodes still disagree.
    timer.time(Phase::projection,
               [&] { global_mask_ = math_->project(outp.data(), layout_, spec_); });
    math_->set_plan(nullptr, 1, wire_);
    compaction_.reset();  // built for the union mask; the frozen mask needs its own
  }
  return payload_mask;
}

// Pack every bucket, exchange them, unpack every bucket.
void HsadmmConsensus::whole_exchange(const float* const* z, const float* const* v,
                                     float* const* out, float scale, PhaseTimer& timer) {
  if (packs()) timer.time(Phase::pack, [&] { math_->pack(z, v, -1); });
  timer.fence(comm_);
  const int B = math_->buckets();
  if (rail()) {
    rail_exchange(timer);
  } else {
    if (!comm_.is_leader()) timer.reached(Phase::inter_allreduce);  // leaders: in time()
    if (comm_.is_leader()) {
      timer.time(Phase::inter_allreduce, [&] {
        for (int b = 0; b < B; ++b)
          comm_.allreduce(math_->bucket(b), math_->bucket_values(b), wire_, ReduceOp::sum,
                          Group::inter);
      });
    }
    timer.fence(comm_);
    timer.time(Phase::broadcast, [&] {
      for (int b = 0; b < B; ++b)
        comm_.broadcast(math_->bucket(b), math_->bucket_values(b), wire_, 0, Group::intra);
    });
  }
  timer.fence(comm_);
  timer.time(Phase::unpack, [&] { math_->unpack(out, scale, -1); });
}

// Bucket by bucket: b's non-blocking inter-node all-reduce starts once b is packed and runs
// while b + 1 is packed; then each bucket is waited for, spread inside the node and unpacked
// while the later ones travel. Phases time what is not hidden: the pack, the launch and the
// wait of each all-reduce, the intra-node step, the unpack. No fences inside (--sync-phases
// fences the pipeline as a whole).
void HsadmmConsensus::pipelined_exchange(const float* const* z, const float* const* v,
                                         float* const* out, float scale, PhaseTimer& timer) {
  const int B = math_->buckets();
  const bool sends = packs();
  // rail: slice r of each bucket on rail r; leaders: the whole bucket on the inter group.
  auto slice = [&](int b) { return rail() ? rail_slice(b) : math_->bucket_values(b); };
  auto slice_ptr = [&](int b) { return rail() ? rail_slice_ptr(b) : math_->bucket(b); };
  timer.fence(comm_);
  std::vector<std::unique_ptr<Work>> work(B);
  if (!sends) timer.reached(Phase::inter_allreduce);
  if (sends)
    for (int b = 0; b < B; ++b) {
      timer.time(Phase::pack, [&] { math_->pack(z, v, b); });
      timer.time(Phase::inter_allreduce, [&] {
        work[b] = comm_.allreduce_async(slice_ptr(b), slice(b), wire_, ReduceOp::sum,
                                        rail() ? Group::rail : Group::inter);
      });
    }
  for (int b = 0; b < B; ++b) {
    if (sends) timer.wait(Phase::inter_allreduce, [&] { work[b]->wait(); });
    if (rail()) {
      timer.time(Phase::allgather, [&] { rail_gather(b); });
    } else {
      timer.time(Phase::broadcast, [&] {
        comm_.broadcast(math_->bucket(b), math_->bucket_values(b), wire_, 0, Group::intra);
      });
    }
    timer.time(Phase::unpack, [&] { math_->unpack(out, scale, b); });
  }
  timer.fence(comm_);
}

}  // namespace prunex
