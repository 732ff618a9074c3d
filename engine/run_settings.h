// What a run is, as every command takes it: `prunex train`, `simulate` and `sweep` read it from
// flags and --config, every run records it in metrics.json's `config`, and the plan builder
// takes it as PlanInputs::run. One name per setting from the flag to the record key to the
// member (dashes as underscores) to the plan: --bucket-cap-mb is "bucket-cap-mb" is
// ddp.bucket_cap_mb. The field table (help, bounds, parsing) is settings/run_fields.h; the
// strategies each part applies to are its strategy_specific_settings().
#pragma once

#include <cstdint>
#include <string>

#include "engine/compaction.h"
#include "engine/ddp_buckets.h"
#include "engine/powersgd.h"
#include "engine/strategy.h"
#include "engine/types.h"

namespace prunex {

// hsadmm, hsadmm-flat, hsadmm-rail: the structured sparsity, the freeze, and (hsadmm and
// hsadmm-rail) the compact inter-node payload.
struct HsadmmSettings {
  std::string sparsity = "channel";  // filter, channel, shape or a combination (filter+channel)
  double keep = 0.5;                 // kept fraction of groups in pruned layers
  int t_freeze = 0;                  // freeze the mask after this iteration (0: never by count)
  double bucket_mib = kDefaultBucketMib;  // inter-node buckets
  DType wire_dtype = DType::f32;          // the compact payload's type: f32, bf16 or f16
  bool pipeline_buckets = false;          // bucket b's all-reduce while b + 1 packs
};

// ddp and the bucketed peers (fp16, pactrain, cgx, powersgd): PyTorch DDP's bucket_cap_mb.
struct DdpSettings {
  double bucket_cap_mb = kDdpBucketMib;
};

struct TopkSettings {
  double topk_ratio = 0.01;  // kept fraction of each layer's gradient
};

// PacTrain (engine/pactrain.h): pruned fraction of conv and fc weights; TernGrad levels.
struct PactrainSettings {
  double prune_ratio = 0.5;
  bool ternary = false;
};

// CGX (engine/cgx_quantize.h): bits per value and values per quantization bucket.
struct CgxSettings {
  int bits = 4;
  int bucket_size = 1024;
};

// PowerSGD (engine/powersgd.h): PyTorch's PowerSGDState, what shapes the bytes; the rest of
// its state (start iteration, warm start, error feedback) is train's (TrainConfig).
struct PowersgdSettings {
  int matrix_approximation_rank = kPowerSgdRank;
  double min_compression_rate = kPowerSgdMinCompressionRate;
};

struct RunSettings {
  Strategy strategy = Strategy::hsadmm;
  std::string model;  // a model of the zoo; each command sets its own default
  int classes = 10;   // classes of the model head
  int iterations = 60;
  int local_epochs = 1;
  long local_steps = 0;  // > 0: an outer iteration is this many local steps instead of epochs
  int batch = 128;       // per rank / GPU
  HsadmmSettings hsadmm;
  DdpSettings ddp;
  TopkSettings topk;
  PactrainSettings pactrain;
  CgxSettings cgx;
  PowersgdSettings powersgd;
};

// The bucket sizes in bytes, as the live strategies compute them.
inline int64_t bucket_bytes(const HsadmmSettings& h) {
  return static_cast<int64_t>(h.bucket_mib * (1 << 20));
}
inline int64_t bucket_cap_bytes(const DdpSettings& d) {
  return ddp_cap_bytes(d.bucket_cap_mb);
}

}  // namespace prunex
