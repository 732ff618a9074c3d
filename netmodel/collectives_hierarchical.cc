// Hierarchical collectives on the world group: inside every node at once, then across the
// node leaders (local rank 0), then inside every node again. Rounds are sequential.
//
//   all-reduce:  chain reduce to the leader (P-1 terms, S per edge)
//                -> leaders' ring all-reduce (2(M-1) terms, 2(M-1)/M S per edge)
//                -> chain broadcast from the leader (P-1 terms, S per edge)
//   all-gather:  every rank sends its block to the leader (1 term)
//                -> leaders' ring all-gather of P blocks -> chain broadcast of all n blocks
//   broadcast:   chain over the leaders from rank 0 -> chain inside every node
#include "netmodel/collectives.h"

namespace prunex::sim {

namespace {

// Every node's chain local (P-1) -> ... -> 0 (toward_leader) or 0 -> ... -> P-1.
Round node_chains(const RankLayout& layout, double bytes, bool toward_leader) {
  Round round;
  const int p = layout.gpus_per_node;
  if (p < 2 || bytes <= 0) return round;
  round.latency_steps = p - 1;
  for (int node = 0; node < layout.nodes; ++node)
    for (int g = 0; g + 1 < p; ++g) {
      const int a = node * p + g, b = a + 1;
      round.flows.push_back(toward_leader ? Flow{b, a, bytes} : Flow{a, b, bytes});
    }
  return round;
}

void append(Schedule& s, Round p) {
  if (!p.flows.empty()) s.push_back(std::move(p));
}

void append(Schedule& s, const Schedule& more) {
  for (const auto& p : more) append(s, p);
}

}  // namespace

Schedule hierarchical_allreduce(const RankLayout& layout, double bytes) {
  Schedule s;
  append(s, node_chains(layout, bytes, true));
  append(s, ring_allreduce(group_members(Group::inter, layout).front(), layout, bytes));
  append(s, node_chains(layout, bytes, false));
  return s;
}

Schedule hierarchical_allgather(const RankLayout& layout, double block) {
  Schedule s;
  const int p = layout.gpus_per_node;
  Round gather;
  gather.latency_steps = 1;
  for (int node = 0; node < layout.nodes; ++node)
    for (int g = 1; g < p; ++g) gather.flows.push_back({node * p + g, node * p, block});
  append(s, std::move(gather));
  append(s, ring_allgather(group_members(Group::inter, layout).front(), layout, p * block));
  append(s, node_chains(layout, layout.world() * block, false));
  return s;
}

Schedule hierarchical_broadcast(const RankLayout& layout, double bytes) {
  Schedule s;
  append(s, chain_broadcast(group_members(Group::inter, layout).front(), layout, bytes));
  append(s, node_chains(layout, bytes, false));
  return s;
}

}  // namespace prunex::sim
