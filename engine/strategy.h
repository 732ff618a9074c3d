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
// Node leaders carry the inter-node traffic (hsadmm); the others run over the world.
constexpr bool has_leaders(Strategy s) {
  return s == Strategy::hsadmm;
}
// Consensus ADMM strategies (masks, residuals, z); the others synchronise gradients every step.
constexpr bool is_consensus(Strategy s) {
  return s == Strategy::hsadmm || s == Strategy::hsadmm_flat;
}
// Throws UsageError naming the unknown strategy and the valid ones.
Strategy parse_strategy(std::string_view name);
std::vector<Strategy> all_strategies();

}  // namespace prunex
