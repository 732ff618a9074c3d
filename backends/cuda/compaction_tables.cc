#include "backends/cuda/compaction_tables.h"

#include <algorithm>
#include <limits>

#include "engine/error.h"

namespace prunex {

namespace {

int32_t table_offset(const std::vector<int32_t>& index) {
  PRUNEX_CHECK(index.size() < size_t(std::numeric_limits<int32_t>::max()),
               "compaction index table too large");
  return static_cast<int32_t>(index.size());
}

void add_tiles(std::vector<GpuTile>& tiles, int32_t layer, int64_t n, int64_t tile_elems) {
  for (int64_t b = 0; b < n; b += tile_elems)
    tiles.push_back(GpuTile{layer, 0, b, std::min(n, b + tile_elems)});
}

}  // namespace

CompactionTables plan_compaction_tables(const CompactionPlan& plan, int64_t tile_elems) {
  PRUNEX_CHECK(tile_elems >= 1, "tile of ", tile_elems, " elements");
  CompactionTables t;
  const auto& layers = plan.layers();
  for (size_t l = 0; l < layers.size(); ++l) {
    const CompactLayer& c = layers[l];
    const int64_t numel = c.dims.numel();
    PRUNEX_CHECK(numel < std::numeric_limits<int32_t>::max(), "layer ", l, " has ", numel,
                 " elements; the GPU compaction kernels index layers in 32 bits");
    GpuLayerDesc d;
    d.stream_offset = c.stream_offset;
    d.compact_numel = c.compact_numel;
    d.numel = numel;
    d.row = static_cast<int32_t>(c.dims.in * c.dims.k);
    d.crow = static_cast<int32_t>(static_cast<int64_t>(c.k_in.size()) * c.dims.k);
    d.whole = c.whole ? 1 : 0;
    if (!c.whole) {
      d.k_out_at = table_offset(t.index);
      t.index.insert(t.index.end(), c.k_out.begin(), c.k_out.end());
      d.cols_at = table_offset(t.index);
      for (int32_t ch : c.k_in)
        for (int64_t p = 0; p < c.dims.k; ++p)
          t.index.push_back(static_cast<int32_t>(ch * c.dims.k + p));
      d.rank_at = table_offset(t.index);
      t.index.resize(t.index.size() + c.dims.out, -1);
      for (size_t r = 0; r < c.k_out.size(); ++r)
        t.index[d.rank_at + c.k_out[r]] = static_cast<int32_t>(r);
      d.slot_at = table_offset(t.index);
      t.index.resize(t.index.size() + d.row, -1);
      for (int32_t j = 0; j < d.crow; ++j) t.index[d.slot_at + t.index[d.cols_at + j]] = j;
    }
    add_tiles(t.pack_tiles, static_cast<int32_t>(l), c.compact_numel, tile_elems);
    add_tiles(t.unpack_tiles, static_cast<int32_t>(l), numel, tile_elems);
    t.layers.push_back(d);
  }
  table_offset(t.index);
  PRUNEX_CHECK(t.pack_tiles.size() < size_t(std::numeric_limits<int32_t>::max()) &&
                   t.unpack_tiles.size() < size_t(std::numeric_limits<int32_t>::max()),
               "too many compaction tiles");
  t.compact_floats = plan.compact_floats();
  t.dense_floats = plan.dense_floats();
  return t;
}

}  // namespace prunex
