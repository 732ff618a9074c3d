// Builds the IterationPlan of one outer iteration: the collectives the live strategies make
// (engine/hsadmm_consensus.cc, workloads/train/{ddp,topk}_strategy.cc), decided by the same
// engine functions they call (ddp_buckets.h, topk_selection.h, freeze_steps in mask_freeze.h,
// CompactionPlan), plus compute and memory passes sized from the layer tables. One file per
// strategy: plan_hsadmm.cc (hsadmm, hsadmm-rail, hsadmm-flat), plan_ddp.cc, plan_topk.cc,
// plan_fp16.cc, plan_pactrain.cc, plan_cgx.cc. The conformance tests
// (tests/conformance/) check, iteration by iteration, that a live run's collectives
// are plan_calls() of its plan.
//
// Cost model (every factor stated here, nothing calibrated in this file):
// - Compute per sample = 3 x forward FLOPs per sample: the backward pass
//   costs about twice the forward (gradients w.r.t. activations and weights), the usual rule
//   (Kaplan et al. 2020, "Scaling laws", sec. 2.1). Its speed is the topology's effective
//   FLOP/s (fp32 peak x efficiency, a calibration value with its source in the preset).
// - Local steps per epoch = ceil(ceil(samples / world) / batch): each rank trains on its
//   shard of the training set (workloads/data shard()); a step computes shard / steps
//   samples on average (the last batch of an epoch is partial, and on large clusters the
//   shard is smaller than one batch: simulate notes it, and refuses --local-steps then),
//   so an epoch computes 3 x forward x shard FLOPs.
// - Memory passes, D = dense fp32 bytes of all layout tensors, C = compact bytes:
//   SGD step with momentum 5D (read w, g, m; write w, m), proximal term 5D (hsadmm, per
//   step), theta + u 3D and params_to_flat 2D, node candidate 4D, projection 1D (one pass
//   over the parameters), pack 3C (read z_i, v_i slices, write the buckets), unpack C + D
//   (zeros outside the mask), compaction plan build 2C (a loop over the kept elements, zeroed
//   buckets; while the mask changes), duals after the consensus 24D as the leaders stream it
//   (update_v 4D and update_u 4D: read 3, write 1; the residual sums read theta - z_i, theta,
//   z_i, z_i - z_i_prev, u: 7D, and z_i - z, z_i, z, z_i - z_prev, z - z_prev, v: 9D; flat:
//   11D, no v and no inter-node sums). The penalty rescale of u and v runs only when rho
//   changes (residual balancing; data-dependent) and is not counted; the copies of z_i and z
//   before the candidate run outside every phase timer, as the residual all-reduce does.
// - hsadmm / hsadmm-flat: one iteration = local_epochs epochs of steps (one compute step
//   and one memory step for all of them) followed by the consensus.
// - Untimed (IterationPlan::untimed): the world SUM of the residual partial sums
//   (HsadmmConsensus::step, L x 13 doubles) after the last step. Live runs leave it outside
//   every phase timer; simulated records count its bytes but not its time (a KB-sized
//   all-reduce; on a 16384-rank ring its 2(n-1) latency terms would dominate, which NCCL
//   avoids with trees).
// - Per-layer compute (PlanInputs::layer_compute, simulate --compute-cost layers; off by
//   default, docs/simulation.md has the suite's verdict): the matrix products (convolutions
//   and linear layers: 3 x their forward FLOPs) at the effective FLOP/s, and the element-wise
//   layers as passes over their outputs at memory bandwidth, in a memory step before the
//   forward pass. Passes per value in a training step, PyTorch's eager kernels: batch norm 8
//   (forward: read for the statistics, read and write to normalise; backward: read dy and x
//   for the reductions, read both again and write dx) and the ReLU after it 5 (forward read and
//   write in place; backward read dy and y, write dx). Models without batch norm (VGG,
//   AlexNet): a ReLU on every convolution's output. Pooling, residual adds and the ReLUs of
//   linear layers are not counted, nor batch norms without a ReLU (MobileNet's projections).
//   Values of PlanInputs::activation_bytes each (4; 2 under AMP).
// - ddp / topk: the plan is ONE local step (they synchronise every step); an iteration is
//   steps_per_iteration() copies of it, which the caller multiplies (the steps are identical).
#pragma once

#include <cstdint>

#include "engine/communicator.h"
#include "engine/compaction.h"
#include "engine/ddp_buckets.h"
#include "engine/layer_layout.h"
#include "engine/mask.h"
#include "engine/plan.h"
#include "engine/run_settings.h"
#include "engine/strategy.h"
#include "engine/topk_selection.h"

namespace prunex {

// The memory_key of the compaction plan build (pack phase): allocation-bound, not like a pack.
inline constexpr const char* kCompactionPlanKey = "compaction_plan";
constexpr long kCifar10TrainSamples = 50000;  // CIFAR-10 training set (Krizhevsky 2009)

struct PlanInputs {
  const ModelLayout* layout = nullptr;
  // The run's settings: strategy, batch, local epochs or steps, and each strategy's part
  // (engine/run_settings.h); the masks and the freeze state below are the caller's.
  RunSettings run;
  int nodes = 1;
  int gpus_per_node = 1;
  long samples = kCifar10TrainSamples;
  // ddp: a bucket's all-reduce starts as its gradients are ready, overlapping the rest of the
  // backward pass. false: all buckets after backward (a live run's --sync-phases).
  bool ddp_overlap = true;
  // hsadmm: the global (union) mask of the iteration; compact sizes and the mask bits come
  // from it through CompactionPlan and ModelMask::bit_bytes, as in live runs.
  const ModelMask* global_mask = nullptr;
  bool mask_frozen = false;  // frozen: no mask_sync (the union is not recomputed)
  // hsadmm: this iteration (re)builds the compaction plan and its buckets, as live runs do
  // while the mask is not frozen and once more in the first frozen iteration.
  bool build_compaction = true;
  // hsadmm: the iteration that freezes the mask projects the global z once more.
  bool project_global = false;
  // ddp and the bucketed peers: the framework's per-step overhead (PyTorch DDP's autograd
  // hooks, bucket views and copies, kernel launches) as passes over the fp32 gradients at
  // memory bandwidth, after the backward pass (simulate --ddp-overhead-passes; prunex's own
  // trainer: 0).
  double framework_passes = 0;
  // Per-layer compute (see the header): matrix FLOPs at the GPU's rate, element-wise layers'
  // passes of activation_bytes per value at memory bandwidth. false: 3 x all forward FLOPs.
  bool layer_compute = false;
  int activation_bytes = 4;
  // ddp and fp16 under a framework that starts its collectives on a timer (Horovod's
  // HOROVOD_CYCLE_TIME, simulate --horovod-cycle-ms): every bucket's all-reduce waits this long
  // after its gradients are ready, half a cycle on average (without ddp_overlap: the first
  // bucket only, as one tick starts them all). Not at world size 1: Horovod's
  // DistributedOptimizer does not all-reduce then. 0: none (PyTorch DDP, prunex's trainer).
  double cycle_wait_s = 0;
  // Seconds each local step costs beyond its FLOPs that do not shrink with the batch (kernel
  // launches, kernels too small to fill the GPU; simulate --step-overhead-ms), spread over
  // the forward (1/3) and backward (2/3) passes in proportion to their FLOPs. 0: none.
  double step_overhead_s = 0;
};

int world_size(const PlanInputs& in);
// Local SGD steps one GPU takes per epoch of the training set.
long steps_per_epoch(const PlanInputs& in);
// Local steps one GPU takes per outer iteration: local_steps, or local_epochs epochs.
long steps_per_iteration(const PlanInputs& in);
// How many times the plan runs per outer iteration: 1 for hsadmm strategies, steps per epoch
// x local epochs for ddp / topk.
long plan_repeats(const PlanInputs& in);
// Samples one GPU trains on per epoch: ceil(samples / world).
long shard_samples(const PlanInputs& in);
// Samples one (average) local step on one GPU computes: shard / steps per epoch, or
// min(batch, shard) with local_steps.
double step_samples(const PlanInputs& in);
// FLOPs of one (average) local step on one GPU: 3 x forward x step_samples (layer_compute:
// the matrix products' forward FLOPs only).
double step_flops(const PlanInputs& in);
// layer_compute: bytes the element-wise layers of one local step move (0 otherwise).
double step_elementwise_bytes(const PlanInputs& in);
// The memory_key of that traffic (a calibration without it runs it at local_compute's speed).
inline constexpr const char* kElementwiseKey = "elementwise";

// Bytes of the per-iteration residual all-reduce of the hsadmm strategies (world, f64).
int64_t residual_allreduce_bytes(const ModelLayout& layout);

// UsageError on bad inputs (no layout, non-positive sizes, hsadmm without a mask).
IterationPlan build_plan(const PlanInputs& in);

// Sets mask_frozen, build_compaction and project_global for an outer iteration k from
// freeze_steps() (engine/mask_freeze.h), as the live consensus runs it, given whether the
// mask was frozen after iterations k - 2, k - 1 and k.
void set_freeze_state(PlanInputs& in, bool frozen_after_k2, bool frozen_after_k1,
                      bool frozen_after_k);

// Whether world_rank works in `step`: compute steps run on every rank; memory and collective
// steps on the members of the step's group (pack: the payload packers, a leader-only
// collective: the leaders). plan_calls(), plan_phases(), the SimGrid executor and simulate's
// per-rank records all ask here.
bool takes_part(const PlanStep& step, const NodeGrouping& grouping, int world_rank);

// The collectives world_rank makes in one run of the plan, in order (its collective steps
// on groups it belongs to, then the untimed ones): what Communicator::calls() records live.
std::vector<CallRecord> plan_calls(const IterationPlan& plan, const NodeGrouping& grouping,
                                   int world_rank);

// The phases world_rank works in during `repeats` runs of the plan, in order, with a phase
// that consecutive steps share named once (a DDP step's compute, its buckets and its SGD step
// are local_compute, allreduce, local_compute): what the phases a live rank times
// (PhaseTimer::add) show in the same order. Untimed steps have no phase.
std::vector<Phase> plan_phases(const IterationPlan& plan, const NodeGrouping& grouping,
                               int world_rank, long repeats = 1);

}  // namespace prunex
