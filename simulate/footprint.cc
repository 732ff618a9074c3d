#include "simulate/footprint.h"

namespace prunex::sim {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * kKiB;

}  // namespace

double estimate_simulation_bytes(long nodes, long gpus_per_node, long iterations) {
  const double n = static_cast<double>(nodes), p = static_cast<double>(gpus_per_node);
  const double per_node = 8 * kKiB + 4 * kKiB * p + 4 * kKiB * p * (p - 1) / 2;
  return 200 * kMiB + n * per_node + 256.0 * n * p * static_cast<double>(iterations);
}

}  // namespace prunex::sim
