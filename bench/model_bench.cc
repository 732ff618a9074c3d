#include "bench/model_bench.h"

#include <fmt/format.h>

#include <climits>

#include "engine/error.h"
#include "workloads/layers/model_zoo.h"

namespace prunex {

void fill_random(std::vector<float>& v, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int32_t>(s >> 32)) * (1.0f / 2147483648.0f);
  }
}

double print_sector_traffic(const ModelLayout& layout, const ModelMask& mask, double compact_bytes,
                            double dense_bytes, double both_us, double copy_gbs, int unit,
                            const char* unit_name) {
  const double s = static_cast<double>(kept_sector_bytes(layout, mask, unit));
  const double moved = 2 * s + compact_bytes + compact_bytes + dense_bytes;
  const double gbs = both_us > 0 ? moved / both_us / 1e3 : 0.0;
  const double ratio = copy_gbs > 0 ? gbs / copy_gbs : 0.0;
  fmt::print(
      "# in whole {}-byte {}: pack reads 2 x {:.1f} MB of z and v ({:.1f}% of the dense "
      "layers); pack+unpack moves {:.1f} MB, {:.1f} GB/s, ratio {:.3f} to the copy\n",
      unit, unit_name, s / 1e6, 100.0 * s / dense_bytes, moved / 1e6, gbs, ratio);
  return ratio;
}

}  // namespace prunex
