#include "engine/communicator.h"

#include "engine/error.h"

namespace prunex {

int NodeGrouping::group_size(Group g) const {
  switch (g) {
    case Group::world:
      return world_size;
    case Group::intra:
      return gpus_per_node;
    case Group::inter:
    case Group::rail:
      return nodes();
  }
  return 0;
}

std::vector<std::vector<int>> NodeGrouping::groups(Group g) const {
  std::vector<std::vector<int>> out(group_count(g));
  for (int r = 0; r < world_size; ++r) {
    if (!takes_part(g, r)) continue;
    out[group_index(g, r)].push_back(r);
  }
  return out;
}

int NodeGrouping::rank_in(Group g, int world_rank) const {
  switch (g) {
    case Group::world:
      return world_rank;
    case Group::intra:
      return local_rank(world_rank);
    case Group::inter:
      return is_leader(world_rank) ? node_of(world_rank) : -1;
    case Group::rail:
      return node_of(world_rank);
  }
  return -1;
}

int NodeGrouping::member(Group g, int world_rank, int r) const {
  switch (g) {
    case Group::world:
      return r;
    case Group::intra:
      return leader_of(node_of(world_rank)) + r;
    case Group::inter:
      return leader_of(r);
    case Group::rail:
      return leader_of(r) + local_rank(world_rank);
  }
  return -1;
}

void Communicator::check_member(Group g) const {
  PRUNEX_CHECK(grouping().takes_part(g, world_rank()), "world rank ", world_rank(),
               " is not a node leader and has no ", group_name(g), " group");
}

}  // namespace prunex
