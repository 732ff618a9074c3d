// Host-side planning of the fused multi-layer pack/unpack kernels. A CompactionPlan is
// turned once into flat tables the kernels read: one descriptor per layer, one shared int32
// index table (kept filters, kept columns, and their inverse maps), and tiles that cut every
// layer's elements into fixed-size pieces, one thread block each, so a single launch covers
// all layers whatever their sizes.
//
// On the device the buckets are one contiguous allocation of compact_floats() floats, bucket
// b starting at b * plan.bucket_capacity(): the plan's stream offsets are then addresses, and
// the result equals the CPU pack's buckets laid end to end, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/compaction.h"

#if defined(__CUDACC__)
#define PRUNEX_HD __host__ __device__
#else
#define PRUNEX_HD
#endif

namespace prunex {

// Elements per tile (one thread block). Large enough that a block's setup is amortised,
// small enough that ResNet-152 gives thousands of blocks.
constexpr int64_t kCompactionTileElems = 8192;

struct GpuLayerDesc {
  int64_t stream_offset = 0;  // first compact float of the layer in the bucket stream
  int64_t compact_numel = 0;
  int64_t numel = 0;     // full elements, out * row
  int32_t row = 0;       // full row: in * k
  int32_t crow = 0;      // compact row: |K_in| * k
  int32_t whole = 0;     // nothing pruned: element i <-> stream_offset + i
  int32_t k_out_at = 0;  // index table: |K_out| kept filters
  int32_t cols_at = 0;   // crow kept column offsets (c * k + p) of a full row
  int32_t rank_at = 0;   // out entries: compact row of each filter, or -1
  int32_t slot_at = 0;   // row entries: compact column of each full column, or -1
  int32_t pad = 0;
};

// Elements [begin, end) of one layer: compact elements for pack, full ones for unpack.
struct GpuTile {
  int32_t layer = 0;
  int32_t pad = 0;
  int64_t begin = 0, end = 0;
};

struct CompactionTables {
  std::vector<GpuLayerDesc> layers;
  std::vector<int32_t> index;
  std::vector<GpuTile> pack_tiles, unpack_tiles;
  int64_t compact_floats = 0;
  int64_t dense_floats = 0;
};

// Throws if a layer has 2^31 elements or more (the kernels index within a layer in 32 bits).
CompactionTables plan_compaction_tables(const CompactionPlan& plan,
                                        int64_t tile_elems = kCompactionTileElems);

// Pack: where compact element e of layer d comes from, as an index into the full layer.
PRUNEX_HD inline int64_t pack_source(const GpuLayerDesc& d, const int32_t* index, int64_t e) {
  if (d.whole) return e;
  const uint32_t r = static_cast<uint32_t>(e) / static_cast<uint32_t>(d.crow);
  const uint32_t j = static_cast<uint32_t>(e) - r * static_cast<uint32_t>(d.crow);
  return int64_t(index[d.k_out_at + r]) * d.row + index[d.cols_at + j];
}

// Unpack: the stream position full element i of layer d reads, or -1 (pruned: write 0).
PRUNEX_HD inline int64_t unpack_source(const GpuLayerDesc& d, const int32_t* index, int64_t i) {
  if (d.whole) return d.stream_offset + i;
  const uint32_t o = static_cast<uint32_t>(i) / static_cast<uint32_t>(d.row);
  const uint32_t j = static_cast<uint32_t>(i) - o * static_cast<uint32_t>(d.row);
  const int32_t r = index[d.rank_at + o];
  const int32_t s = index[d.slot_at + j];
  return (r < 0 || s < 0) ? -1 : d.stream_offset + int64_t(r) * d.crow + s;
}

}  // namespace prunex
