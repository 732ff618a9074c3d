// Bytes per tier of one iteration, counted one way for live and simulated runs: from the
// collectives a rank made (live: Communicator::calls(); simulated: plan_calls()).
#pragma once

#include <vector>

#include "engine/communicator.h"
#include "engine/strategy.h"

namespace prunex {

// The payload of each tier's collectives as one participating rank sends it (the "message
// size"), summed over the tier's calls.
struct TierBytes {
  double intra = 0;
  double inter = 0;
  double world = 0;
};

// Sums the calls by group (barriers carry nothing; a recv's bytes are its sender's, counted
// at the send). A tier whose groups have one member (intra with one GPU per node, inter on
// one node, world of one rank) carries no bytes: its "collectives" send nothing. A strategy
// whose collectives all run on the world (synchronises_on_world: ddp, fp16, topk, pactrain,
// hsadmm-flat): on more than one node every such message crosses nodes, so its inter tier is
// its world tier. cgx sends on the intra and inter groups and is counted by them.
TierBytes tier_bytes(const std::vector<CallRecord>& calls, Strategy strategy,
                     const NodeGrouping& grouping);

// `bytes` on a tier of kind g, or 0 when its groups have one member (the rule above; also
// for the dense inter-node size a run records beside its payload).
double tier_carries(Group g, const NodeGrouping& grouping, double bytes);

}  // namespace prunex
