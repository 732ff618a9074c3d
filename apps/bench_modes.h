// `prunex bench` has one option set and several modes (live MPI, simulated, compaction);
// each mode lives in its own apps/bench_*.cc and registers itself here.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "apps/cli.h"

namespace prunex::cli {

// Key: "op:compaction" for --op compaction, otherwise "backend:<name>" (mpi, sim, nccl).
using BenchMode = std::function<int(const Args&)>;
std::map<std::string, BenchMode>& bench_modes();

struct BenchModeRegistrar {
  BenchModeRegistrar(const std::string& key, BenchMode fn) { bench_modes()[key] = std::move(fn); }
};

}  // namespace prunex::cli

#define PRUNEX_REGISTER_BENCH_MODE(key, fn) \
  static ::prunex::cli::BenchModeRegistrar PRUNEX_CLI_CONCAT(prunex_bench_, __LINE__)(key, fn)
