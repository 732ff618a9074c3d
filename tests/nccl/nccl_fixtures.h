// Shared by the CUDA/NCCL tests: device detection (tests that need a GPU skip with the
// reason), awkward layouts, random masks and data.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>

#include <random>
#include <string>
#include <vector>

#include "backends/cuda/cuda_check.h"
#include "engine/mask.h"
#include "engine/sparsity_spec.h"
#include "tests/engine/sparsity_fixtures.h"

// Skips the current test on a machine without a usable CUDA device, saying why.
#define PRUNEX_REQUIRE_DEVICE()                                                 \
  do {                                                                          \
    if (::prunex::cuda_device_count() == 0)                                     \
      GTEST_SKIP() << "no CUDA device: " << ::prunex::cuda_unavailable_reason() \
                   << " (this test runs on a machine with a GPU)";              \
  } while (0)

namespace prunex::testing {

// Initialises MPI once for the tests that run under mpirun (finalised at exit).
inline void init_mpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (init) return;
  MPI_Init(nullptr, nullptr);
  std::atexit([] {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Finalize();
  });
}

// Empty when an NCCL job of at least min_ranks ranks, one GPU each, can run; otherwise why
// not. Every rank reaches the same verdict (or the ones that go on would hang).
inline std::string why_not_nccl(int min_ranks) {
  if (cuda_device_count() == 0) return "no CUDA device: " + cuda_unavailable_reason();
  init_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < min_ranks)
    return "needs " + std::to_string(min_ranks) + " or more ranks (run under mpirun/srun)";
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int on_host = 0;
  MPI_Comm_size(host, &on_host);
  MPI_Comm_free(&host);
  // Ranks with their own NCCL_HOSTID are different hosts to NCCL (scripts/gpu/nccl_one_gpu.sh):
  // they may share a GPU.
  const bool own_host_ids = std::getenv("NCCL_HOSTID") != nullptr;
  int enough = own_host_ids || on_host <= cuda_device_count() ? 1 : 0, all = 0;
  MPI_Allreduce(&enough, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all)
    return "a host has more ranks than GPUs (NCCL needs one GPU per rank, or a NCCL_HOSTID per "
           "rank: scripts/gpu/nccl_one_gpu.sh)";
  return "";
}

// Odd sizes everywhere: rows that are not multiples of a warp or a tile, a layer larger
// than a tile, 1x1 and 3x3 and 5x5 kernels, an fc layer and 1-D tensors that travel whole.
inline ModelLayout awkward_layout() {
  ModelLayout m;
  m.model = "awkward";
  m.layers = {conv("stem.weight", 7, 3, 3, 3), vec("bn.weight", 7, LayerRole::bn_weight),
              conv("a.weight", 37, 7, 3, 3),   conv("b.weight", 129, 37, 1, 1),
              conv("c.weight", 33, 129, 5, 5), vec("c.bias", 33, LayerRole::bias),
              conv("d.weight", 1, 33, 3, 3),   fc("fc.weight", 11, 1),
              fc("fc2.weight", 13, 301),       vec("fc2.bias", 13, LayerRole::bias)};
  return m;
}

// A random mask of the spec's pruned layers: each group kept with probability p (at least
// one filter and one channel kept), normalised.
inline ModelMask random_mask(const ModelLayout& layout, const SparsitySpec& spec, double p,
                             std::mt19937& rng) {
  ModelMask mask(layout, spec);
  std::bernoulli_distribution keep(p);
  for (size_t l = 0; l < mask.size(); ++l) {
    if (!mask.pruned(l)) continue;
    LayerMask& m = mask[l];
    for (auto& b : m.keep_out) b = keep(rng);
    for (auto& b : m.keep_in) b = keep(rng);
    for (auto& b : m.keep_shape) b = keep(rng);
    m.keep_out[rng() % m.keep_out.size()] = 1;
    const size_t c = rng() % m.keep_in.size();
    m.keep_in[c] = 1;
    m.keep_shape[c * m.dims.k] = 1;
    m.normalise();
  }
  return mask;
}

inline std::vector<std::vector<float>> random_model(const ModelLayout& layout, std::mt19937& rng) {
  std::vector<std::vector<float>> w;
  for (const auto& l : layout.layers) w.push_back(random_tensor(l.numel(), rng));
  return w;
}

template <typename T>
std::vector<T*> pointers(std::vector<std::vector<T>>& v) {
  std::vector<T*> p;
  for (auto& x : v) p.push_back(x.data());
  return p;
}

}  // namespace prunex::testing
