// 16-bit wire types: the conversions against independent references (fp16 against GCC's
// _Float16 on a sample of every exponent and the boundaries; bf16 against the nearest of the
// two neighbouring bf16 values computed in double, ties to even), pack_wire / unpack_wire
// against fp32 pack / unpack followed by an element-wise conversion, and the in-process sum
// in the wire type against a closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backends/inproc/inproc_communicator.h"
#include "engine/compaction.h"
#include "engine/error.h"
#include "engine/wire_dtype.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {
namespace {

float bits_float(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Every 2^32 / 2^22 pattern plus its neighbours, and the special values.
std::vector<uint32_t> sample_patterns() {
  std::vector<uint32_t> out;
  for (uint64_t x = 0; x <= 0xffffffffull; x += 1021)
    for (int d : {0, 1, -1}) out.push_back(static_cast<uint32_t>(x + d));
  for (float f : {0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, 6.1035156e-05f, 5.9604645e-08f,
                  2.9802322e-08f, 2.9802326e-08f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max()}) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    out.push_back(x);
  }
  return out;
}

TEST(WireDtype, HalfMatchesTheCompiler) {
  for (uint32_t x : sample_patterns()) {
    const float f = bits_float(x);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_float(float_to_f16(f))));
      continue;
    }
    const _Float16 ref = static_cast<_Float16>(f);
    uint16_t ref_bits;
    std::memcpy(&ref_bits, &ref, 2);
    ASSERT_EQ(float_to_f16(f), ref_bits) << std::hexfloat << f;
    ASSERT_EQ(f16_to_float(ref_bits), static_cast<float>(ref)) << std::hexfloat << f;
  }
}

TEST(WireDtype, Bf16IsTheNearestNeighbourTiesToEven) {
  for (uint32_t x : sample_patterns()) {
    const float f = bits_float(x);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(f))));
      continue;
    }
    if (std::isinf(f)) {
      EXPECT_EQ(bf16_to_float(float_to_bf16(f)), f);
      continue;
    }
    const uint16_t lo = static_cast<uint16_t>(x >> 16), hi = static_cast<uint16_t>(lo + 1);
    const double dl = std::fabs(double(f) - bf16_to_float(lo));
    // Past the largest finite bf16 the next value up is infinity, at 2^128 for rounding.
    const double hv = std::isinf(bf16_to_float(hi)) ? std::copysign(std::ldexp(1.0, 128), f)
                                                    : double(bf16_to_float(hi));
    const double dh = std::fabs(double(f) - hv);
    const uint16_t want = dl < dh ? lo : dh < dl ? hi : (lo & 1 ? hi : lo);
    ASSERT_EQ(float_to_bf16(f), want) << std::hexfloat << f;
  }
}

TEST(WireDtype, ParseNames) {
  EXPECT_EQ(parse_wire_dtype("bf16"), DType::bf16);
  EXPECT_EQ(parse_wire_dtype("fp16"), DType::f16);
  EXPECT_EQ(parse_wire_dtype("fp32"), DType::f32);
  EXPECT_THROW(parse_wire_dtype("fp8"), UsageError);
}

// pack_wire(z + v) == to_wire(pack(z + v)) and unpack_wire == unpack(from_wire(...)), on
// small_cnn with channel masks and buckets small enough to cut layers.
TEST(WireDtype, PackAndUnpackEqualFp32PathsConverted) {
  const ModelLayout layout = make_layout("small_cnn", 10, 28, 1);
  const SparsitySpec spec = SparsitySpec::build(layout, kChannel, KeepRate::of_fraction(0.5));
  ModelMask mask(layout, spec);
  std::mt19937 rng(3);
  for (size_t l = 0; l < mask.size(); ++l)
    if (mask.pruned(l))
      for (size_t c = 1; c < mask[l].keep_in.size(); ++c) mask[l].keep_in[c] = rng() % 2;
  const CompactionPlan plan(layout, mask, 16 << 10);
  ASSERT_GT(plan.buckets(), 2);
  std::normal_distribution<float> normal(0, 3);
  std::vector<std::vector<float>> z(layout.layers.size()), v(z.size());
  std::vector<const float*> zp, vp;
  for (size_t l = 0; l < z.size(); ++l) {
    for (int64_t i = 0; i < layout.layers[l].numel(); ++i) {
      z[l].push_back(normal(rng));
      v[l].push_back(normal(rng));
    }
    zp.push_back(z[l].data());
    vp.push_back(v[l].data());
  }
  for (DType w : {DType::bf16, DType::f16}) {
    BucketSet f32(plan);
    WireBucketSet wire(plan);
    pack(plan, zp.data(), vp.data(), f32.data());
    pack_wire(plan, w, zp.data(), vp.data(), wire.data());
    for (int b = 0; b < plan.buckets(); ++b)
      for (int64_t i = 0; i < plan.bucket_floats(b); ++i)
        ASSERT_EQ(wire.bucket(b)[i], to_wire(w, f32.bucket(b)[i])) << b << ":" << i;
    for (int b = 0; b < plan.buckets(); ++b)  // the fp32 path fed the converted values
      for (int64_t i = 0; i < plan.bucket_floats(b); ++i)
        f32.bucket(b)[i] = from_wire(w, wire.bucket(b)[i]);
    std::vector<std::vector<float>> a(z.size()), c(z.size());
    std::vector<float*> ap, cp;
    for (size_t l = 0; l < z.size(); ++l) {
      a[l].assign(z[l].size(), 7.f);
      c[l].assign(z[l].size(), -7.f);
      ap.push_back(a[l].data());
      cp.push_back(c[l].data());
    }
    unpack(plan, f32.data(), ap.data(), 0.25f);
    unpack_wire(plan, w, wire.data(), cp.data(), 0.25f);
    for (size_t l = 0; l < z.size(); ++l) ASSERT_EQ(a[l], c[l]) << layout.layers[l].name;
  }
}

// The sum in the wire type: 4 ranks as threads, values whose sums are exact in bf16 and f16
// (integers below 256), then a sum whose rounding shows it was done in the wire type.
TEST(WireDtype, InProcessSumIsInTheWireType) {
  for (DType w : {DType::bf16, DType::f16}) {
    spawn_ranks(NodeGrouping{4, 2}, [&](Communicator& comm) {
      const int r = comm.world_rank();
      std::vector<uint16_t> x = {to_wire(w, float(r + 1)), to_wire(w, float(10 * r)),
                                 to_wire(w, r == 0 ? 1.0f : 0.0009765625f)};
      comm.allreduce(x.data(), x.size(), w, ReduceOp::sum, Group::world);
      EXPECT_EQ(from_wire(w, x[0]), 10.0f);
      EXPECT_EQ(from_wire(w, x[1]), 60.0f);
      // 1 + 3 x 2^-10: fp16 keeps 2^-10 steps at 1 (1 + 3/1024); bf16 (2^-7 steps at 1)
      // rounds each addition back to 1, where an fp32 sum would have kept 1.0029.
      EXPECT_EQ(from_wire(w, x[2]), w == DType::f16 ? 1.0f + 3.0f / 1024 : 1.0f);
    });
  }
}

}  // namespace
}  // namespace prunex
