// Pipelined chain broadcast from the first member along the ring channels: latency the
// chain's n-1 hops, every chain edge carries S/C (C channels).
#include <algorithm>

#include "netmodel/collectives.h"

namespace prunex::sim {

Schedule chain_broadcast(const std::vector<int>& members, const RankLayout& layout, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  const int root = members.front();
  const auto rings = ring_channels(members, layout);
  Round round;
  round.latency_steps = n - 1;
  for (const auto& ring : rings) {
    const int start = static_cast<int>(std::find(ring.begin(), ring.end(), root) - ring.begin());
    round.latency_chains.emplace_back();
    for (int i = 0; i + 1 < n; ++i) {
      const int a = ring[(start + i) % n], b = ring[(start + i + 1) % n];
      round.flows.push_back({a, b, bytes / rings.size()});
      round.latency_chains.back().emplace_back(a, b);
    }
  }
  return {round};
}

}  // namespace prunex::sim
