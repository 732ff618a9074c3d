// An IterationPlan in simulated time. Each step is simulated on its own (compute as
// executions on every GPU host plus the step's fixed seconds, memory passes as sleeps,
// collectives as flows), then placed on the timeline: a step starts when the previous one
// ends, or, with overlap_with = j, once step j has run ready_fraction of its duration (and
// after the previous step if that one is not j itself: overlapped buckets queue on one
// stream, as in DDP), or, with `after`, once the listed steps have ended (pipelined buckets).
// start_delay_s (a framework's timer) comes on top of when the step could start, before an
// overlapped step queues behind the previous. Synchronisation skew (SimConfig::sync_skew) delays
// the first collective after compute, and each overlapped bucket by the share of that compute done
// when it is ready: the wait for the last rank.
#include <algorithm>
#include <cmath>

#include "backends/simgrid/sim_cluster.h"
#include "engine/error.h"
#include "engine/plan_builder.h"
#include "netmodel/collectives.h"
#include "netmodel/order_stats.h"

namespace prunex::sim {

PlanTiming SimCluster::run_plan(const IterationPlan& plan) {
  const SimConfig& cfg = config();
  PlanTiming timing;
  timing.network_model = model_description();
  double frontier = 0;  // end of everything placed so far
  // The wait for the last rank per second of compute since the ranks last synchronised.
  const double skew_per_s =
      cfg.sync_skew > 0
          ? cfg.sync_skew *
                expected_max_std_normal(static_cast<long>(cfg.nodes) * cfg.gpus_per_node) /
                std::sqrt(std::max(1.0, plan.local_steps_per_sync))
          : 0.0;
  double unsynced_s = 0;          // compute seconds since the ranks last synchronised
  bool collective_since = false;  // a collective ran since the last compute step
  std::vector<double> own_s;      // each step's own duration, before interference stretches it
  // The slowest rank's factor (a straggler's), which its fixed seconds take too.
  const double slowest_factor =
      cfg.compute_factor.empty()
          ? 1.0
          : *std::max_element(cfg.compute_factor.begin(), cfg.compute_factor.end());
  // Compute for the skew: compute steps and the element-wise work of the layers
  // (--compute-cost layers moves it out of the compute step), not the optimizer's passes.
  const auto add_compute = [&](double seconds) {
    if (collective_since) unsynced_s = 0;
    collective_since = false;
    unsynced_s += seconds;
  };
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    StepTiming st;
    st.phase = step.phase;
    std::vector<double> compute_ranks;  // each rank's own compute time (stragglers)
    switch (step.kind) {
      case StepKind::compute:
        compute_ranks = run_compute_ranks(step.flops, step.fixed_s);
        st.seconds = compute_ranks.empty()
                         ? 0.0
                         : *std::max_element(compute_ranks.begin(), compute_ranks.end());
        add_compute(st.seconds);
        break;
      case StepKind::memory:
        st.seconds =
            run_memory(step.mem_bytes, std::string(phase_name(step.phase)), step.memory_key);
        if (step.memory_key == kElementwiseKey) add_compute(st.seconds);
        break;
      case StepKind::collective:
        st.seconds =
            run_collective(step.op, cfg.plan_algo, step.group, step.bytes, step.warm).seconds;
        break;
    }
    // The last rank's lateness, in proportion to the compute done since the ranks were last in
    // step: all of it before a collective that follows compute, which then has every rank in
    // step; an overlapped bucket's gradients come when the overlapped step has run its ready
    // fraction, so it waits for the compute done by then, and the ranks stay out of step until
    // the next compute step.
    own_s.push_back(st.seconds);
    double skew_wait = 0;
    if (step.kind == StepKind::collective) {
      double done = unsynced_s;
      if (step.overlap_with >= 0 && step.overlap_with < static_cast<int>(i) &&
          plan.steps[step.overlap_with].kind == StepKind::compute)
        done -= (1 - step.ready_fraction) * own_s[step.overlap_with];
      skew_wait = skew_per_s * std::max(0.0, done);
      if (step.overlap_with < 0) unsynced_s = 0;
      collective_since = true;
    }
    if (!step.after.empty()) {
      PRUNEX_USAGE(step.overlap_with < 0, "plan step ", i, ": both after and overlap_with");
      st.start_s = 0;
      for (int j : step.after) {
        PRUNEX_USAGE(j >= 0 && j < static_cast<int>(i), "plan step ", i, " (",
                     phase_name(step.phase), ") waits for step ", j, ", which is not before it");
        st.start_s = std::max(st.start_s, timing.steps[j].start_s + timing.steps[j].seconds);
      }
      st.start_s += step.start_delay_s + skew_wait;
    } else if (step.overlap_with < 0) {
      st.start_s = frontier + step.start_delay_s + skew_wait;
    } else {
      PRUNEX_USAGE(step.overlap_with < static_cast<int>(i), "plan step ", i, " (",
                   phase_name(step.phase), ") overlaps step ", step.overlap_with,
                   ", which is not before it");
      PRUNEX_USAGE(step.ready_fraction >= 0 && step.ready_fraction <= 1, "plan step ", i,
                   ": ready_fraction must be in [0, 1] (got ", step.ready_fraction, ")");
      StepTiming& base = timing.steps[step.overlap_with];
      // A bucket waits for its gradients (and its framework's timer), then for the bucket
      // before it on the stream.
      st.start_s =
          base.start_s + step.ready_fraction * base.seconds + step.start_delay_s + skew_wait;
      if (step.overlap_with != static_cast<int>(i) - 1) {
        const StepTiming& prev = timing.steps.back();
        st.start_s = std::max(st.start_s, prev.start_s + prev.seconds);
      }
      // Interference: while this collective runs inside the compute step, the compute does
      // 1 / slowdown of its work, so the step ends (overlap x (1 - 1 / slowdown)) later.
      // Later buckets' ready times scale with the longer step (the backward pass stretched).
      // The step's fixed seconds (launches, idle gaps) are not kernels the collective slows:
      // only the FLOPs' share of the overlap stretches.
      const PlanStep& overlapped = plan.steps[step.overlap_with];
      if (cfg.overlap_slowdown > 1 && overlapped.kind == StepKind::compute) {
        const double overlap = std::max(
            0.0, std::min(st.start_s + st.seconds, base.start_s + base.seconds) - st.start_s);
        const double own = own_s[step.overlap_with];
        const double flops_share =
            own > 0 ? std::clamp(1 - overlapped.fixed_s * slowest_factor / own, 0.0, 1.0) : 1.0;
        const double longer = overlap * flops_share * (1 - 1 / cfg.overlap_slowdown);
        base.seconds += longer;
        for (double& r : base.rank_seconds) r += r > 0 ? longer : 0;
        timing.phase_seconds[base.phase] += longer;
        frontier = std::max(frontier, base.start_s + base.seconds);
      }
    }
    const NodeGrouping grouping{cfg.nodes * cfg.gpus_per_node, cfg.gpus_per_node};
    st.rank_seconds.assign(grouping.world_size, 0.0);
    for (int r = 0; r < grouping.world_size; ++r)
      if (takes_part(step, grouping, r))
        st.rank_seconds[r] = compute_ranks.empty() ? st.seconds : compute_ranks[r];
    frontier = std::max(frontier, st.start_s + st.seconds);
    timing.phase_seconds[st.phase] += st.seconds;
    timing.steps.push_back(std::move(st));
  }
  timing.iteration_seconds = frontier;
  return timing;
}

}  // namespace prunex::sim
