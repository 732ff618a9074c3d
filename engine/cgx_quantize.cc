#include "engine/cgx_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/codec_math.h"
#include "engine/error.h"

namespace prunex {

int64_t cgx_wire_bytes(int64_t n, int bits, int bucket) {
  if (n <= 0) return 0;
  return 8 * ((n + bucket - 1) / bucket) + (n * bits + 7) / 8;
}

void cgx_quantize(const float* x, int64_t n, int bits, int bucket, bool stochastic, uint64_t seed,
                  uint8_t* out) {
  PRUNEX_CHECK(bits >= 1 && bits <= 8 && bucket >= 1, "cgx: bits ", bits, ", bucket ", bucket);
  const int64_t buckets = (n + bucket - 1) / bucket;
  uint8_t* levels = out + 8 * buckets;
  std::memset(levels, 0, static_cast<std::size_t>((n * bits + 7) / 8));
  const uint32_t top = (1u << bits) - 1;
  for (int64_t b = 0; b < buckets; ++b) {
    const int64_t lo = b * bucket, hi = std::min(n, lo + bucket);
    float mn = x[lo], mx = x[lo];
    bool finite = true;
    for (int64_t i = lo; i < hi; ++i) {
      finite = finite && std::isfinite(x[i]);
      mn = std::min(mn, x[i]);
      mx = std::max(mx, x[i]);
    }
    // A NaN or Inf makes the bucket's metadata NaN: every value decodes to NaN, and the sum
    // carries it to every rank, whose gradient check then stops all of them alike.
    if (!finite) mn = std::numeric_limits<float>::quiet_NaN();
    const float unit = finite ? codec::cgx_unit(mn, mx, top) : mn;
    codec::store_float(out + 8 * b, unit);
    codec::store_float(out + 8 * b + 4, mn);
    for (int64_t i = lo; i < hi; ++i) {
      const uint32_t q =
          codec::cgx_level(x[i], mn, unit, codec::cgx_offset(stochastic, seed, i), top);
      const int64_t bit = i * bits;
      // Up to 8 bits starting anywhere in a byte span at most two bytes.
      const uint32_t shifted = q << (bit % 8);
      levels[bit / 8] |= static_cast<uint8_t>(shifted & 0xffu);
      if ((bit % 8) + bits > 8) levels[bit / 8 + 1] |= static_cast<uint8_t>(shifted >> 8);
    }
  }
}

void cgx_dequantize(const uint8_t* in, int64_t n, int bits, int bucket, float* out,
                    bool accumulate) {
  const int64_t buckets = (n + bucket - 1) / bucket;
  const uint8_t* levels = in + 8 * buckets;
  const uint32_t top = (1u << bits) - 1;
  for (int64_t b = 0; b < buckets; ++b) {
    const float unit = codec::load_float(in + 8 * b), mn = codec::load_float(in + 8 * b + 4);
    const int64_t lo = b * bucket, hi = std::min(n, lo + bucket);
    for (int64_t i = lo; i < hi; ++i) {
      const float v = codec::cgx_value(mn, codec::cgx_level_at(levels, i, bits, top), unit);
      out[i] = accumulate ? codec::add(out[i], v) : v;
    }
  }
}

CgxBufferCodec::CgxBufferCodec(std::vector<Segment> segments) : segments_(std::move(segments)) {
  for (const auto& s : segments_) {
    PRUNEX_CHECK(s.offset == size_, "cgx segments must be consecutive");
    size_ += s.length;
  }
}

template <typename Fn>
void CgxBufferCodec::for_pieces(int64_t lo, int64_t hi, Fn fn) const {
  int64_t at = 0;  // wire offset
  for (const auto& s : segments_) {
    const int64_t a = std::max(lo, s.offset), b = std::min(hi, s.offset + s.length);
    if (a >= b) continue;
    const int64_t bytes =
        s.codec.compressed ? cgx_wire_bytes(b - a, s.codec.bits, s.codec.bucket) : 4 * (b - a);
    fn(s, a, b, at, bytes);
    at += bytes;
  }
}

int64_t CgxBufferCodec::wire_bytes(int64_t lo, int64_t hi) const {
  int64_t total = 0;
  for_pieces(lo, hi,
             [&](const Segment&, int64_t, int64_t, int64_t, int64_t bytes) { total += bytes; });
  return total;
}

int64_t CgxBufferCodec::wire_bytes_split(int parts) const {
  int64_t total = 0;
  for (int c = 0; c < parts; ++c) {
    const auto [lo, hi] = chunk(size_, parts, c);
    total += wire_bytes(lo, hi);
  }
  return total;
}

void CgxBufferCodec::encode(const float* buffer, int64_t lo, int64_t hi, bool stochastic,
                            uint64_t seed, uint8_t* out, PeerKernels& k) const {
  for_pieces(lo, hi, [&](const Segment& s, int64_t a, int64_t b, int64_t at, int64_t) {
    if (s.codec.compressed)
      k.cgx_quantize(buffer + a, b - a, s.codec.bits, s.codec.bucket, stochastic,
                     seed ^ static_cast<uint64_t>(a) * 0x2545f4914f6cdd1dull, out + at);
    else
      k.floats_to_wire(buffer + a, b - a, out + at);
  });
}

void CgxBufferCodec::decode(const uint8_t* in, int64_t lo, int64_t hi, float* buffer,
                            bool accumulate, PeerKernels& k) const {
  for_pieces(lo, hi, [&](const Segment& s, int64_t a, int64_t b, int64_t at, int64_t) {
    if (s.codec.compressed)
      k.cgx_dequantize(in + at, b - a, s.codec.bits, s.codec.bucket, buffer + a, accumulate);
    else  // a piece may start at any byte (compressed pieces have odd lengths)
      k.floats_from_wire(in + at, b - a, buffer + a, accumulate);
  });
}

CgxBufferCodec cgx_bucket_codec(const ModelLayout& layout, const std::vector<int>& layers,
                                const std::vector<int64_t>& offsets, const std::vector<int>& bits,
                                int bucket, bool adaptive) {
  std::vector<CgxBufferCodec::Segment> segs;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const LayerInfo& l = layout.layers[layers[i]];
    CgxBufferCodec::Segment s;
    s.offset = offsets[i];
    s.length = l.numel();
    s.codec.compressed = cgx_compresses(l);
    s.codec.bits = bits[layers[i]];
    s.codec.bucket = adaptive ? cgx_bucket_for_bits(s.codec.bits, bucket) : bucket;
    segs.push_back(s);
  }
  return CgxBufferCodec(std::move(segs));
}

}  // namespace prunex
