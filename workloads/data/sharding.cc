#include "workloads/data/sharding.h"

#include "engine/error.h"

namespace prunex {

ShardRange shard_range(int64_t n, const ShardSpec& spec) {
  PRUNEX_USAGE(spec.nodes >= 1 && spec.gpus_per_node >= 1, "sharding needs nodes >= 1 and ",
               "gpus per node >= 1, got ", spec.nodes, " x ", spec.gpus_per_node);
  PRUNEX_USAGE(spec.node >= 0 && spec.node < spec.nodes, "node ", spec.node,
               " is out of range [0, ", spec.nodes, ")");
  PRUNEX_USAGE(spec.local_rank >= 0 && spec.local_rank < spec.gpus_per_node, "local rank ",
               spec.local_rank, " is out of range [0, ", spec.gpus_per_node, ")");
  const int64_t per_shard = n / spec.shards();
  PRUNEX_USAGE(per_shard >= 1, "cannot split ", n, " samples into ", spec.shards(), " shards");
  const int64_t begin = per_shard * spec.index();
  return {begin, begin + per_shard};
}

}  // namespace prunex
