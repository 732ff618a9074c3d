// The collective benchmark of `prunex bench --backend mpi|nccl`, written once against the
// engine's Communicator, as nccl-tests writes one harness for every collective: a per-op table
// (init, check, run; the bus-bandwidth factor is records/bench_rows.h's busbw_factor) and one
// loop over ops, groups and sizes that prints the nccl-tests table and returns its rows. The
// buffers live where the communicator needs them (engine/memory_space.h: host for MPI, the GPU
// for NCCL); inputs are made and results checked on the host.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/communicator.h"
#include "records/bench_rows.h"

namespace prunex {

struct CollectiveBenchConfig {
  std::string backend;  // mpi or nccl: named in the title and the JSON context
  std::vector<CollectiveOp> ops;
  std::vector<Group> groups;
  std::vector<std::size_t> sizes;
  int gpus_per_node = 0;  // 0: the ranks sharing a host form a node
  int iters = 20, warmup = 5;
  bool sync = false;      // barriers before and after every timed call (train --sync-phases)
  double busy_us = 0;     // CPU work on every rank before the first barrier
  std::size_t evict = 0;  // bytes written after the busy spin (the compute's cache footprint)
  bool median = false;    // the median over timed iterations, not the mean
  std::string json;
};

// Every (op, group, size) of cfg on comm; rank 0 prints the table. Collective over the world.
// Buffers live in `mem`, the communicator's memory space: host_space() for MPI,
// make_device_space() (backends/cuda/device_space.h) for NCCL.
std::vector<BenchRow> run_collective_bench(Communicator& comm, SpaceMemory& mem,
                                           const CollectiveBenchConfig& cfg);

// After the rows: rank 0 writes --json (context: backend, grouping, settings) and reports
// wrong elements; returns the exit status (1 when any element was wrong).
int finish_collective_bench(const Communicator& comm, const std::vector<BenchRow>& rows,
                            const CollectiveBenchConfig& cfg);

}  // namespace prunex
