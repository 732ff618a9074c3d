#include "engine/tier_bytes.h"

namespace prunex {

TierBytes tier_bytes(const std::vector<CallRecord>& calls, Strategy strategy,
                     const NodeGrouping& grouping) {
  TierBytes b;
  const int nodes = grouping.nodes();
  for (const auto& c : calls) {
    if (grouping.group_size(c.group) <= 1) continue;
    const double bytes = static_cast<double>(c.bytes);
    switch (c.group) {
      case Group::intra:
        b.intra += bytes;
        break;
      case Group::inter:
        b.inter += bytes;
        break;
      case Group::world:
        b.world += bytes;
        break;
    }
  }
  if (!has_leaders(strategy) && nodes > 1) b.inter = b.world;
  return b;
}

}  // namespace prunex
