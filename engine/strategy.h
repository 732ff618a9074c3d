// The synchronisation strategies one engine runs, live or simulated.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace prunex {

enum class Strategy {
  hsadmm,       // hierarchical consensus ADMM with structured shrinkage (PruneX)
  hsadmm_flat,  // PruneX (AR): dense z all-reduced over the world, no leaders, no shrinkage
  ddp,          // dense gradient all-reduce every step, 25 MiB buckets overlapped with backward
  topk,         // top-1% gradient entries per layer, all-gather, error feedback
};

std::string_view strategy_name(Strategy s);
// Throws UsageError naming the unknown strategy and the valid ones.
Strategy parse_strategy(std::string_view name);
std::vector<Strategy> all_strategies();

}  // namespace prunex
