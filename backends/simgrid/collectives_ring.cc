// Ring all-reduce (reduce-scatter + all-gather), NCCL-style multi-channel over the rails.
#include <algorithm>
#include <map>

#include "backends/simgrid/collectives.h"
#include "backends/simgrid/platform.h"

namespace prunex::sim {

std::vector<std::vector<int>> ring_channels(const std::vector<int>& members,
                                            const RankLayout& layout) {
  const int p = layout.gpus_per_node;
  std::vector<std::vector<int>> per_node;  // members grouped by node, in order
  for (int r : members) {
    if (per_node.empty() || per_node.back().front() / p != r / p) per_node.push_back({});
    per_node.back().push_back(r);
  }
  const std::size_t m = per_node.empty() ? 0 : per_node.front().size();
  bool uniform = per_node.size() > 1 && m > 1;
  for (const auto& node : per_node) uniform = uniform && node.size() == m;
  const int channels = uniform ? std::min(layout.rails, static_cast<int>(m)) : 1;
  if (channels <= 1) return {members};

  // Channel k enters a node at its first member on the k-th distinct rail its members use
  // (or spread when there are fewer), so entries, and the exits before them, hold distinct
  // NICs. (Looking for rail k itself failed with more rails than members: 3 GPUs on rails
  // 0, 2, 5 of 8 sent channels 1 and 2 through the same NIC.)
  std::vector<std::vector<int>> rings(channels);
  for (const auto& node : per_node) {
    std::map<int, std::size_t> first_on_rail;  // ascending rails, the first member on each
    for (std::size_t i = 0; i < m; ++i)
      first_on_rail.emplace(rail_of_gpu(node[i] % p, p, layout.rails), i);
    auto entry = first_on_rail.begin();
    for (int k = 0; k < channels; ++k) {
      // Fewer distinct rails than channels (members a subset of a node's GPUs): spread.
      const std::size_t start = entry != first_on_rail.end() ? (entry++)->second : k * m / channels;
      for (std::size_t i = 0; i < m; ++i) rings[k].push_back(node[(start + i) % m]);
    }
  }
  return rings;
}

// n ranks, 2(n-1) steps of S/n per edge per channel: one flow per edge carrying
// 2(n-1)/n x S/C, all edges of all channels at once.
Schedule ring_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  const auto rings = ring_channels(members, layout);
  const double per_edge = 2.0 * (n - 1) / n * bytes / rings.size();
  Phase phase;
  phase.latency_steps = 2 * (n - 1);
  for (const auto& ring : rings)
    for (int i = 0; i < n; ++i) phase.flows.push_back({ring[i], ring[(i + 1) % n], per_edge});
  return {phase};
}

}  // namespace prunex::sim
