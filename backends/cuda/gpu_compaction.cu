#include "backends/cuda/gpu_compaction.h"

#include <algorithm>

namespace prunex {

namespace {

constexpr int kThreads = 256;
// Elements in flight per thread: all loads of a batch are issued before its stores, so each
// thread keeps several memory requests outstanding (the kernels are bandwidth bound).
constexpr int kBatch = 4;

__global__ void pack_kernel(const GpuLayerDesc* __restrict__ layers,
                            const int32_t* __restrict__ index, const GpuTile* __restrict__ tiles,
                            const float* const* z, const float* const* v,
                            float* __restrict__ stream) {
  const GpuTile t = tiles[blockIdx.x];
  const GpuLayerDesc d = layers[t.layer];
  const float* __restrict__ zl = z[t.layer];
  const float* __restrict__ vl = v ? v[t.layer] : nullptr;
  float* __restrict__ dst = stream + d.stream_offset;
  for (int64_t base = t.begin + threadIdx.x; base < t.end; base += kBatch * blockDim.x) {
    float x[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int64_t e = base + int64_t(b) * blockDim.x;
      if (e >= t.end) break;
      const int64_t src = pack_source(d, index, e);
      // A lone add: nothing to contract, so the sum rounds exactly as the CPU's does.
      x[b] = vl ? __fadd_rn(zl[src], vl[src]) : zl[src];
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int64_t e = base + int64_t(b) * blockDim.x;
      if (e >= t.end) break;
      dst[e] = x[b];
    }
  }
}

__global__ void unpack_kernel(const GpuLayerDesc* __restrict__ layers,
                              const int32_t* __restrict__ index, const GpuTile* __restrict__ tiles,
                              const float* __restrict__ stream, float* const* out, float scale) {
  const GpuTile t = tiles[blockIdx.x];
  const GpuLayerDesc d = layers[t.layer];
  float* __restrict__ o = out[t.layer];
  for (int64_t base = t.begin + threadIdx.x; base < t.end; base += kBatch * blockDim.x) {
    float x[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int64_t i = base + int64_t(b) * blockDim.x;
      if (i >= t.end) break;
      const int64_t s = unpack_source(d, index, i);
      x[b] = s < 0 ? 0.0f : __fmul_rn(stream[s], scale);
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int64_t i = base + int64_t(b) * blockDim.x;
      if (i >= t.end) break;
      o[i] = x[b];
    }
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
