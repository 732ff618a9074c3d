// Topology files (JSON, format in topologies/README.md): loading presets and files, parsing,
// validation and the normalised JSON form. Every failure is a prunex::UsageError with one
// line that names the origin and the field, e.g.
//   "topology puhti.json: nic.bandwidth_gbits must be > 0 (got 0)".
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "topologies/topology.h"

namespace prunex {

// A preset name ("puhti") resolves to PRUNEX_PRESET_DIR/<name>.json; anything containing '/'
// or ending in ".json" is a file path. Unknown names list the presets.
Topology load_topology(const std::string& name_or_file);

// Converts a parsed document to SI units, records `source` strings into Topology::sources
// (keyed by dotted field path) and validates. `origin` names the document in errors.
Topology parse_topology(const nlohmann::json& doc, const std::string& origin);

// The normalised file form (file units; {"value", "source"} where a source is known).
// parse_topology(topology_to_json(t), ...) gives back t.
nlohmann::json topology_to_json(const Topology& t);

// Preset names (file stems under PRUNEX_PRESET_DIR), sorted.
std::vector<std::string> preset_names();

// Checks values and counts (positive bandwidths, rails >= 1, NVLink ports, fat-tree radix
// large enough to connect nodes x rails ports, dragonfly groups connected). Call again after
// overriding a field (e.g. nodes). Errors name the file field; `origin` defaults to t.name.
void check_topology(const Topology& t, const std::string& origin = "");

// The most nodes a what-if scale-out takes (simulate, sweep, topology show --nodes).
constexpr int kMaxScaledNodes = 1 << 20;

// What-if scale-out: the same cluster with `nodes` nodes. A fat tree gains levels (same
// switches) until it connects them; a dragonfly gains groups of the same size. The change is
// recorded in sources; the result is validated.
Topology scale_to_nodes(const Topology& t, int nodes);

// The links at their achieved bandwidths: intra links x intra.achieved_fraction, NIC and
// fabric links x nic.achieved_fraction (fractions then 1, so applying twice changes nothing);
// the change is recorded in sources. What `prunex simulate --achieved-bandwidth` runs on.
Topology achieved_bandwidths(const Topology& t);

// The GPU computing at precision p (its names: topology_names.h): its fp32_flops and efficiency
// become that precision's peak (TF32 or fp16 tensor cores) and sustained fraction, so
// effective_flops() is the speed a run at p gets; the change is recorded in sources. fp32 changes
// nothing. UsageError naming the field to add when the topology does not state the precision's peak
// or efficiency.
Topology apply_precision(const Topology& t, Precision p);

// The most links that every hop of some ring through all GPUs can have, given the NVLink
// count of each pair (a square, symmetric matrix): the largest k for which the pairs with at
// least k links hold a Hamiltonian cycle (two GPUs: their pair; one GPU: 0). 0 when no ring
// runs over NVLink alone. At most 20 GPUs (a bitmask search).
int ring_links(const std::vector<std::vector<int>>& links);

}  // namespace prunex
