// Data-parallel sharding as in the paper (Sec. 3): the training set is split into N = M * P
// disjoint, equally sized shards; shard (i, j) lives on local rank j of node i. Shards are
// contiguous blocks, shard index i * P + j; the last N' = size mod N samples are dropped so
// that every worker runs the same number of steps.
#pragma once

#include <cstdint>

namespace prunex {

struct ShardSpec {
  int nodes = 1;          // M
  int gpus_per_node = 1;  // P
  int node = 0;           // i in [0, M)
  int local_rank = 0;     // j in [0, P)

  int shards() const { return nodes * gpus_per_node; }
  int index() const { return node * gpus_per_node + local_rank; }
};

struct ShardRange {
  int64_t begin = 0, end = 0;  // [begin, end) of the samples
  int64_t size() const { return end - begin; }
};

// The samples of one shard of a data set of n samples. Inconsistent specs (node or rank out
// of range, fewer samples than shards) -> UsageError.
ShardRange shard_range(int64_t n, const ShardSpec& spec);

}  // namespace prunex
