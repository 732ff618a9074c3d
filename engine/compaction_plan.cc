#include <algorithm>

#include "engine/compaction.h"
#include "engine/error.h"

namespace prunex {

namespace {

// Mean kept-run length (floats) below which a row is gathered column by column rather than
// copied run by run: short runs cost more in loop overhead than an index load.
constexpr int64_t kMinRunFloats = 16;

std::vector<ChannelRun> runs_of(const std::vector<int32_t>& k_in) {
  std::vector<ChannelRun> runs;
  for (int32_t c : k_in) {
    if (!runs.empty() && runs.back().first + runs.back().count == c)
      ++runs.back().count;
    else
      runs.push_back({c, 1});
  }
  return runs;
}

std::vector<uint64_t> flat_bits_of(const LayerMask& m) {
  const LayerDims d = m.dims;
  std::vector<uint64_t> bits((d.numel() + 63) / 64 + 1, 0);
  for (int64_t o = 0; o < d.out; ++o) {
    if (!m.keep_out[o]) continue;
    for (int64_t c = 0; c < d.in; ++c) {
      if (!m.keep_in[c]) continue;
      for (int64_t p = 0; p < d.k; ++p) {
        const int64_t i = (o * d.in + c) * d.k + p;
        bits[i >> 6] |= uint64_t(1) << (i & 63);
      }
    }
  }
  return bits;
}

uint64_t fnv(uint64_t h, int64_t x) {
  for (int i = 0; i < 8; ++i) {
    h ^= uint64_t(x >> (8 * i)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

CompactionPlan::CompactionPlan(const ModelLayout& layout, const ModelMask& mask,
                               int64_t bucket_bytes) {
  PRUNEX_USAGE(bucket_bytes >= 4, "bucket size ", bucket_bytes, " bytes holds no float");
  PRUNEX_CHECK_EQ(layout.layers.size(), mask.size());
  capacity_ = bucket_bytes / 4;
  int64_t pos = 0;
  for (size_t l = 0; l < layout.layers.size(); ++l) {
    const LayerInfo& info = layout.layers[l];
    const LayerMask& m = mask[l];
    CompactLayer c;
    c.dims = layer_dims(info);
    PRUNEX_CHECK(c.dims.out == m.dims.out && c.dims.in == m.dims.in && c.dims.k == m.dims.k,
                 "mask of layer ", info.name, " does not match its shape");
    c.full_shape = info.shape;
    c.k_out = m.k_out();
    c.k_in = m.k_in();
    c.runs = runs_of(c.k_in);
    c.compact_shape = info.shape;
    if (info.shape.size() >= 2) {
      c.compact_shape[0] = static_cast<int64_t>(c.k_out.size());
      c.compact_shape[1] = static_cast<int64_t>(c.k_in.size());
    }
    c.compact_numel = static_cast<int64_t>(c.k_out.size() * c.k_in.size()) * c.dims.k;
    c.whole = c.compact_numel == c.dims.numel();
    const int64_t row = static_cast<int64_t>(c.k_in.size()) * c.dims.k;
    c.gather =
        !c.whole && !c.runs.empty() && row < kMinRunFloats * static_cast<int64_t>(c.runs.size());
    if (c.gather) {
      c.slot.assign(c.dims.in * c.dims.k, -1);
      for (int32_t ch : c.k_in)
        for (int64_t p = 0; p < c.dims.k; ++p) {
          c.slot[ch * c.dims.k + p] = static_cast<int32_t>(c.cols.size());
          c.cols.push_back(static_cast<int32_t>(ch * c.dims.k + p));
        }
    }
    c.stream_offset = pos;
    c.bucket = static_cast<int>(pos / capacity_);
    c.offset = pos % capacity_;
    if (!c.whole && c.compact_numel > 0 && c.offset + c.compact_numel <= capacity_)
      c.flat_bits = flat_bits_of(m);
    pos += c.compact_numel;
    dense_floats_ += c.dims.numel();
    layers_.push_back(std::move(c));
  }
  compact_floats_ = pos;
  for (int64_t start = 0; start < pos; start += capacity_)
    bucket_floats_.push_back(std::min(capacity_, pos - start));
}

uint64_t CompactionPlan::fingerprint() const {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv(h, capacity_);
  for (const auto& c : layers_) {
    h = fnv(h, c.dims.out);
    h = fnv(h, c.dims.in);
    h = fnv(h, c.dims.k);
    for (int32_t o : c.k_out) h = fnv(h, o);
    h = fnv(h, -1);
    for (int32_t i : c.k_in) h = fnv(h, i);
    h = fnv(h, -2);
  }
  return h;
}

template <typename T>
BasicBucketSet<T>::BasicBucketSet(const CompactionPlan& plan, int pad_to) {
  PRUNEX_CHECK(pad_to >= 1, "pad_to ", pad_to);
  for (int b = 0; b < plan.buckets(); ++b) {
    const int64_t n = plan.bucket_floats(b);
    values_.push_back(n);
    storage_.emplace_back((n + pad_to - 1) / pad_to * pad_to, T{0});
  }
  for (auto& s : storage_) ptrs_.push_back(s.data());
}

template class BasicBucketSet<float>;
template class BasicBucketSet<uint16_t>;

}  // namespace prunex
