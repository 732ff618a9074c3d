// The peers' codec arithmetic per value, one definition for the host (engine/cgx_quantize.cc,
// engine/pactrain.cc) and the CUDA kernels (backends/cuda/cuda_peer_kernels.cu), so a value
// encodes and decodes to the same bits in host memory and on the GPU. Plain header: compiled
// by the host compiler and by nvcc.
//
// Every operation rounds once, to nearest: on the device through the _rn intrinsics, which
// nvcc never contracts into a fused multiply-add (it would for a * b + c); on the host as
// written (x86-64's baseline has no FMA instruction to contract into).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/counter_rng.h"

namespace prunex::codec {

PRUNEX_HOST_DEVICE inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
PRUNEX_HOST_DEVICE inline float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
PRUNEX_HOST_DEVICE inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
PRUNEX_HOST_DEVICE inline float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

// A float at any byte offset of a wire buffer.
PRUNEX_HOST_DEVICE inline float load_float(const uint8_t* p) {
  float v;
  memcpy(&v, p, 4);
  return v;
}
PRUNEX_HOST_DEVICE inline void store_float(uint8_t* p, float v) {
  memcpy(p, &v, 4);
}

// CGX max-min quantization (engine/cgx_quantize.h). A bucket of values in [mn, mx] has levels
// 0..top, one unit apart; a bucket with a value that is not finite has NaN for both.
PRUNEX_HOST_DEVICE inline float cgx_unit(float mn, float mx, uint32_t top) {
  return div(sub(mx, mn), static_cast<float>(top));
}

// The level of x: floor((x - mn) / unit + u), clamped to [0, top]; u is 0.5 (nearest) or a
// uniform draw (stochastic rounding). 0 when unit is not > 0 (NaN metadata, or a bucket of
// equal values).
PRUNEX_HOST_DEVICE inline uint32_t cgx_level(float x, float mn, float unit, float u, uint32_t top) {
  if (!(unit > 0)) return 0;
  const float r = floorf(add(div(sub(x, mn), unit), u));
  return static_cast<uint32_t>(fminf(fmaxf(r, 0.0f), static_cast<float>(top)));
}

// The rounding offset of value i: 0.5, or stream `seed`'s i-th uniform draw.
PRUNEX_HOST_DEVICE inline float cgx_offset(bool stochastic, uint64_t seed, int64_t i) {
  return stochastic ? static_cast<float>(uniform01(seed, static_cast<uint64_t>(i))) : 0.5f;
}

// Level i of a packed stream of `bits`-bit levels (LSB first: level i at bits
// [i * bits, (i + 1) * bits), spanning at most two bytes).
PRUNEX_HOST_DEVICE inline uint32_t cgx_level_at(const uint8_t* levels, int64_t i, int bits,
                                                uint32_t top) {
  const int64_t bit = i * bits;
  uint32_t word = levels[bit / 8];
  if ((bit % 8) + bits > 8) word |= static_cast<uint32_t>(levels[bit / 8 + 1]) << 8;
  return (word >> (bit % 8)) & top;
}

// The value level q decodes to.
PRUNEX_HOST_DEVICE inline float cgx_value(float mn, uint32_t q, float unit) {
  return add(mn, mul(static_cast<float>(q), unit));
}

// PacTrain's ternary value of x (engine/pactrain.h): sign(x) kept with probability |x| / s
// (s > 0), u the uniform draw.
PRUNEX_HOST_DEVICE inline int8_t ternary(float x, float s, double u) {
  const double p = div(fabsf(x), s);
  return u < p ? (x > 0 ? int8_t(1) : int8_t(-1)) : int8_t(0);
}

}  // namespace prunex::codec
