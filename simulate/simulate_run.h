// `prunex simulate`: the engine's iteration plan (engine/plan_builder.h) on a modeled cluster
// (SimCluster), turned into the same RunRecord a live run writes (records/run_record.h).
//
// The plan is deterministic, so each distinct plan is simulated once: the un-frozen one, and
// the frozen one (no mask_sync) when t_freeze is set; iteration k > t_freeze uses the frozen
// one. ddp / topk plans are one local step, repeated plan_repeats() times per iteration (the
// records multiply times and bytes; the trace shows the first step of each iteration).
// Records follow the live conventions: per-rank phase seconds (overlapped DDP all-reduces
// count only their exposed part, as the live trainer times the wait after backward), bytes
// per tier as one rank's payload summed over calls (world strategies on > 1 node also count
// inter = world), dense_inter_bytes, densities of the pruned layers, mask_frozen.
// One SimCluster per process (SimGrid): call once per process, fork for more (fork_run.h).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "backends/simgrid/sim_cluster.h"
#include "engine/mask.h"
#include "engine/plan_builder.h"
#include "engine/simulated_masks.h"
#include "records/run_record.h"
#include "simulate/error_band.h"
#include "simulate/failures.h"
#include "topologies/topology.h"

namespace prunex::sim {

struct SimulateSpec {
  Topology topology;  // already holding >= nodes nodes (scale_to_nodes)
  SimConfig sim;      // nodes, gpus per node, network model, algorithm
  ModelLayout layout;
  PlanInputs plan;  // layout / global_mask / mask_frozen are set from the fields here
  ModelMask mask;   // hsadmm: global union mask; hsadmm-flat: the node mask (densities)
  // hsadmm replaying a live run: iteration k compacts with payload_masks.of(k); empty:
  // `mask` in every iteration.
  RecordedMasks payload_masks;
  int iterations = 60;
  int t_freeze = 0;  // the mask is frozen after this iteration (0: never)
  // Traced ranks: all up to this many ranks, else the first two nodes + the leaders of the
  // first max_trace_ranks nodes.
  int max_trace_ranks = 64;
  // Node failures (simulate --mtbf-hours): node_mtbf_s > 0 adds the expected time to train
  // with checkpoints (failures.h) to the result. interval_s 0: Daly's optimum.
  struct Failures {
    double node_mtbf_s = 0, interval_s = 0, checkpoint_s = 0, restart_s = 0;
  } failures;
  double memory_bytes = 0;  // estimated peak (footprint.h)
  // The suite rows this prediction resembles (error_band.h): the GPU speed is measured when a
  // --calibration gives compute.
  BandKey band_key;
  nlohmann::json config = nlohmann::json::object();  // recorded as given, plus the model
};

struct SimulationResult {
  RunRecord run;  // iterations and trace empty unless records were asked for
  double time_per_epoch_s = 0;
  double time_per_iteration_s = 0;  // mean over the iterations
  double run_s = 0;                 // the whole run, failure-free
  // The collectives' exposed time (beyond the steps placed before them) over the run's:
  // above 1/2 the network binds the prediction (error_band.h).
  double communication_share = 0;
  std::optional<FailureEstimate> failures;  // with spec.failures given
};

// spec.plan completed with the spec's layout, mask and shape: the inputs of its first
// iteration's plan (simulate_run varies the freeze state and the mask from there).
PlanInputs spec_plan_inputs(const SimulateSpec& spec);

SimulationResult simulate_run(const SimulateSpec& spec, bool records = true);

}  // namespace prunex::sim
