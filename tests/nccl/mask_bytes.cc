#include "tests/nccl/mask_bytes.h"

#include <algorithm>

#include "engine/error.h"

namespace prunex {

std::size_t mask_group_bytes(const ModelMask& mask) {
  std::size_t n = 0;
  for (std::size_t l = 0; l < mask.size(); ++l)
    if (mask.pruned(l))
      n += mask[l].keep_out.size() + mask[l].keep_in.size() + mask[l].keep_shape.size();
  return n;
}

std::vector<uint8_t> mask_to_group_bytes(const ModelMask& mask) {
  std::vector<uint8_t> out;
  out.reserve(mask_group_bytes(mask));
  auto put = [&](const std::vector<uint8_t>& v) {
    for (uint8_t b : v) out.push_back(b ? 1 : 0);
  };
  for (std::size_t l = 0; l < mask.size(); ++l) {
    if (!mask.pruned(l)) continue;
    put(mask[l].keep_out);
    put(mask[l].keep_in);
    put(mask[l].keep_shape);
  }
  return out;
}

void mask_from_group_bytes(ModelMask& mask, const uint8_t* bytes, std::size_t n) {
  PRUNEX_CHECK_EQ(n, mask_group_bytes(mask), "mask group buffer of the wrong length");
  std::size_t pos = 0;
  auto get = [&](std::vector<uint8_t>& v) {
    for (auto& b : v) b = bytes[pos++] ? 1 : 0;
  };
  for (std::size_t l = 0; l < mask.size(); ++l) {
    if (!mask.pruned(l)) continue;
    get(mask[l].keep_out);
    get(mask[l].keep_in);
    get(mask[l].keep_shape);
    mask[l].normalise();
  }
}

void expand_bits(const uint8_t* in, std::size_t n, uint8_t* out) {
  for (std::size_t i = 0; i < n; ++i)
    for (int b = 0; b < 8; ++b) out[8 * i + b] = (in[i] >> b) & 1u;
}

void pack_bits(const uint8_t* in, std::size_t n, uint8_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    unsigned x = 0;
    for (int b = 0; b < 8; ++b) x |= (in[8 * i + b] != 0 ? 1u : 0u) << b;
    out[i] = static_cast<uint8_t>(x);
  }
}

}  // namespace prunex
