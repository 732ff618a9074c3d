// The simulated platform as a person sets it, the same for every command that simulates
// (simulate, sweep, validate, bench --backend sim, calibrate, reproduce): SimGrid's network
// model, the fat tree's routing, NCCL's protocols, links at their achieved bandwidths, a
// calibration file, and the collectives' algorithm. The options: simulate/platform_fields.h.
#pragma once

#include <string>

#include "netmodel/sim_config.h"
#include "topologies/link_what_if.h"

namespace prunex::sim {

struct PlatformSettings {
  std::string network_model = "CM02";  // SimGrid's: CM02, LV08, SMPI, IB
  FabricRouting fabric_routing = FabricRouting::pooled;
  long ecmp_seed = 1;           // the hash of fabric_routing ecmp
  bool nccl_protocols = false;  // each collective in the protocol NCCL picks for its size
  bool call_latency = true;     // each collective call pays NCCL's base latency
  // Links at their achieved bandwidths: the topology's achieved fractions (published
  // microbenchmarks) times the signalling rates.
  bool achieved_bandwidth = true;
  std::string calibration;  // calibration.json (empty: the topology's numbers)
  // NCCL's pick per collective, as real clusters run; a calibration runs the algorithm its
  // op fits assume (calibration_apply.cc).
  Algo algo = Algo::nccl;
  // What-ifs on the topology's links (topologies/link_what_if.h); 0 / empty: as the file says.
  int nic_rails = 0;
  double nic_gbits = 0;
  std::string nic_transport;
  double intra_gbs = 0;
  LinkWhatIf link_what_if() const { return {nic_rails, nic_gbits, nic_transport, intra_gbs}; }
};

}  // namespace prunex::sim
