// Names of the enum values as topology files spell them.
#pragma once

#include <string>

#include "topologies/topology.h"

namespace prunex {

std::string intra_kind_name(IntraKind k);
std::string fabric_kind_name(FabricKind k);
// false when `name` is not a kind; *out is left alone then.
bool intra_kind_from_name(const std::string& name, IntraKind* out);
bool fabric_kind_from_name(const std::string& name, FabricKind* out);
// "nvlink_pairs, nvswitch, pcie, loopback" — for error messages.
std::string intra_kind_names();
std::string fabric_kind_names();

// simulate --precision: "fp32", "tf32", "amp" (UsageError naming the choices otherwise).
Precision parse_precision(const std::string& name);
std::string precision_name(Precision p);

}  // namespace prunex
