// A run's settings as plan inputs, decided once: a run's RunSettings (engine/run_settings.h)
// and shape as the PlanInputs the plan builder takes (`prunex simulate` builds its plan
// through plan_inputs), and the config a run records (a live run's train config or a
// simulated run's simulate config, in canonical_config's spelling) read back into them
// (`prunex calibrate --steps` rebuilds a live run's plan through plan_inputs_of_config, and
// the conformance tests check live iterations against plans built through it), so a setting
// that changes what an iteration sends reaches every one of them or none.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/plan_builder.h"

namespace prunex {

// Strategy, shape (nodes, gpus-per-node), batch, samples, local epochs / steps, DDP overlap
// (simulate's ddp-overlap, or train's sync-phases negated), bucket-mib, bucket-cap-mb, wire-dtype,
// pipeline-buckets, topk-ratio, prune-ratio, ternary, bits, bucket-size. Keys a run of an
// older version did not record take PlanInputs' defaults; strategy, nodes, gpus-per-node,
// batch and samples are required. The layout, masks and freeze state are the caller's.
// UsageError naming `where` and the key when one is missing or not a value of its kind.
PlanInputs plan_inputs_of_config(const nlohmann::json& config, const std::string& where);

// The plan inputs of a run of `run` on nodes x gpus_per_node GPUs over `samples` per epoch.
// The layout, masks and freeze state are the caller's.
PlanInputs plan_inputs(const RunSettings& run, int nodes, int gpus_per_node, long samples,
                       bool ddp_overlap);

}  // namespace prunex
