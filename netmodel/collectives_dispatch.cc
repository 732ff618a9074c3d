// Groups to communicators, and (op, algo) to the algorithm files.
#include <algorithm>

#include "engine/error.h"
#include "netmodel/collectives.h"

namespace prunex::sim {

std::vector<std::vector<int>> group_members(Group g, const RankLayout& layout) {
  return layout.grouping().groups(g);
}

namespace {

Schedule merge_concurrent(const std::vector<Schedule>& schedules) {
  Schedule out;
  for (const auto& s : schedules)
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (out.size() <= i) out.emplace_back();
      out[i].latency_steps = std::max(out[i].latency_steps, s[i].latency_steps);
      out[i].flows.insert(out[i].flows.end(), s[i].flows.begin(), s[i].flows.end());
      // Communicators of one group have the same size, so the same chain weight.
      out[i].chain_weight = s[i].chain_weight;
      out[i].nccl_tree_hops = s[i].nccl_tree_hops;
      out[i].latency_chains.insert(out[i].latency_chains.end(), s[i].latency_chains.begin(),
                                   s[i].latency_chains.end());
    }
  return out;
}

Schedule flat(CollectiveOp op, Algo algo, const std::vector<int>& m, const RankLayout& layout,
              double bytes) {
  if (op == CollectiveOp::alltoall) return direct_alltoall(m, bytes);  // every algo
  PRUNEX_CHECK(algo != Algo::nccl, "Algo::nccl is resolved per collective (nccl_algorithm)");
  if (algo == Algo::mpi) return mpi_schedule(op, m, layout, bytes);
  switch (op) {
    case CollectiveOp::allreduce:
      return algo == Algo::tree ? tree_allreduce(m, layout, bytes)
                                : ring_allreduce(m, layout, bytes);
    case CollectiveOp::allgather:
      PRUNEX_USAGE(algo_runs(algo, op),
                   "allgather has no tree algorithm (use ring or hierarchical)");
      return ring_allgather(m, layout, bytes);
    case CollectiveOp::broadcast:
      return algo == Algo::tree ? tree_broadcast(m, bytes) : chain_broadcast(m, layout, bytes);
    case CollectiveOp::barrier:  // no payload: no flows
    case CollectiveOp::alltoall:
      return {};
    case CollectiveOp::send:
    case CollectiveOp::recv:
      throw UsageError("a plan has no point-to-point steps (alltoall states their pattern)");
  }
  return {};
}

}  // namespace

Schedule build_schedule(CollectiveOp op, Algo algo, Group group, const RankLayout& layout,
                        double bytes) {
  PRUNEX_USAGE(bytes >= 0, "collective size must be >= 0 (got ", bytes, ")");
  // Hierarchical needs the node structure of the world group; on intra or inter groups (one
  // level already) it is the ring.
  if (algo == Algo::hierarchical && group == Group::world) {
    switch (op) {
      case CollectiveOp::allreduce:
        return hierarchical_allreduce(layout, bytes);
      case CollectiveOp::allgather:
        return hierarchical_allgather(layout, bytes);
      case CollectiveOp::broadcast:
        return hierarchical_broadcast(layout, bytes);
      case CollectiveOp::barrier:
        return {};
      case CollectiveOp::alltoall:
      case CollectiveOp::send:
      case CollectiveOp::recv:
        break;  // flat, below
    }
  }
  if (algo == Algo::hierarchical) algo = Algo::ring;
  std::vector<Schedule> parts;
  for (const auto& members : group_members(group, layout))
    parts.push_back(flat(op, algo, members, layout, bytes));
  return merge_concurrent(parts);
}

}  // namespace prunex::sim
