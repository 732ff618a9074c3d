// Ring all-gather: n-1 steps, each forwarding one block along every edge: one flow per edge
// carrying (n-1) blocks / C; latency (n-1)/n x the ring's hops.
#include "netmodel/collectives.h"

namespace prunex::sim {

Schedule ring_allgather(const std::vector<int>& members, const RankLayout& layout, double block) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || block <= 0) return {};
  const auto rings = ring_channels(members, layout);
  Round round;
  round.latency_steps = n - 1;
  round.chain_weight = (n - 1.0) / n;
  for (const auto& ring : rings) {
    round.latency_chains.emplace_back();
    for (int i = 0; i < n; ++i) {
      round.flows.push_back({ring[i], ring[(i + 1) % n], (n - 1) * block / rings.size()});
      round.latency_chains.back().emplace_back(ring[i], ring[(i + 1) % n]);
    }
  }
  return {round};
}

}  // namespace prunex::sim
