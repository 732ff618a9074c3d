// Fused multi-layer pack and unpack on the GPU (section 4.4 shrinkage / recovery): one
// kernel launch gathers the kept slices of z + v of every layer into the bucket stream,
// one launch scatters it back with zeros elsewhere. Built once per mask (plan once, run
// many); the results equal engine/compaction.h's pack/unpack bit for bit.
//
// All data pointers are device pointers. The bucket stream is one device buffer of
// stream_floats() floats; bucket b of the plan starts at bucket(stream, b).
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "backends/cuda/compaction_tables.h"
#include "backends/cuda/cuda_handles.h"

namespace prunex {

class GpuCompaction {
 public:
  explicit GpuCompaction(const CompactionPlan& plan);

  int64_t stream_floats() const { return tables_.compact_floats; }
  int buckets() const { return static_cast<int>(bucket_floats_.size()); }
  int64_t bucket_floats(int b) const { return bucket_floats_[b]; }
  float* bucket(float* stream, int b) const { return stream + b * capacity_; }
  const CompactionTables& tables() const { return tables_; }

  // stream <- compact(z + v); v may be null. z[l], v[l]: host arrays of device pointers,
  // one per layer of the plan.
  void pack(const float* const* z, const float* const* v, float* stream, cudaStream_t s);
  // out[l] <- scale * expand(stream), zeros outside K_out x K_in.
  void unpack(const float* stream, float* const* out, float scale, cudaStream_t s);

 private:
  // Copies a table of per-layer device pointers to the device when it changed.
  const float* const* bind(std::vector<const float*>& cache, DeviceArray<const float*>& dev,
                           const float* const* ptrs, cudaStream_t s);

  CompactionTables tables_;
  std::vector<int64_t> bucket_floats_;
  int64_t capacity_ = 0;
  DeviceArray<GpuLayerDesc> layers_;
  DeviceArray<int32_t> index_;
  DeviceArray<GpuTile> pack_tiles_, unpack_tiles_;
  std::vector<const float*> z_cache_, v_cache_, out_cache_;
  DeviceArray<const float*> z_dev_, v_dev_, out_dev_;
};

}  // namespace prunex
