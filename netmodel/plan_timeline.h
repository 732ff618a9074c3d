// Where the steps of an IterationPlan fall in time, given each step's own duration: the model
// of how an iteration's steps overlap and wait, apart from any simulator (an executor measures
// or simulates each step on its own, then places them here).
//
// A step starts when the previous one ends, or, with overlap_with = j, once step j has run
// ready_fraction of its duration (and after the previous step if that one is not j itself:
// overlapped buckets queue on one stream, as in DDP), or, with `after`, once the listed steps
// have ended (pipelined buckets). start_delay_s (a framework's timer) comes on top of when the
// step could start, before an overlapped step queues behind the previous.
//
// Two mechanisms stretch the timeline (SimConfig's documentation has their sources):
// - synchronisation skew (SimConfig::sync_skew): the first collective after compute waits for
//   the last rank, sync_skew x e(world) x the compute since the ranks last synchronised /
//   sqrt(local steps per synchronisation); an overlapped bucket waits for the share of that
//   compute done when its gradients are ready;
// - interference (SimConfig::overlap_slowdown): while a collective overlaps a compute step, the
//   compute does 1 / slowdown of its work, so the compute step ends later by overlap x (1 - 1 /
//   slowdown) x the FLOPs' share of the step (its fixed seconds are not kernels a collective
//   slows).
#pragma once

#include <vector>

#include "engine/plan.h"
#include "netmodel/sim_config.h"

namespace prunex::sim {

// One step's own duration, as its executor measured it alone: seconds, and for a compute step
// each rank's own seconds (stragglers; empty for other steps: every member takes `seconds`).
struct StepDuration {
  double seconds = 0;
  std::vector<double> rank_seconds;
};

// What the timeline needs of a run's configuration.
struct TimelineModel {
  int world_size = 1;
  int gpus_per_node = 1;
  double sync_skew = 0;
  double overlap_slowdown = 1;
  double slowest_factor = 1;  // the slowest rank's compute factor (its fixed seconds too)
};
TimelineModel timeline_model(const SimConfig& cfg);

// The plan's steps placed in time (own[i] is step i's duration). UsageError on a plan whose
// step waits for or overlaps a step that is not before it, or whose ready_fraction is not in
// [0, 1].
PlanTiming place_on_timeline(const IterationPlan& plan, const std::vector<StepDuration>& own,
                             const TimelineModel& model);

}  // namespace prunex::sim
