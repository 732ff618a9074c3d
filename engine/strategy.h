// The synchronisation strategies one engine runs, live or simulated.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/types.h"

namespace prunex {

enum class Strategy {
  hsadmm,       // hierarchical consensus ADMM with structured shrinkage (PruneX)
  hsadmm_flat,  // PruneX (AR): dense z all-reduced over the world, no leaders, no shrinkage
  hsadmm_rail,  // hsadmm with the compact all-reduce split over the node's ranks (one per rail)
  ddp,          // dense gradient all-reduce every step, 25 MiB buckets overlapped with backward
  topk,         // top-1% gradient entries per layer, all-gather, error feedback
  fp16,         // ddp with the buckets cast to fp16 for the all-reduce (PyTorch's fp16 hook)
  pactrain,     // pruned once, masked gradients, compact buckets once the mask is stable
  cgx,          // max-min quantized buckets, scatter-reduce-allgather and ring over send/recv
  powersgd,     // low-rank factors of each bucket's gradients (PyTorch's PowerSGD hook)
};

std::string_view strategy_name(Strategy s);
// Node-level consensus: the inter-node traffic runs on node groups (hsadmm: the leaders;
// hsadmm-rail: every rank on its rail); the others run their collectives over the world.
constexpr bool has_leaders(Strategy s) {
  return s == Strategy::hsadmm || s == Strategy::hsadmm_rail;
}
// Strategies that pack a compact payload for the inter-node all-reduce: the ones that take
// --wire-dtype and --pipeline-buckets.
constexpr bool packs_compact_payload(Strategy s) {
  return s == Strategy::hsadmm || s == Strategy::hsadmm_rail;
}
// Who packs the compact inter-node payload (and sends it): the node leaders (the inter group),
// or in hsadmm-rail every rank, each its slice. The plan's pack steps and the live exchange
// both ask here (NodeGrouping::takes_part).
constexpr Group payload_packers(Strategy s) {
  return s == Strategy::hsadmm_rail ? Group::world : Group::inter;
}
// Consensus ADMM strategies (masks, residuals, z); the others synchronise gradients every step.
constexpr bool is_consensus(Strategy s) {
  return s == Strategy::hsadmm || s == Strategy::hsadmm_flat || s == Strategy::hsadmm_rail;
}
// Strategies built on DDP's gradient buckets, all-reduced every step as backward produces
// them (ddp, fp16, pactrain; cgx and powersgd use the same buckets, reduced after backward).
constexpr bool uses_ddp_buckets(Strategy s) {
  return s == Strategy::ddp || s == Strategy::fp16 || s == Strategy::pactrain ||
         s == Strategy::cgx || s == Strategy::powersgd;
}
// Strategies whose collectives all run on the world group (cgx reduces on intra and inter).
constexpr bool synchronises_on_world(Strategy s) {
  return !has_leaders(s) && s != Strategy::cgx;
}
// Throws UsageError naming the unknown strategy and the valid ones.
Strategy parse_strategy(std::string_view name);
std::vector<Strategy> all_strategies();

}  // namespace prunex
