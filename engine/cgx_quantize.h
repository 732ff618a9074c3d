// CGX's compression (Markov et al., ASPLOS 2023; details as in IST-DASLab/torch_cgx), decided
// once for the live codec (workloads/train/cgx_codec.cc, engine/cgx_allreduce.h) and the plan
// builder (plan_cgx.cc):
// - Max-min quantization in buckets of `bucket` consecutive values: per bucket two fp32
//   metadata values, unit = (max - min) / (2^bits - 1) and min; each value becomes the level
//   round((x - min) / unit) (to nearest, or stochastically), bit-packed LSB first, all levels
//   of a piece in one stream. Decoding gives min + level x unit, so the error of nearest
//   rounding is at most unit / 2.
// - Wire bytes of n values: 2 x 4 x ceil(n / bucket) + ceil(n x bits / 8); a piece holds its
//   metadata first, then its levels.
// - Layers with at most one dimension or fewer than 1024 values travel as fp32.
// - A DDP bucket's buffer is split into `parts` equal chunks (chunk c: values
//   [c n / parts, (c + 1) n / parts)); a chunk holds one piece per layer it overlaps, each
//   quantized from the piece's first value.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/layer_layout.h"
#include "engine/peer_kernels.h"

namespace prunex {

constexpr int kCgxDefaultBits = 4;
constexpr int kCgxDefaultBucket = 1024;      // CGX's published benchmark setting
constexpr int64_t kCgxMinCompressed = 1024;  // smaller layers travel as fp32

inline bool cgx_compresses(const LayerInfo& l) {
  return l.shape.size() > 1 && l.numel() >= kCgxMinCompressed;
}
// Adaptive bits tie the bucket to the bits, as CGX's code does: 2 bits 128, 3 bits 256, else
// the configured bucket.
inline int cgx_bucket_for_bits(int bits, int bucket) {
  return bits == 2 ? 128 : bits == 3 ? 256 : bucket;
}
int64_t cgx_wire_bytes(int64_t n, int bits, int bucket);

struct CgxLayerCodec {
  bool compressed = false;
  int bits = kCgxDefaultBits;
  int bucket = kCgxDefaultBucket;
};

// Quantizes x[0, n) into out (cgx_wire_bytes(n, bits, bucket) bytes). stochastic: level =
// floor(v + u) with u = uniform01(seed, i) instead of floor(v + 1/2).
void cgx_quantize(const float* x, int64_t n, int bits, int bucket, bool stochastic, uint64_t seed,
                  uint8_t* out);
// out[i] (+)= min + level x unit.
void cgx_dequantize(const uint8_t* in, int64_t n, int bits, int bucket, float* out,
                    bool accumulate);

// One DDP bucket's buffer: its layers as consecutive segments with their codecs.
class CgxBufferCodec {
 public:
  struct Segment {
    int64_t offset = 0, length = 0;
    CgxLayerCodec codec;
  };
  explicit CgxBufferCodec(std::vector<Segment> segments);
  int64_t size() const { return size_; }
  const std::vector<Segment>& segments() const { return segments_; }

  // Values [lo, hi) of the buffer, chunk c of `parts`.
  static std::pair<int64_t, int64_t> chunk(int64_t n, int parts, int c) {
    return {n * c / parts, n * (c + 1) / parts};
  }
  int64_t wire_bytes(int64_t lo, int64_t hi) const;
  // Sum of wire_bytes over the chunks of `parts`.
  int64_t wire_bytes_split(int parts) const;
  // Values [lo, hi) of buffer to their wire bytes at out, and back; buffers in k's memory.
  void encode(const float* buffer, int64_t lo, int64_t hi, bool stochastic, uint64_t seed,
              uint8_t* out, PeerKernels& k = host_peer_kernels()) const;
  void decode(const uint8_t* in, int64_t lo, int64_t hi, float* buffer, bool accumulate,
              PeerKernels& k = host_peer_kernels()) const;

 private:
  // fn(segment, first, end, wire offset, wire bytes) for each piece of [lo, hi).
  template <typename Fn>
  void for_pieces(int64_t lo, int64_t hi, Fn fn) const;
  std::vector<Segment> segments_;
  int64_t size_ = 0;
};

// The codecs of one DDP bucket (engine/ddp_buckets.h) of `layout`; bits[l] per layout layer
// (the bucket is tied to the bits when adaptive).
CgxBufferCodec cgx_bucket_codec(const ModelLayout& layout, const std::vector<int>& layers,
                                const std::vector<int64_t>& offsets, const std::vector<int>& bits,
                                int bucket, bool adaptive);

}  // namespace prunex
