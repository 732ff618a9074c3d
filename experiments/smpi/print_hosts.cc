// The platform's hosts in world-rank order (node-major), for smpirun:
//   print_hosts                 one host name per line: the hostfile for `smpirun -hostfile`,
//                               so MPI rank r runs on PruneX rank r's GPU
//   print_hosts --ring-edges    per edge r -> r+1 (mod n) of the rank-order ring:
//                               "r next latency_s bottleneck_Bps", read off the platform's
//                               routes (for the closed form of SMPI's ring all-reduce)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>

#include "experiments/smpi/platform_env.h"

int main(int argc, char** argv) {
  const bool edges = argc > 1 && std::strcmp(argv[1], "--ring-edges") == 0;
  try {
    simgrid::s4u::Engine engine(&argc, argv);
    const auto p = prunex::sim::smpi::build_platform_from_env();
    const int n = static_cast<int>(p.gpus.size());
    for (int r = 0; r < n; ++r) {
      if (!edges) {
        std::printf("%s\n", p.gpus[r]->get_cname());
        continue;
      }
      const int next = (r + 1) % n;
      double bw = std::numeric_limits<double>::infinity();
      for (const auto* l : p.route_links(r, next)) bw = std::min(bw, l->get_bandwidth());
      std::printf("%d %d %.12e %.12e\n", r, next, p.route_latency(r, next), bw);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "print_hosts: %s\n", e.what());
    return 2;
  }
  return 0;
}
