// PowerSGD (Vogels et al., NeurIPS 2019) as PyTorch runs it: the DDP communication hook
// torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py (powerSGD_hook). Per bucket
// and step, each gradient viewed as a matrix M of shape[0] rows and numel / shape[0] columns
// travels as two rank-r factors when that pays, P = M Q (rows x r) and Q = M^T P (cols x r),
// and whole otherwise (the 1-D tensors, and matrices where (rows + cols) r x
// min_compression_rate >= rows x cols); r = min(rows, cols, matrix_approximation_rank).
// What travels, in three all-reduces per bucket, one after the other: the whole tensors
// (fp32, averaged), P (summed; orthogonalized after), Q (averaged); M comes back as P Q^T.
// The shapes decide all of it: the plan (plan_powersgd.cc) and the live codec
// (workloads/train/powersgd_codec.cc) both take it from here.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/ddp_buckets.h"
#include "engine/layer_layout.h"

namespace prunex {

// PowerSGDState's defaults (powerSGD_hook.py).
constexpr int kPowerSgdRank = 1;                   // matrix_approximation_rank
constexpr double kPowerSgdMinCompressionRate = 2;  // min_compression_rate
constexpr long kPowerSgdStartIter = 1000;          // start_powerSGD_iter

// One gradient of a bucket as PowerSGD sees it.
struct PowerSgdMatrix {
  int layer = 0;       // layout index
  int64_t offset = 0;  // its first float in the bucket
  int64_t rows = 0, cols = 0;
  int rank = 0;  // 0: travels whole
  bool compressed() const { return rank > 0; }
};

// A bucket's matrices (in the bucket's order) and the floats of each of its three
// all-reduces.
struct PowerSgdBucket {
  std::vector<PowerSgdMatrix> matrices;
  int64_t whole_floats = 0;  // the uncompressed tensors, all-reduced as they are
  int64_t p_floats = 0;      // sum of rows x r over the compressed ones
  int64_t q_floats = 0;      // sum of cols x r
  // Multiply-adds x 2 of the three products per compressed matrix (M Q, M^T P, P Q^T):
  // 6 rows cols r.
  double flops = 0;
};

PowerSgdBucket powersgd_bucket(const ModelLayout& layout, const DdpBucket& b, int rank,
                               double min_compression_rate);

}  // namespace prunex
