// Structured masks: which groups of each layer are kept. A LayerMask holds three byte
// vectors (filters, input channels, (channel, kernel position) columns); an element
// (o, c, p) is kept iff keep_out[o] && keep_in[c] && keep_shape[c*k + p]. Masks are kept
// normalised: a channel whose columns are all pruned is itself marked pruned, and an
// all-zero filter/channel set cannot arise (projections keep at least one group).
//
// The union across nodes (eq. 14) is a bitwise OR of each vector. Its K_out and K_in are
// exactly those of the element-wise union of the node masks, which is all compaction needs;
// the element set it implies may be a superset of the element-wise union.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/sparsity_spec.h"

namespace prunex {

struct LayerMask {
  LayerDims dims;
  std::vector<uint8_t> keep_out;    // dims.out entries, 0 or 1
  std::vector<uint8_t> keep_in;     // dims.in entries
  std::vector<uint8_t> keep_shape;  // dims.in * dims.k entries, channel-major

  static LayerMask dense(LayerDims dims);  // everything kept

  std::vector<int32_t> k_out() const;  // kept filter indices, ascending
  std::vector<int32_t> k_in() const;   // kept channel indices, ascending
  int64_t kept_elements() const;       // elements of the product mask
  double density() const { return double(kept_elements()) / double(dims.numel()); }
  bool all_kept() const;
  // Clears keep_in for channels whose columns are all pruned (call after editing keep_shape).
  void normalise();
  // Bitwise OR with another mask of the same dims (eq. 14 for one layer).
  void unite(const LayerMask& other);
  bool operator==(const LayerMask& o) const;
};

// Zeroes the elements of w (dims.numel() floats, row-major {out, in, k}) that m prunes; used
// once masks are frozen, in place of the projection.
void apply_mask(float* w, const LayerMask& m);
// The same mask with one byte per element (1 = kept), row-major {out, in, k}: what a device
// applies without the group structure.
std::vector<uint8_t> element_mask(const LayerMask& m);

// One LayerMask per layout layer; unpruned layers stay dense and take no bits.
class ModelMask {
 public:
  ModelMask() = default;
  // All-kept masks for every layer; `pruned[l]` says which layers travel in the bit form.
  ModelMask(const ModelLayout& layout, const SparsitySpec& spec);

  std::vector<LayerMask>& layers() { return layers_; }
  const std::vector<LayerMask>& layers() const { return layers_; }
  LayerMask& operator[](size_t l) { return layers_[l]; }
  const LayerMask& operator[](size_t l) const { return layers_[l]; }
  size_t size() const { return layers_.size(); }
  bool pruned(size_t l) const { return pruned_[l] != 0; }

  int64_t kept_elements() const;
  int64_t total_elements() const;
  double density() const { return double(kept_elements()) / double(total_elements()); }

  // Packed bit form of all pruned layers (keep_out, keep_in, keep_shape of each, in layout
  // order, LSB first within a byte). Its length depends on the layout and spec only, so
  // one bitwise-OR all-reduce of this buffer unites the masks of every layer at once.
  size_t bit_bytes() const;
  std::vector<uint8_t> to_bits() const;
  void to_bits(uint8_t* out) const;  // bit_bytes() bytes
  // Overwrites the pruned layers' masks from bits (e.g. after the all-reduce), normalising.
  void from_bits(const uint8_t* bits, size_t bytes);
  // Union in place with another mask over the same layout and spec.
  void unite(const ModelMask& other);
  bool operator==(const ModelMask& o) const;

 private:
  std::vector<LayerMask> layers_;
  std::vector<uint8_t> pruned_;
};

// Bytes of the `sector`-byte sectors of the layers' buffers (each buffer starting on a
// sector) that hold at least one element `mask` keeps (all of a layer it does not prune):
// what gathering the kept elements of one such model reads from memory at the least, since
// memory moves whole sectors (32 bytes on NVIDIA GPUs).
int64_t kept_sector_bytes(const ModelLayout& layout, const ModelMask& mask, int sector = 32);

}  // namespace prunex
