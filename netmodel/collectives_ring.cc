// Ring all-reduce (reduce-scatter + all-gather), NCCL-style multi-channel over the rails.
#include <algorithm>
#include <map>

#include "netmodel/collectives.h"
#include "topologies/fabric_layout.h"

namespace prunex::sim {

namespace {

// Depth-first search for channel paths through one node whose directed GPU-to-GPU arcs
// carry at most `max_load` channels each. Channel k starts at entries[k] and visits every
// member; its last member (the exit) must be unused as an exit so far and on a rail with a
// free exit slot (`exit_slots`, the entries' rails), so every NIC carries as many channels
// out as in. Next members are tried in cyclic order from the current one, so at loose
// bounds the first layout found is the rotated one.
class PathSearch {
 public:
  PathSearch(const std::vector<int>& rails, const std::vector<int>& entries, int max_load)
      : m_(static_cast<int>(rails.size())),
        rails_(rails),
        entries_(entries),
        max_load_(max_load),
        load_(static_cast<std::size_t>(m_) * m_, 0),
        used_(m_, false),
        is_exit_(m_, false) {
    for (int e : entries) ++exit_slots_[rails[e]];
  }

  bool run(std::vector<std::vector<int>>& paths) {
    paths_.assign(entries_.size(), {});
    if (!channel(0)) return false;
    paths = paths_;
    return true;
  }

 private:
  static constexpr long kBudget = 1'000'000;  // search steps; beyond, a looser bound

  bool channel(std::size_t k) {
    if (k == entries_.size()) return true;
    std::fill(used_.begin(), used_.end(), false);
    paths_[k] = {entries_[k]};
    used_[entries_[k]] = true;
    return extend(k);
  }

  bool extend(std::size_t k) {
    if (++steps_ > kBudget) return false;
    auto& path = paths_[k];
    const int cur = path.back();
    if (static_cast<int>(path.size()) == m_) {
      auto slot = exit_slots_.find(rails_[cur]);
      if (is_exit_[cur] || slot == exit_slots_.end() || slot->second == 0) return false;
      is_exit_[cur] = true;
      --slot->second;
      const std::vector<bool> used = used_;
      if (channel(k + 1)) return true;
      used_ = used;
      ++slot->second;
      is_exit_[cur] = false;
      return false;
    }
    for (int d = 1; d < m_; ++d) {
      const int next = (cur + d) % m_;
      int& arc = load_[static_cast<std::size_t>(cur) * m_ + next];
      if (used_[next] || arc >= max_load_) continue;
      ++arc;
      used_[next] = true;
      path.push_back(next);
      if (extend(k)) return true;
      path.pop_back();
      used_[next] = false;
      --arc;
    }
    return false;
  }

  int m_;
  const std::vector<int>& rails_;
  const std::vector<int>& entries_;
  int max_load_;
  std::vector<int> load_;  // channels per directed arc, m x m
  std::vector<bool> used_, is_exit_;
  std::map<int, int> exit_slots_;
  std::vector<std::vector<int>> paths_;
  long steps_ = 0;
};

}  // namespace

NodeChannelPaths node_channel_paths(const std::vector<int>& rails, int channels, bool pair_links) {
  const int m = static_cast<int>(rails.size());
  NodeChannelPaths out;
  if (m == 0 || channels < 1) return out;
  // Channel k enters at the first member on the k-th distinct rail of the members (or spread
  // when there are fewer), so entries, and the exits before them, hold distinct NICs.
  // (Looking for rail k itself failed with more rails than members: 3 GPUs on rails 0, 2, 5
  // of 8 sent channels 1 and 2 through the same NIC.)
  std::map<int, int> first_on_rail;  // ascending rails, the first member on each
  for (int i = 0; i < m; ++i) first_on_rail.emplace(rails[i], i);
  std::vector<int> entries;
  auto it = first_on_rail.begin();
  for (int k = 0; k < channels; ++k)
    entries.push_back(it != first_on_rail.end() ? (it++)->second : k * m / channels);

  // Links per GPU pair: search for the layout with the fewest channels per directed pair
  // link, as NCCL's ring search looks for channels over distinct NVLinks.
  if (pair_links && m > 2)
    for (int load = 1; load < channels; ++load)
      if (PathSearch(rails, entries, load).run(out.paths)) {
        out.arc_load = load;
        return out;
      }
  // Switch ports (or no better layout): the rotated order, entering at each entry; each
  // channel's exit is the member before its entry.
  for (int e : entries) {
    out.paths.emplace_back();
    for (int i = 0; i < m; ++i) out.paths.back().push_back((e + i) % m);
  }
  std::map<std::pair<int, int>, int> load;
  for (const auto& path : out.paths)
    for (std::size_t i = 0; i + 1 < path.size(); ++i)
      out.arc_load = std::max(out.arc_load, ++load[{path[i], path[i + 1]}]);
  return out;
}

std::vector<std::vector<int>> members_by_node(const std::vector<int>& members, int gpus_per_node) {
  std::vector<std::vector<int>> per_node;
  for (int r : members) {
    if (per_node.empty() || per_node.back().front() / gpus_per_node != r / gpus_per_node)
      per_node.push_back({});
    per_node.back().push_back(r);
  }
  return per_node;
}

bool whole_nodes(const std::vector<std::vector<int>>& per_node) {
  bool uniform = per_node.size() > 1 && per_node.front().size() > 1;
  for (const auto& node : per_node) uniform = uniform && node.size() == per_node.front().size();
  return uniform;
}

std::vector<std::vector<std::vector<int>>> node_channel_orders(
    const std::vector<std::vector<int>>& per_node, const RankLayout& layout, int channels) {
  // One layout per distinct set of local members (whole nodes: one for all, as NCCL
  // replicates one node's search result).
  const int p = layout.gpus_per_node;
  std::vector<std::vector<std::vector<int>>> out;
  std::vector<int> rails, last_rails;
  NodeChannelPaths paths;
  for (const auto& node : per_node) {
    rails.clear();
    for (int r : node) rails.push_back(rail_of_gpu(r % p, p, layout.rails));
    if (rails != last_rails || paths.paths.empty())
      paths = node_channel_paths(rails, channels, layout.pair_links);
    last_rails = rails;
    out.emplace_back(channels);
    for (int k = 0; k < channels; ++k)
      for (int i : paths.paths[k]) out.back()[k].push_back(node[i]);
  }
  return out;
}

std::vector<std::vector<int>> ring_channels(const std::vector<int>& members,
                                            const RankLayout& layout) {
  const auto per_node = members_by_node(members, layout.gpus_per_node);
  const int channels =
      whole_nodes(per_node) ? std::min(layout.rails, static_cast<int>(per_node.front().size())) : 1;
  if (channels <= 1) return {members};
  std::vector<std::vector<int>> rings(channels);
  for (const auto& node : node_channel_orders(per_node, layout, channels))
    for (int k = 0; k < channels; ++k)
      rings[k].insert(rings[k].end(), node[k].begin(), node[k].end());
  return rings;
}

// n ranks, 2(n-1) steps of S/n per edge per channel: one flow per edge carrying
// 2(n-1)/n x S/C, all edges of all channels at once; latency 2(n-1)/n x the ring's hops.
Schedule ring_allreduce(const std::vector<int>& members, const RankLayout& layout, double bytes) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || bytes <= 0) return {};
  const auto rings = ring_channels(members, layout);
  const double per_edge = 2.0 * (n - 1) / n * bytes / rings.size();
  Round round;
  round.latency_steps = 2 * (n - 1);
  round.chain_weight = 2.0 * (n - 1) / n;
  for (const auto& ring : rings) {
    round.latency_chains.emplace_back();
    for (int i = 0; i < n; ++i) {
      round.flows.push_back({ring[i], ring[(i + 1) % n], per_edge});
      round.latency_chains.back().emplace_back(ring[i], ring[(i + 1) % n]);
    }
  }
  return {round};
}

}  // namespace prunex::sim
