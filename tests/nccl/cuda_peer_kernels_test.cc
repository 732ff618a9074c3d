// The peers' CUDA kernels (backends/cuda/cuda_peer_kernels.h) against the host functions
// (engine/cgx_quantize.h, engine/pactrain.h), bit for bit, on random data of awkward sizes: CGX's
// quantization (nearest and stochastic, 2 to 8 bits, buckets that do not divide the values),
// its dequantization (with and without accumulation), whole bucket buffers whose pieces start
// at odd bytes, a bucket holding a NaN, and pactrain's ternary levels. Needs a GPU: without one
// each test skips and says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "backends/cuda/cuda_handles.h"
#include "backends/cuda/cuda_peer_kernels.h"
#include "engine/cgx_quantize.h"
#include "engine/pactrain.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

std::vector<float> normal_values(int64_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(CudaPeerKernels, CgxQuantizeAndDequantizeEqualHostBitForBit) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_peer_kernels();
  std::mt19937 rng(5);
  for (int bits : {2, 3, 4, 5, 8})
    for (int bucket : {7, 128, 1024})
      for (int64_t n : {1, 9, 1000, 4099})
        for (bool stochastic : {false, true}) {
          SCOPED_TRACE(::testing::Message() << bits << " bits, bucket " << bucket << ", n " << n
                                            << (stochastic ? ", stochastic" : ""));
          std::vector<float> x = normal_values(n, rng);
          if (n > 8) x[3] = x[4] = x[5];  // ties
          const int64_t wire = cgx_wire_bytes(n, bits, bucket);
          std::vector<uint8_t> want(static_cast<size_t>(wire));
          cgx_quantize(x.data(), n, bits, bucket, stochastic, 99 + n, want.data());
          DeviceArray<float> xd(x);
          DeviceArray<uint8_t> wd(static_cast<size_t>(wire + 1));  // + 1: start at an odd byte
          gpu->cgx_quantize(xd.data(), n, bits, bucket, stochastic, 99 + n, wd.data() + 1);
          gpu->sync();
          std::vector<uint8_t> got = wd.download();
          got.erase(got.begin());
          ASSERT_TRUE(same_bytes(got, want));

          std::vector<float> base = normal_values(n, rng), acc = base, set = base;
          cgx_dequantize(want.data(), n, bits, bucket, acc.data(), true);
          cgx_dequantize(want.data(), n, bits, bucket, set.data(), false);
          DeviceArray<float> accd(base), setd(base);
          gpu->cgx_dequantize(wd.data() + 1, n, bits, bucket, accd.data(), true);
          gpu->cgx_dequantize(wd.data() + 1, n, bits, bucket, setd.data(), false);
          gpu->sync();
          EXPECT_TRUE(same_bytes(accd.download(), acc));
          EXPECT_TRUE(same_bytes(setd.download(), set));
        }
}

TEST(CudaPeerKernels, CgxBucketWithNanOrEqualValuesEqualsHost) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_peer_kernels();
  std::mt19937 rng(6);
  std::vector<float> x = normal_values(300, rng);
  x[17] = std::numeric_limits<float>::quiet_NaN();  // bucket 0 of 128: NaN metadata
  x[200] = std::numeric_limits<float>::infinity();  // bucket 1
  for (int i = 256; i < 300; ++i) x[i] = 0.25f;     // bucket 2: all equal, unit 0
  const int64_t wire = cgx_wire_bytes(300, 4, 128);
  std::vector<uint8_t> want(static_cast<size_t>(wire));
  cgx_quantize(x.data(), 300, 4, 128, false, 1, want.data());
  DeviceArray<float> xd(x);
  DeviceArray<uint8_t> wd(static_cast<size_t>(wire));
  gpu->cgx_quantize(xd.data(), 300, 4, 128, false, 1, wd.data());
  gpu->sync();
  EXPECT_TRUE(same_bytes(wd.download(), want));
}

TEST(CudaPeerKernels, CgxBufferCodecPiecesAtOddBytesEqualHost) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_peer_kernels();
  std::mt19937 rng(7);
  // fp32, 3-bit, fp32, 4-bit, 2-bit pieces: every piece after the first starts at an odd byte.
  std::vector<CgxBufferCodec::Segment> segs;
  int64_t at = 0;
  for (auto [len, bits] :
       std::vector<std::pair<int64_t, int>>{{5, 0}, {2051, 3}, {3, 0}, {1500, 4}, {777, 2}}) {
    CgxBufferCodec::Segment s;
    s.offset = at;
    s.length = len;
    s.codec.compressed = bits > 0;
    s.codec.bits = bits > 0 ? bits : 4;
    s.codec.bucket = 256;
    segs.push_back(s);
    at += len;
  }
  const CgxBufferCodec codec(segs);
  const std::vector<float> x = normal_values(codec.size(), rng);
  for (int parts : {1, 3}) {
    for (int c = 0; c < parts; ++c) {
      const auto [lo, hi] = CgxBufferCodec::chunk(codec.size(), parts, c);
      SCOPED_TRACE(::testing::Message() << "chunk " << c << " of " << parts);
      std::vector<uint8_t> want(static_cast<size_t>(codec.wire_bytes(lo, hi)));
      codec.encode(x.data(), lo, hi, true, 42, want.data());
      DeviceArray<float> xd(x);
      DeviceArray<uint8_t> wd(want.size());
      codec.encode(xd.data(), lo, hi, true, 42, wd.data(), *gpu);
      gpu->sync();
      ASSERT_TRUE(same_bytes(wd.download(), want));
      std::vector<float> y = x;
      codec.decode(want.data(), lo, hi, y.data(), true);
      DeviceArray<float> yd(x);
      codec.decode(wd.data(), lo, hi, yd.data(), true, *gpu);
      gpu->sync();
      EXPECT_TRUE(same_bytes(yd.download(), y));
    }
  }
}

TEST(CudaPeerKernels, TernarizeEqualsHostBitForBit) {
  PRUNEX_REQUIRE_DEVICE();
  auto gpu = make_cuda_peer_kernels();
  std::mt19937 rng(8);
  for (int64_t n : {1, 255, 100003}) {
    const std::vector<float> x = normal_values(n, rng, 1e-3f);
    const float s = max_abs(x.data(), n);
    for (float scaler : {s, 0.0f, std::numeric_limits<float>::infinity()}) {
      SCOPED_TRACE(::testing::Message() << "n " << n << ", scaler " << scaler);
      std::vector<int8_t> want(static_cast<size_t>(n));
      ternarize(x.data(), n, scaler, 1234 + n, want.data());
      DeviceArray<float> xd(x);
      DeviceArray<int8_t> td(static_cast<size_t>(n));
      gpu->ternarize(xd.data(), n, scaler, 1234 + n, td.data());
      gpu->sync();
      EXPECT_TRUE(same_bytes(td.download(), want));
    }
  }
}

}  // namespace
}  // namespace prunex
