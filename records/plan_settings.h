// A run's settings as plan inputs, decided once: the config a run records (a live run's train
// config or a simulated run's simulate config, in canonical_config's spelling) mapped to the
// PlanInputs the plan builder takes. `prunex simulate` builds its plan through it, `prunex
// calibrate --steps` rebuilds a live run's plan through it, and the conformance tests check
// live iterations against plans built through it, so a setting that changes what an iteration
// sends (wire dtype, pipelining, DDP overlap, buckets, Top-K, PacTrain or CGX settings)
// reaches every one of them or none.
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

}  // namespace prunex
