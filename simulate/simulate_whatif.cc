// The what-if options of simulate and sweep (docs/whatif.md) into a SimConfig.
#include <algorithm>
#include <cmath>
#include <random>

#include "engine/error.h"
#include "engine/text_parse.h"
#include "simulate/simulate_config.h"  // apply_what_if

namespace prunex::sim {

namespace {

// "a,b,c" -> items; empty text -> none; an empty item is an error naming `flag`.
std::vector<std::string> comma_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t from = 0;
  while (true) {
    const auto comma = text.find(',', from);
    out.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    PRUNEX_USAGE(!out.back().empty(), flag, ": empty item in '", text, "'");
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

}  // namespace

void apply_what_if(const SimulateConfig& cfg, const Topology& t, SimConfig& sim) {
  const int world = sim.nodes * sim.gpus_per_node;
  PRUNEX_USAGE(cfg.straggler_gpus.empty() || cfg.straggler_fraction == 0,
               "--straggler-gpus and --straggler-fraction exclude each other");
  std::vector<int> slow;
  for (const auto& g : comma_list(cfg.straggler_gpus, "--straggler-gpus")) {
    const int r = parse_int(g, "--straggler-gpus", 0, world - 1);
    PRUNEX_USAGE(std::find(slow.begin(), slow.end(), r) == slow.end(), "--straggler-gpus lists ", r,
                 " twice");
    slow.push_back(r);
  }
  if (cfg.straggler_fraction > 0) {
    const int count = std::max(1, static_cast<int>(std::lround(cfg.straggler_fraction * world)));
    std::vector<int> ranks(world);
    for (int r = 0; r < world; ++r) ranks[r] = r;
    std::mt19937_64 rng(static_cast<std::uint64_t>(cfg.straggler_seed));
    std::shuffle(ranks.begin(), ranks.end(), rng);
    slow.assign(ranks.begin(), ranks.begin() + count);
  }
  if (!slow.empty()) {
    sim.compute_factor.assign(world, 1.0);
    for (int r : slow) sim.compute_factor[r] = cfg.straggler_factor;
  }
  const int rails = std::max(1, t.nic.rails);
  for (const auto& item : comma_list(cfg.degrade_nic, "--degrade-nic")) {
    const auto eq = item.find('=');
    PRUNEX_USAGE(eq != std::string::npos, "--degrade-nic: '", item,
                 "' is not NODE[:RAIL]=FRACTION");
    const std::string where = item.substr(0, eq);
    const auto colon = where.find(':');
    SimConfig::NicDegrade d;
    d.node = parse_int(where.substr(0, colon), "--degrade-nic node", 0, sim.nodes - 1);
    if (colon != std::string::npos)
      d.rail = parse_int(where.substr(colon + 1), "--degrade-nic rail", 0, rails - 1);
    d.fraction = parse_double(item.substr(eq + 1), "--degrade-nic fraction");
    PRUNEX_USAGE(d.fraction > 0 && d.fraction <= 1,
                 "--degrade-nic: fraction must be in (0, 1], got '", item.substr(eq + 1), "'");
    // One fraction per rail: a rail named twice (or a node and one of its rails) would
    // compound the two.
    for (const auto& e : sim.degraded_nics)
      PRUNEX_USAGE(e.node != d.node || (e.rail != d.rail && e.rail >= 0 && d.rail >= 0),
                   "--degrade-nic: '", item, "' degrades a rail of node ", d.node,
                   " that an earlier item degrades already");
    sim.degraded_nics.push_back(d);
  }
  if (cfg.mtbf_hours > 0)
    PRUNEX_USAGE(cfg.checkpoint_seconds > 0 && cfg.restart_seconds > 0,
                 "--mtbf-hours needs --checkpoint-seconds and --restart-seconds (> 0): the time "
                 "to write a checkpoint and to restart from one");
}

}  // namespace prunex::sim
