// `prunex topology list|show|check`: cluster descriptions (presets and files).
#include <fmt/core.h>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "engine/error.h"
#include "topologies/topology_io.h"
#include "topologies/topology_summary.h"

namespace prunex::cli {
namespace {

int run_topology(const Args& args) {
  const auto& pos = args.positional();
  PRUNEX_USAGE(!pos.empty(), "missing action: list, show NAME_OR_FILE or check NAME_OR_FILE");
  const std::string& action = pos[0];
  if (action == "list") {
    PRUNEX_USAGE(pos.size() == 1, "topology list takes no argument");
    for (const auto& name : preset_names()) {
      Topology t = load_topology(name);
      fmt::print("{:<14} {}\n", name, t.description);
    }
    return 0;
  }
  PRUNEX_USAGE(action == "show" || action == "check", "unknown action '", action,
               "' (list, show, check)");
  PRUNEX_USAGE(pos.size() == 2, "topology ", action, " needs one NAME_OR_FILE");
  Topology t = load_topology(pos[1]);
  if (args.has("nodes"))
    t = scale_to_nodes(t, static_cast<int>(args.get_int("nodes", t.nodes, 1, kMaxScaledNodes)));
  if (action == "check") {
    fmt::print("ok: {}\n", topology_summary_line(t));
  } else if (args.flag("json")) {
    fmt::print("{}\n", topology_to_json(t).dump(2));
  } else {
    fmt::print("{}", describe_topology(t));
  }
  return 0;
}

PRUNEX_REGISTER_COMMAND(Command{
    "topology",
    "list, show or check cluster descriptions (presets or JSON files)",
    "prunex topology list | show NAME_OR_FILE [--json] [--nodes M] | check NAME_OR_FILE",
    "Cluster descriptions: nodes, GPUs per node and their type, intra-node links, NIC rails\n"
    "and the inter-node fabric, each number with its source (format: topologies/README.md).\n"
    "show prints them with per-tier bandwidths and the bisection bandwidth; check validates\n"
    "and prints 'ok: <summary>' or a one-line error (exit 2); list names the presets.\n\n"
    "examples:\n"
    "  prunex topology list\n"
    "  prunex topology show puhti\n"
    "  prunex topology show h100 --nodes 1024 --json\n"
    "  prunex topology check my-cluster.json",
    {
        {"json", "", "show: print the normalised JSON instead of the summary", ""},
        integer_option("nodes", "M",
                       "what-if: the same cluster with M nodes (fat trees gain levels)", "", 1,
                       kMaxScaledNodes),
    },
    run_topology,
    "ACTION [NAME|FILE]"});

}  // namespace
}  // namespace prunex::cli
