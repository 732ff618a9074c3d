// The one table every `prunex bench` mode prints (nccl-tests style): size, count, type,
// time, algbw, busbw, #wrong, with units on a header row and a closing average bus bandwidth
// line; the same rows go to --json.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/types.h"

namespace prunex {

// One row: a collective (op on a group) or, when `kernel` is set, a memory pass of the
// compaction bench ("pack", "unpack", "memcpy"; op and group unused, the group printed "-").
struct BenchRow {
  CollectiveOp op = CollectiveOp::allreduce;
  Group group = Group::world;
  std::string kernel;
  std::string algo;  // ring, tree, hierarchical, mpi, cpu, cuda
  std::size_t bytes = 0;
  std::size_t count = 0;
  DType dtype = DType::f32;
  double time_us = 0;
  double algbw_gbs = 0;
  double busbw_gbs = 0;
  long wrong = 0;
  int ranks = 1;  // ranks in the group that ran it (fill_bandwidth sets it)
};

// nccl-tests' bus-bandwidth factor for an op over n ranks: all-reduce 2(n-1)/n, all-gather
// and reduce-scatter (n-1)/n, broadcast 1.
double busbw_factor(CollectiveOp op, int n);
// The op and group columns as printed and written ("pack", "-" for memory rows).
std::string op_text(const BenchRow& r);
std::string group_text(const BenchRow& r);
// Fills ranks, algbw and busbw from bytes and time_us (GB/s = 1e9 bytes per second).
void fill_bandwidth(BenchRow& row, int n);

// A row for a single-device memory benchmark (pack, unpack, copy): count in floats, busbw =
// algbw.
BenchRow memory_bench_row(const std::string& op, const std::string& algo, double bytes,
                          double time_us, long wrong);

void print_bench_header(std::FILE* f, const std::string& title);
void print_bench_row(std::FILE* f, const BenchRow& row);
// "# Avg bus bandwidth : X GB/s" plus "# Out of bounds values : N" like nccl-tests.
void print_bench_footer(std::FILE* f, const std::vector<BenchRow>& rows);

// The rows as JSON objects; `context` (e.g. backend, nodes, gpus_per_node, world) is merged
// into every row, so a row alone says where it was measured (prunex calibrate reads them).
nlohmann::json bench_rows_json(const std::vector<BenchRow>& rows,
                               const nlohmann::json& context = nlohmann::json::object());
// Sizes from -b to -e multiplying by -f (nccl-tests' sweep).
std::vector<std::size_t> bench_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor);

// Statistics of a bench's timed iterations (v non-empty).
double median(std::vector<double> v);
double mean(const std::vector<double>& v);

}  // namespace prunex
