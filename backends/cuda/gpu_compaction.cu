#include "backends/cuda/gpu_compaction.h"

#include <algorithm>
#include <cstdint>

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

// Four consecutive full elements i..i+3 of one row (row % 4 == 0, or a whole layer): one
// row lookup for the four, each value as unpack_source and the scalar loop give it.
__device__ __forceinline__ float4 unpack4(const GpuLayerDesc& d, const int32_t* __restrict__ index,
                                          const float* __restrict__ stream, int64_t i,
                                          float scale) {
  float v[4];
  if (d.whole) {
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = __fmul_rn(stream[d.stream_offset + i + k], scale);
    return make_float4(v[0], v[1], v[2], v[3]);
  }
  const uint32_t o = static_cast<uint32_t>(i) / static_cast<uint32_t>(d.row);
  const uint32_t j = static_cast<uint32_t>(i) - o * static_cast<uint32_t>(d.row);
  const int32_t r = index[d.rank_at + o];
  if (r < 0) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // a pruned filter's row
  const int32_t* __restrict__ slot = index + d.slot_at + j;
  const float* __restrict__ src = stream + d.stream_offset + int64_t(r) * d.crow;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int32_t s = slot[k];
    v[k] = s < 0 ? 0.0f : __fmul_rn(src[s], scale);
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

// Every full element of the tile: pruned ones 0, kept ones from the stream, times scale.
// Where rows split into groups of four (row % 4 == 0, a tile of whole groups, the output
// 16-byte aligned), each thread writes a group with one 16-byte store and looks its row up
// once: the stores are the kernel's main traffic (every dense element), and the per-element
// division and row lookup of the scalar loop cost more instructions than the bandwidth allows.
__global__ void unpack_kernel(const GpuLayerDesc* __restrict__ layers,
                              const int32_t* __restrict__ index, const GpuTile* __restrict__ tiles,
                              const float* __restrict__ stream, float* const* out, float scale) {
  const GpuTile t = tiles[blockIdx.x];
  const GpuLayerDesc d = layers[t.layer];
  float* __restrict__ o = out[t.layer];
  const bool grouped = (d.whole || d.row % 4 == 0) && t.begin % 4 == 0 &&
                       (t.end - t.begin) % 4 == 0 && reinterpret_cast<uintptr_t>(o) % 16 == 0;
  if (grouped) {
    const int64_t groups = (t.end - t.begin) / 4;
    for (int64_t base = threadIdx.x; base < groups; base += kBatch * blockDim.x) {
      float4 x[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int64_t g = base + int64_t(b) * blockDim.x;
        if (g >= groups) break;
        x[b] = unpack4(d, index, stream, t.begin + 4 * g, scale);
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int64_t g = base + int64_t(b) * blockDim.x;
        if (g >= groups) break;
        reinterpret_cast<float4*>(o + t.begin)[g] = x[b];
      }
    }
    return;
  }
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
