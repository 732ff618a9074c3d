#include "engine/tier_bytes.h"

namespace prunex {

double tier_carries(Group g, const NodeGrouping& grouping, double bytes) {
  return grouping.group_size(g) > 1 ? bytes : 0.0;
}

TierBytes tier_bytes(const std::vector<CallRecord>& calls, Strategy strategy,
                     const NodeGrouping& grouping) {
  TierBytes b;
  const int nodes = grouping.nodes();
  for (const auto& c : calls) {
    if (c.op == CollectiveOp::recv) continue;  // the sender's bytes, counted at its send
    const double bytes = tier_carries(c.group, grouping, static_cast<double>(c.bytes));
    switch (c.group) {
      case Group::intra:
        b.intra += bytes;
        break;
      case Group::inter:
      case Group::rail:  // each rank's share of its node's inter-node traffic
        b.inter += bytes;
        break;
      case Group::world:
        b.world += bytes;
        break;
    }
  }
  // Strategies whose collectives all run on the world: on several nodes the world crosses them.
  if (synchronises_on_world(strategy) && nodes > 1) b.inter = b.world;
  return b;
}

}  // namespace prunex
