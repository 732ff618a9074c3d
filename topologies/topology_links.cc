// Numbers derived from a topology: the achieved rates its links run at (achieved_bandwidths),
// the GPU's speed at a precision (apply_precision) and what a ring gets from an NVLink matrix
// (ring_links).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "engine/error.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"

namespace prunex {

Topology achieved_bandwidths(const Topology& t) {
  Topology a = t;
  auto note = [&](const std::string& key, double f, const std::string& from) {
    a.sources[key] =
        fmt::format("{} x {:g} achieved ({})", a.sources.count(key) ? a.sources[key] : "", f,
                    a.sources.count(from) ? a.sources[from] : "achieved_fraction");
  };
  if (t.intra.achieved != 1) {
    a.intra.link.bandwidth_Bps *= t.intra.achieved;
    note("intra.bandwidth_gbs", t.intra.achieved, "intra.achieved_fraction");
    a.intra.achieved = 1;
  }
  if (t.nic.achieved != 1) {
    a.nic.link.bandwidth_Bps *= t.nic.achieved;
    a.fabric.link.bandwidth_Bps *= t.nic.achieved;
    note("nic.bandwidth_gbits", t.nic.achieved, "nic.achieved_fraction");
    note("fabric.bandwidth_gbits", t.nic.achieved, "nic.achieved_fraction");
    a.nic.achieved = 1;
  }
  return a;
}

Topology apply_precision(const Topology& t, Precision p) {
  if (p == Precision::fp32) return t;
  const bool tf32 = p == Precision::tf32;
  const double peak = tf32 ? t.gpu.tf32_flops : t.gpu.fp16_flops;
  const double efficiency = tf32 ? t.gpu.tf32_efficiency : t.gpu.amp_efficiency;
  const std::string peak_key = tf32 ? "gpu.tf32_tflops" : "gpu.fp16_tflops";
  const std::string eff_key = tf32 ? "gpu.tf32_efficiency" : "gpu.amp_efficiency";
  const std::string what = std::string("--precision ") + precision_name(p) + ": topology " + t.name;
  PRUNEX_USAGE(peak > 0, what, " states no ", peak_key, " (", t.gpu.name,
               " has no TF32 tensor cores, or the file leaves it out)");
  PRUNEX_USAGE(efficiency > 0, what, " states no ", eff_key,
               " (the sustained fraction of that peak: add it with its source, or leave "
               "--precision out and pass a --calibration whose compute was measured at that "
               "precision)");
  Topology a = t;
  a.gpu.fp32_flops = peak;
  a.gpu.efficiency = efficiency;
  a.sources["gpu.fp32_tflops"] =
      fmt::format("--precision {}: {} ({})", precision_name(p), peak_key, t.source_of(peak_key));
  a.sources["gpu.efficiency"] =
      fmt::format("--precision {}: {} ({})", precision_name(p), eff_key, t.source_of(eff_key));
  return a;
}

int ring_links(const std::vector<std::vector<int>>& links) {
  const int n = static_cast<int>(links.size());
  PRUNEX_CHECK(n <= 20, "ring_links: at most 20 GPUs (got ", n, ")");
  if (n <= 1) return 0;
  if (n == 2) return links[0][1];
  int best = 0;
  for (const auto& row : links)
    for (int x : row) best = std::max(best, x);
  // Largest k first: is there a Hamiltonian cycle over pairs with >= k links? Bitmask search
  // of the paths from GPU 0 (reach[mask] = the GPUs a path through `mask` can end at).
  for (int k = best; k >= 1; --k) {
    std::vector<uint32_t> reach(1u << n, 0);
    reach[1] = 1;
    for (uint32_t mask = 1; mask < (1u << n); mask += 2)
      for (int v = 0; v < n; ++v)
        if (reach[mask] >> v & 1)
          for (int w = 0; w < n; ++w)
            if (!(mask >> w & 1) && links[v][w] >= k) reach[mask | 1u << w] |= 1u << w;
    const uint32_t all = (1u << n) - 1;
    for (int v = 1; v < n; ++v)
      if ((reach[all] >> v & 1) && links[v][0] >= k) return k;
  }
  return 0;
}

}  // namespace prunex
