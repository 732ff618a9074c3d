// How `prunex emulate` runs a command on an emulated cluster: mpirun started inside node 0's
// namespace with node 0's hostname, its rsh agent entering the other nodes, Open MPI's TCP
// transport on the rail links; and the record every rank reads from PRUNEX_EMULATION.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emulation/emulate_net.h"

namespace prunex {

// The argv that runs `prunex` (this executable's path) with `command` (a prunex subcommand
// and its arguments) as M x P ranks on the built cluster, through `mpirun` (its path).
// prunex empty: `command` is a program of its own and its arguments (emulate --program).
std::vector<std::string> emulated_mpirun_argv(const EmulatedCluster& cluster,
                                              const std::string& mpirun, const std::string& prunex,
                                              const std::vector<std::string>& command);

// What was emulated (topology, shape, rails, rate, latency and how it is delayed), as runs
// record it in metrics.json; with the nodes' addresses on rail 0 and that interface's name,
// for programs that rendezvous on their own (a PyTorch process group's MASTER_ADDR).
nlohmann::json emulation_record(const EmulatedCluster& cluster);

}  // namespace prunex
