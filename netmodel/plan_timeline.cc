#include "netmodel/plan_timeline.h"

#include <algorithm>
#include <cmath>

#include "engine/error.h"
#include "engine/plan_builder.h"
#include "netmodel/order_stats.h"

namespace prunex::sim {
namespace {

// The synchronisation skew's bookkeeping: the compute the ranks did since they were last in
// step, and the wait for the last rank that it costs the next collective.
class SkewClock {
 public:
  SkewClock(const IterationPlan& plan, const TimelineModel& m)
      : per_s_(m.sync_skew > 0 ? m.sync_skew * expected_max_std_normal(m.world_size) /
                                     std::sqrt(std::max(1.0, plan.local_steps_per_sync))
                               : 0.0) {}

  // Compute steps and the layers' element-wise work (--compute-cost layers moves it out of the
  // compute step), not the optimizer's passes.
  void add_compute(double seconds) {
    if (collective_since_) unsynced_s_ = 0;
    collective_since_ = false;
    unsynced_s_ += seconds;
  }

  // The last rank's lateness before collective step i, in proportion to the compute done since
  // the ranks were last in step: all of it before a collective that follows compute, which
  // then has every rank in step; an overlapped bucket's gradients come when the overlapped
  // step has run its ready fraction, so it waits for the compute done by then, and the ranks
  // stay out of step until the next compute step.
  double wait_before(const IterationPlan& plan, std::size_t i,
                     const std::vector<StepDuration>& own) {
    const PlanStep& step = plan.steps[i];
    double done = unsynced_s_;
    if (step.overlap_with >= 0 && step.overlap_with < static_cast<int>(i) &&
        plan.steps[step.overlap_with].kind == StepKind::compute)
      done -= (1 - step.ready_fraction) * own[step.overlap_with].seconds;
    const double wait = per_s_ * std::max(0.0, done);
    if (step.overlap_with < 0) unsynced_s_ = 0;
    collective_since_ = true;
    return wait;
  }

 private:
  double per_s_;                   // the wait per second of unsynchronised compute
  double unsynced_s_ = 0;          // compute seconds since the ranks last synchronised
  bool collective_since_ = false;  // a collective ran since the last compute step
};

// Step i starts once every step it waits for has ended.
double start_after(const PlanStep& step, std::size_t i, const PlanTiming& timing) {
  PRUNEX_USAGE(step.overlap_with < 0, "plan step ", i, ": both after and overlap_with");
  double start = 0;
  for (int j : step.after) {
    PRUNEX_USAGE(j >= 0 && j < static_cast<int>(i), "plan step ", i, " (", phase_name(step.phase),
                 ") waits for step ", j, ", which is not before it");
    start = std::max(start, timing.steps[j].start_s + timing.steps[j].seconds);
  }
  return start;
}

// A bucket waits for its gradients (and its framework's timer), then for the bucket before it
// on the stream.
double start_overlapped(const PlanStep& step, std::size_t i, double wait_s,
                        const PlanTiming& timing) {
  PRUNEX_USAGE(step.overlap_with < static_cast<int>(i), "plan step ", i, " (",
               phase_name(step.phase), ") overlaps step ", step.overlap_with,
               ", which is not before it");
  PRUNEX_USAGE(step.ready_fraction >= 0 && step.ready_fraction <= 1, "plan step ", i,
               ": ready_fraction must be in [0, 1] (got ", step.ready_fraction, ")");
  const StepTiming& base = timing.steps[step.overlap_with];
  double start = base.start_s + step.ready_fraction * base.seconds + step.start_delay_s + wait_s;
  if (step.overlap_with != static_cast<int>(i) - 1) {
    const StepTiming& prev = timing.steps.back();
    start = std::max(start, prev.start_s + prev.seconds);
  }
  return start;
}

// Interference: while collective `st` runs inside compute step `base`, the compute does 1 /
// slowdown of its work, so `base` ends (overlap x (1 - 1 / slowdown)) later; later buckets'
// ready times scale with the longer step (the backward pass stretched). Only the FLOPs' share
// of the overlap stretches. Returns base's new end.
double stretch_overlapped(const PlanStep& compute, double own_s, const StepTiming& st,
                          StepTiming& base, PlanTiming& timing, const TimelineModel& m) {
  const double overlap =
      std::max(0.0, std::min(st.start_s + st.seconds, base.start_s + base.seconds) - st.start_s);
  const double flops_share =
      own_s > 0 ? std::clamp(1 - compute.fixed_s * m.slowest_factor / own_s, 0.0, 1.0) : 1.0;
  const double longer = overlap * flops_share * (1 - 1 / m.overlap_slowdown);
  base.seconds += longer;
  for (double& r : base.rank_seconds) r += r > 0 ? longer : 0;
  timing.phase_seconds[base.phase] += longer;
  return base.start_s + base.seconds;
}

}  // namespace

TimelineModel timeline_model(const SimConfig& cfg) {
  TimelineModel m;
  m.world_size = cfg.nodes * cfg.gpus_per_node;
  m.gpus_per_node = cfg.gpus_per_node;
  m.sync_skew = cfg.sync_skew;
  m.overlap_slowdown = cfg.overlap_slowdown;
  if (!cfg.compute_factor.empty())
    m.slowest_factor = *std::max_element(cfg.compute_factor.begin(), cfg.compute_factor.end());
  return m;
}

PlanTiming place_on_timeline(const IterationPlan& plan, const std::vector<StepDuration>& own,
                             const TimelineModel& m) {
  PRUNEX_CHECK(own.size() == plan.steps.size(), "a duration per plan step");
  PlanTiming timing;
  SkewClock skew(plan, m);
  const NodeGrouping grouping{m.world_size, m.gpus_per_node};
  double frontier = 0;  // end of everything placed so far
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& step = plan.steps[i];
    StepTiming st;
    st.phase = step.phase;
    st.seconds = own[i].seconds;
    if (step.kind == StepKind::compute ||
        (step.kind == StepKind::memory && step.memory_key == kElementwiseKey))
      skew.add_compute(st.seconds);
    const double wait = step.kind == StepKind::collective ? skew.wait_before(plan, i, own) : 0.0;
    if (!step.after.empty()) {
      st.start_s = start_after(step, i, timing) + (step.start_delay_s + wait);
    } else if (step.overlap_with < 0) {
      st.start_s = frontier + step.start_delay_s + wait;
    } else {
      st.start_s = start_overlapped(step, i, wait, timing);
      const PlanStep& overlapped = plan.steps[step.overlap_with];
      if (m.overlap_slowdown > 1 && overlapped.kind == StepKind::compute)
        frontier =
            std::max(frontier, stretch_overlapped(overlapped, own[step.overlap_with].seconds, st,
                                                  timing.steps[step.overlap_with], timing, m));
    }
    st.rank_seconds.assign(grouping.world_size, 0.0);
    for (int r = 0; r < grouping.world_size; ++r)
      if (takes_part(step, grouping, r))
        st.rank_seconds[r] = own[i].rank_seconds.empty() ? st.seconds : own[i].rank_seconds[r];
    frontier = std::max(frontier, st.start_s + st.seconds);
    timing.phase_seconds[st.phase] += st.seconds;
    timing.steps.push_back(std::move(st));
  }
  timing.iteration_seconds = frontier;
  return timing;
}

}  // namespace prunex::sim
