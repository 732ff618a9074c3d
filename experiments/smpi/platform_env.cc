#include "experiments/smpi/platform_env.h"

#include <cstdlib>
#include <string>

#include "engine/error.h"
#include "topologies/topology_io.h"

namespace prunex::sim::smpi {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  PRUNEX_USAGE(*end == '\0' && x >= 1 && x <= (1 << 20), name, " must be an integer in [1, ",
               1 << 20, "], got '", v, "'");
  return static_cast<int>(x);
}

}  // namespace

Platform build_platform_from_env() {
  const char* name = std::getenv("PRUNEX_TOPOLOGY");
  Topology t = load_topology(name != nullptr && *name != '\0' ? name : "puhti");
  const int nodes = env_int("PRUNEX_NODES", t.nodes);
  const int gpus = env_int("PRUNEX_GPUS_PER_NODE", t.gpus_per_node);
  PRUNEX_USAGE(gpus <= t.gpus_per_node, "PRUNEX_GPUS_PER_NODE must be <= ", t.gpus_per_node,
               " for topology ", t.name, ", got ", gpus);
  if (nodes > t.nodes) t = scale_to_nodes(t, nodes);
  return build_platform(t, {nodes, gpus}, /*latency_in_simgrid=*/true);
}

}  // namespace prunex::sim::smpi
