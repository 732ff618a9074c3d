// An iteration plan: what happens in one outer iteration, decided once from the model
// layout, the masks (through the compaction plan), the strategy and the cluster shape.
// The live executor binds steps to tensors and a Communicator; the simulated executor turns
// them into SimGrid activities. Both report per-phase records with the same names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/phases.h"
#include "engine/types.h"

namespace prunex {

enum class StepKind {
  compute,     // flops on every participating rank
  memory,      // a pass over mem_bytes of device memory (pack, unpack, updates)
  collective,  // a collective on `group`
};

struct PlanStep {
  Phase phase = Phase::local_compute;
  StepKind kind = StepKind::compute;
  Group group = Group::world;  // which ranks take part (inter: leaders only)
  CollectiveOp op = CollectiveOp::allreduce;
  std::size_t bytes = 0;  // collective payload per rank (allgather: per-rank block)
  DType dtype = DType::f32;
  double flops = 0;  // compute steps, per rank
  // Compute steps: seconds per rank on top of the FLOPs that do not shrink with the batch (a
  // framework's fixed cost per local step: PlanInputs::step_overhead_s).
  double fixed_s = 0;
  double mem_bytes = 0;  // memory steps, per rank
  // Memory steps: the key of its calibrated speed (SimConfig::memory_Bps) when the step's
  // work is not like the rest of its phase (the compaction plan build inside pack, cgx's
  // quantization inside its reduction: compress); empty: the phase's.
  std::string memory_key;
  // The step may start when the step `overlap_with` (index) starts instead of when the
  // previous step ends; -1 = strictly after the previous step. DDP buckets use it.
  int overlap_with = -1;
  // Earliest start inside the overlapped step, as a fraction of its duration (DDP: a bucket
  // is ready when the backward pass has produced its gradients).
  double ready_fraction = 0;
  // The step starts this long after it could: a framework that starts collectives on a timer
  // (Horovod's background cycle, PlanInputs::cycle_wait_s) waits on average half a cycle.
  double start_delay_s = 0;
  // When not empty (and overlap_with is -1): the step starts once all these earlier steps
  // have ended, not after everything before it (pipelined buckets: bucket b's all-reduce
  // after its pack and the previous all-reduce, while bucket b + 1 is packed).
  std::vector<int> after;
  // Collectives: no compute step has run since the previous collective and the step does not
  // overlap compute (mark_warm(): H-SADMM's mask sync, inter-node all-reduce and broadcasts,
  // which follow communication and passes over the model; DDP's later buckets without
  // overlap). It costs what a bench of back-to-back collectives measures (calibrate
  // --from-warm), which can differ from the same collective right after compute
  // (docs/calibration.md).
  bool warm = false;
  // > 0: the step stands for point-to-point messages (cgx's reductions) whose flows the op
  // states (alltoall; a ring's hops as the ring all-gather that moves the same blocks), and
  // a rank records one send of these bytes (what it sends in the step) instead of the op.
  std::size_t sent_bytes = 0;
};

struct IterationPlan {
  std::vector<PlanStep> steps;
  // Collectives that run after the last step outside every phase timer (H-SADMM's residual
  // all-reduce): their bytes count in the records, their time does not.
  std::vector<PlanStep> untimed;
  // How many of these iterations make one epoch of the dataset.
  double iterations_per_epoch = 1;
  // Local steps each rank computes between two synchronisations (H-SADMM's local epochs; 1
  // for the strategies that synchronise every step): a rank's random delays over k steps add
  // up to sqrt(k) of one step's, relative to their sum 1 / sqrt(k) (SimConfig::sync_skew).
  double local_steps_per_sync = 1;
};

inline PlanStep compute_step(Phase phase, double flops, double fixed_s = 0) {
  PlanStep s;
  s.phase = phase;
  s.kind = StepKind::compute;
  s.flops = flops;
  s.fixed_s = fixed_s;
  return s;
}

inline PlanStep memory_step(Phase phase, double bytes) {
  PlanStep s;
  s.phase = phase;
  s.kind = StepKind::memory;
  s.mem_bytes = bytes;
  return s;
}

inline PlanStep collective_step(Phase phase, Group g, CollectiveOp op, int64_t bytes,
                                DType dtype = DType::f32) {
  PlanStep s;
  s.phase = phase;
  s.kind = StepKind::collective;
  s.group = g;
  s.op = op;
  s.bytes = static_cast<std::size_t>(bytes);
  s.dtype = dtype;
  return s;
}

}  // namespace prunex
