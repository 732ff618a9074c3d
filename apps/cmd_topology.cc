// `prunex topology list|show|check`: cluster descriptions (presets and files).
#include <fmt/core.h>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <algorithm>
#include <map>
#include <vector>

#include "apps/cli.h"
#include "engine/error.h"
#include "records/output_dir.h"
#include "records/run_record.h"
#include "topologies/topology_import.h"
#include "topologies/topology_io.h"
#include "topologies/topology_summary.h"

namespace prunex::cli {
namespace {

// import FILE --base NAME|FILE --name NAME --out FILE.json
int run_import(const Args& args) {
  const auto& pos = args.positional();
  PRUNEX_USAGE(pos.size() == 2, "topology import needs one FILE (a saved nvidia-smi topo -m)");
  PRUNEX_USAGE(args.has("base"),
               "topology import needs --base NAME|FILE (GPU, link speeds, fabric)");
  PRUNEX_USAGE(args.has("out"), "topology import needs --out FILE.json");
  const std::string out = *args.get("out");
  const OutputFile out_file(out);
  std::ifstream in(pos[1]);
  PRUNEX_USAGE(in.good(), "topology import: cannot open ", pos[1]);
  std::stringstream text;
  text << in.rdbuf();
  const TopoMatrix m = parse_topo_matrix(text.str(), pos[1]);
  const Topology base = load_topology(*args.get("base"));
  const Topology t = import_node(m, pos[1], base, args.get_or("name", base.name + "-imported"));
  write_file_atomic(out, topology_to_json(t).dump(2) + "\n");
  fmt::print("wrote {}: {}\n", out, topology_summary_line(t));
  return 0;
}

int run_topology(const Args& args) {
  const auto& pos = args.positional();
  PRUNEX_USAGE(!pos.empty(),
               "missing action: list, show NAME_OR_FILE, check NAME_OR_FILE or import KIND INPUT");
  const std::string& action = pos[0];
  // Each action's options; another action's is a mistake, not something to ignore.
  const std::map<std::string, std::vector<std::string>> takes = {
      {"list", {}},
      {"show", {"json", "nodes"}},
      {"check", {"nodes"}},
      {"import", {"base", "name", "out"}}};
  if (const auto it = takes.find(action); it != takes.end())
    for (const char* o : {"json", "base", "name", "out", "nodes"})
      PRUNEX_USAGE(
          !args.has(o) || std::find(it->second.begin(), it->second.end(), o) != it->second.end(),
          "topology ", action, " does not take --", o);
  if (action == "list") {
    PRUNEX_USAGE(pos.size() == 1, "topology list takes no argument");
    std::size_t width = 0;
    for (const auto& name : preset_names()) width = std::max(width, name.size());
    for (const auto& name : preset_names()) {
      Topology t = load_topology(name);
      fmt::print("{:<{}}  {}\n", name, width, t.description);
    }
    return 0;
  }
  if (action == "import") return run_import(args);
  PRUNEX_USAGE(action == "show" || action == "check", "unknown action '", action,
               "' (list, show, check, import)");
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
    "prunex topology list | show NAME_OR_FILE [--json] [--nodes M] | check NAME_OR_FILE | "
    "import TOPO.txt --base NAME|FILE --out FILE.json [--name NAME]",
    "Cluster descriptions: nodes, GPUs per node and their type, intra-node links, NIC rails\n"
    "and the inter-node fabric, each number with its source (format: topologies/README.md).\n"
    "show prints them with per-tier bandwidths and the bisection bandwidth; check validates\n"
    "and prints 'ok: <summary>' or a one-line error (exit 2); list names the presets.\n"
    "import builds a node from a saved `nvidia-smi topo -m` output: its GPUs, the NVLink\n"
    "count of each pair (intra.links) and each GPU's nearest NIC (one rail per NIC,\n"
    "nic.affinity); the rest (GPU type, link and NIC speeds, fabric, nodes) comes from --base.\n\n"
    "examples:\n"
    "  prunex topology list\n"
    "  prunex topology show puhti\n"
    "  prunex topology show h100 --nodes 1024 --json\n"
    "  prunex topology check my-cluster.json\n"
    "  prunex topology import topo.txt --base dgx1-v100 --name my-node --out my-node.json",
    {
        {"json", "", "show: print the normalised JSON instead of the summary", ""},
        {"base", "NAME|FILE", "import: the topology the node's other numbers come from", ""},
        {"name", "NAME", "import: the new topology's name", "BASE-imported"},
        {"out", "FILE", "import: where to write the topology JSON", ""},
        integer_option("nodes", "M",
                       "what-if: the same cluster with M nodes (fat trees gain levels)", "", 1,
                       kMaxScaledNodes),
    },
    run_topology,
    "ACTION [NAME|FILE]"});

}  // namespace
}  // namespace prunex::cli
