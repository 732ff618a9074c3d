#include "backends/nccl/gpu_compaction.h"

#include <algorithm>

namespace prunex {

namespace {

constexpr int kThreads = 256;

__global__ void pack_kernel(const GpuLayerDesc* layers, const int32_t* index, const GpuTile* tiles,
                            const float* const* z, const float* const* v, float* stream) {
  const GpuTile t = tiles[blockIdx.x];
  const GpuLayerDesc d = layers[t.layer];
  const float* zl = z[t.layer];
  const float* vl = v ? v[t.layer] : nullptr;
  float* dst = stream + d.stream_offset;
  for (int64_t e = t.begin + threadIdx.x; e < t.end; e += blockDim.x) {
    const int64_t src = pack_source(d, index, e);
    // A lone add: nothing to contract, so the sum rounds exactly as the CPU's does.
    dst[e] = vl ? __fadd_rn(zl[src], vl[src]) : zl[src];
  }
}

__global__ void unpack_kernel(const GpuLayerDesc* layers, const int32_t* index,
                              const GpuTile* tiles, const float* stream, float* const* out,
                              float scale) {
  const GpuTile t = tiles[blockIdx.x];
  const GpuLayerDesc d = layers[t.layer];
  float* o = out[t.layer];
  for (int64_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
    const int64_t s = unpack_source(d, index, i);
    o[i] = s < 0 ? 0.0f : __fmul_rn(stream[s], scale);
  }
}

}  // namespace

GpuCompaction::GpuCompaction(const CompactionPlan& plan)
    : tables_(plan_compaction_tables(plan)),
      capacity_(plan.bucket_capacity()),
      layers_(tables_.layers),
      index_(tables_.index),
      pack_tiles_(tables_.pack_tiles),
      unpack_tiles_(tables_.unpack_tiles),
      z_dev_(tables_.layers.size()),
      v_dev_(tables_.layers.size()),
      out_dev_(tables_.layers.size()) {
  for (int b = 0; b < plan.buckets(); ++b) bucket_floats_.push_back(plan.bucket_floats(b));
}

const float* const* GpuCompaction::bind(std::vector<const float*>& cache,
                                        DeviceArray<const float*>& dev, const float* const* ptrs,
                                        cudaStream_t s) {
  const size_t n = tables_.layers.size();
  if (cache.size() != n || !std::equal(cache.begin(), cache.end(), ptrs)) {
    cache.assign(ptrs, ptrs + n);
    // Pageable source: the copy is staged before the call returns, so `cache` may change later.
    PRUNEX_CUDA_CHECK(
        cudaMemcpyAsync(dev.data(), cache.data(), dev.bytes(), cudaMemcpyHostToDevice, s));
  }
  return dev.data();
}

void GpuCompaction::pack(const float* const* z, const float* const* v, float* stream,
                         cudaStream_t s) {
  if (tables_.pack_tiles.empty()) return;
  const float* const* zd = bind(z_cache_, z_dev_, z, s);
  const float* const* vd = v ? bind(v_cache_, v_dev_, v, s) : nullptr;
  pack_kernel<<<static_cast<unsigned>(tables_.pack_tiles.size()), kThreads, 0, s>>>(
      layers_.data(), index_.data(), pack_tiles_.data(), zd, vd, stream);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

void GpuCompaction::unpack(const float* stream, float* const* out, float scale, cudaStream_t s) {
  if (tables_.unpack_tiles.empty()) return;
  const float* const* od = bind(out_cache_, out_dev_, const_cast<const float* const*>(out), s);
  unpack_kernel<<<static_cast<unsigned>(tables_.unpack_tiles.size()), kThreads, 0, s>>>(
      layers_.data(), index_.data(), unpack_tiles_.data(), stream, const_cast<float* const*>(od),
      scale);
  PRUNEX_CUDA_CHECK_LAUNCH();
}

}  // namespace prunex
