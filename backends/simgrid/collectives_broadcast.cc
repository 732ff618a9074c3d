// Pipelined chain broadcast from the first member along the ring channels: n-1 latency
// terms, every chain edge carries S/C (C channels).
#include <algorithm>

#include "backends/simgrid/collectives.h"

namespace prunex::sim {

Schedule chain_broadcast(const std::vector<int>& members, const RankLayout& layout, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  const int root = members.front();
  const auto rings = ring_channels(members, layout);
  Phase phase;
  phase.latency_steps = n - 1;
  for (const auto& ring : rings) {
    const int start = static_cast<int>(std::find(ring.begin(), ring.end(), root) - ring.begin());
    for (int i = 0; i + 1 < n; ++i)
      phase.flows.push_back(
          {ring[(start + i) % n], ring[(start + i + 1) % n], bytes / rings.size()});
  }
  return {phase};
}

}  // namespace prunex::sim
