// 16-bit floats on the wire (hsadmm / hsadmm-rail --wire-dtype): conversion from and to
// fp32, round to nearest even as CUDA's __float2bfloat16_rn / __float2half_rn do, and the
// sum in the wire type (each addition rounded back, as NCCL reduces bf16 and fp16).
// Values travel as their bit patterns in uint16_t.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "engine/types.h"

namespace prunex {

inline uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_to_float(uint16_t h) {
  const uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits; overflow to infinity,
// subnormals below 2^-14, round to nearest even everywhere.
inline uint16_t float_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax < 0x38800000u) {                                      // below 2^-14: subnormal or zero
    if (ax < 0x33000000u) return static_cast<uint16_t>(sign);  // below 2^-25: rounds to 0
    const uint32_t e = ax >> 23;                               // 102..112
    const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24: value = m * 2^(e-150), unit 2^-24
    const uint32_t q = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    const uint32_t r = q + (rest > half || (rest == half && (q & 1u)));
    return static_cast<uint16_t>(sign | r);
  }
  const uint32_t rebased = ax - (112u << 23);  // exponent bias 127 -> 15
  const uint32_t r = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (r >> 13));
}

inline float f16_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t x;
  if (e == 0x1f) {
    x = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    x = sign | ((e + 112u) << 23) | (m << 13);
  } else if (m == 0) {
    x = sign;
  } else {  // subnormal: m * 2^-24
    float f = static_cast<float>(m) * (1.0f / 16777216.0f);
    std::memcpy(&x, &f, 4);
    x |= sign;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

constexpr bool is_wire_dtype(DType t) {
  return t == DType::bf16 || t == DType::f16;
}

// --wire-dtype: "fp32" (f32), "bf16" or "fp16" (f16); UsageError naming the valid ones.
DType parse_wire_dtype(const std::string& name);
std::string wire_dtype_name(DType t);  // the inverse

inline uint16_t to_wire(DType t, float f) {
  return t == DType::bf16 ? float_to_bf16(f) : float_to_f16(f);
}
inline float from_wire(DType t, uint16_t h) {
  return t == DType::bf16 ? bf16_to_float(h) : f16_to_float(h);
}

// acc[i] = acc[i] + in[i] in the wire type t (bf16 or f16), rounded once per addition.
inline void wire_add(DType t, uint16_t* acc, const uint16_t* in, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    acc[i] = to_wire(t, from_wire(t, acc[i]) + from_wire(t, in[i]));
}

}  // namespace prunex
