#include "engine/mask.h"

#include <algorithm>

#include "engine/error.h"

namespace prunex {

namespace {

std::vector<int32_t> indices_of(const std::vector<uint8_t>& keep) {
  std::vector<int32_t> idx;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) idx.push_back(static_cast<int32_t>(i));
  return idx;
}

void or_into(std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  PRUNEX_CHECK_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = (a[i] | b[i]) ? 1 : 0;
}

// Bit cursor over a byte buffer, LSB first.
struct BitWriter {
  uint8_t* out;
  size_t pos = 0;
  void put(const std::vector<uint8_t>& v) {
    for (uint8_t b : v) {
      if (b) out[pos >> 3] |= uint8_t(1u << (pos & 7));
      ++pos;
    }
  }
};

struct BitReader {
  const uint8_t* in;
  size_t pos = 0;
  void get(std::vector<uint8_t>& v) {
    for (auto& b : v) {
      b = (in[pos >> 3] >> (pos & 7)) & 1u;
      ++pos;
    }
  }
};

size_t layer_bits(const LayerMask& m) {
  return m.keep_out.size() + m.keep_in.size() + m.keep_shape.size();
}

}  // namespace

LayerMask LayerMask::dense(LayerDims dims) {
  LayerMask m;
  m.dims = dims;
  m.keep_out.assign(dims.out, 1);
  m.keep_in.assign(dims.in, 1);
  m.keep_shape.assign(dims.in * dims.k, 1);
  return m;
}

std::vector<int32_t> LayerMask::k_out() const {
  return indices_of(keep_out);
}
std::vector<int32_t> LayerMask::k_in() const {
  return indices_of(keep_in);
}

int64_t LayerMask::kept_elements() const {
  int64_t per_filter = 0;  // kept (c, p) columns
  for (int64_t c = 0; c < dims.in; ++c) {
    if (!keep_in[c]) continue;
    for (int64_t p = 0; p < dims.k; ++p) per_filter += keep_shape[c * dims.k + p];
  }
  const int64_t filters = std::count(keep_out.begin(), keep_out.end(), uint8_t(1));
  return filters * per_filter;
}

bool LayerMask::all_kept() const {
  auto ones = [](const std::vector<uint8_t>& v) {
    return std::all_of(v.begin(), v.end(), [](uint8_t b) { return b != 0; });
  };
  return ones(keep_out) && ones(keep_in) && ones(keep_shape);
}

void LayerMask::normalise() {
  for (int64_t c = 0; c < dims.in; ++c) {
    bool any = false;
    for (int64_t p = 0; p < dims.k; ++p) any = any || keep_shape[c * dims.k + p];
    if (!any) keep_in[c] = 0;
  }
}

void LayerMask::unite(const LayerMask& other) {
  or_into(keep_out, other.keep_out);
  or_into(keep_in, other.keep_in);
  or_into(keep_shape, other.keep_shape);
}

bool LayerMask::operator==(const LayerMask& o) const {
  return dims.out == o.dims.out && dims.in == o.dims.in && dims.k == o.dims.k &&
         keep_out == o.keep_out && keep_in == o.keep_in && keep_shape == o.keep_shape;
}

void apply_mask(float* w, const LayerMask& m) {
  const int64_t row = m.dims.in * m.dims.k;
  for (int64_t o = 0; o < m.dims.out; ++o) {
    float* r = w + o * row;
    if (!m.keep_out[o]) {
      std::fill(r, r + row, 0.0f);
      continue;
    }
    for (int64_t c = 0; c < m.dims.in; ++c)
      for (int64_t p = 0; p < m.dims.k; ++p)
        if (!m.keep_in[c] || !m.keep_shape[c * m.dims.k + p]) r[c * m.dims.k + p] = 0.0f;
  }
}

std::vector<uint8_t> element_mask(const LayerMask& m) {
  std::vector<uint8_t> out(static_cast<size_t>(m.dims.numel()), 0);
  const int64_t row = m.dims.in * m.dims.k;
  for (int64_t o = 0; o < m.dims.out; ++o) {
    if (!m.keep_out[o]) continue;
    for (int64_t c = 0; c < m.dims.in; ++c)
      for (int64_t p = 0; p < m.dims.k; ++p)
        out[o * row + c * m.dims.k + p] = m.keep_in[c] && m.keep_shape[c * m.dims.k + p];
  }
  return out;
}

ModelMask::ModelMask(const ModelLayout& layout, const SparsitySpec& spec) {
  PRUNEX_CHECK_EQ(layout.layers.size(), spec.layers.size());
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    layers_.push_back(LayerMask::dense(layer_dims(layout.layers[l])));
    pruned_.push_back(spec.layers[l].pruned() ? 1 : 0);
  }
}

int64_t ModelMask::kept_elements() const {
  int64_t n = 0;
  for (const auto& m : layers_) n += m.kept_elements();
  return n;
}

int64_t ModelMask::total_elements() const {
  int64_t n = 0;
  for (const auto& m : layers_) n += m.dims.numel();
  return n;
}

size_t ModelMask::bit_bytes() const {
  size_t bits = 0;
  for (size_t l = 0; l < layers_.size(); ++l)
    if (pruned_[l]) bits += layer_bits(layers_[l]);
  return (bits + 7) / 8;
}

std::vector<uint8_t> ModelMask::to_bits() const {
  std::vector<uint8_t> out(bit_bytes());
  to_bits(out.data());
  return out;
}

void ModelMask::to_bits(uint8_t* out) const {
  std::fill(out, out + bit_bytes(), uint8_t(0));
  BitWriter w{out};
  for (size_t l = 0; l < layers_.size(); ++l) {
    if (!pruned_[l]) continue;
    w.put(layers_[l].keep_out);
    w.put(layers_[l].keep_in);
    w.put(layers_[l].keep_shape);
  }
}

void ModelMask::from_bits(const uint8_t* bits, size_t bytes) {
  PRUNEX_CHECK_EQ(bytes, bit_bytes(), "mask bit buffer of the wrong length");
  BitReader r{bits};
  for (size_t l = 0; l < layers_.size(); ++l) {
    if (!pruned_[l]) continue;
    r.get(layers_[l].keep_out);
    r.get(layers_[l].keep_in);
    r.get(layers_[l].keep_shape);
    layers_[l].normalise();
  }
}

void ModelMask::unite(const ModelMask& other) {
  PRUNEX_CHECK_EQ(layers_.size(), other.layers_.size());
  PRUNEX_CHECK(pruned_ == other.pruned_, "masks of different specs");
  for (size_t l = 0; l < layers_.size(); ++l) layers_[l].unite(other.layers_[l]);
}

bool ModelMask::operator==(const ModelMask& o) const {
  return pruned_ == o.pruned_ && layers_ == o.layers_;
}

int64_t kept_sector_bytes(const ModelLayout& layout, const ModelMask& mask, int sector) {
  PRUNEX_CHECK(sector >= 4 && sector % 4 == 0, "sector of ", sector, " bytes");
  const int64_t per = sector / 4;  // floats per sector
  int64_t sectors = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const int64_t n = layout.layers[l].numel();
    if (!mask.pruned(l)) {
      sectors += (n + per - 1) / per;
      continue;
    }
    const std::vector<uint8_t> keep = element_mask(mask[l]);
    for (int64_t b = 0; b < n; b += per) {
      const auto* first = keep.data() + b;
      if (std::any_of(first, first + std::min(per, n - b), [](uint8_t k) { return k != 0; }))
        ++sectors;
    }
  }
  return sectors * sector;
}

}  // namespace prunex
