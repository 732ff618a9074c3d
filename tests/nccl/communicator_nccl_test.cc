// The communicator conformance suite (tests/conformance/communicator_suite.h) on NCCL, one GPU
// per rank: run under mpirun/srun (scripts/gpu/gpu_check.sh does), e.g.
//   mpirun -np 2 build/bin/test_nccl --gtest_filter='CommunicatorNccl.*'
// NcclCommunicator takes device pointers; the suite's buffers are on the host, so
// HostStagedCommunicator stages every buffer: copy in, the NCCL call, copy out. Alone or without
// enough GPUs the tests skip and say why.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <map>

#include "backends/cuda/cuda_handles.h"
#include "backends/nccl/host_staged_communicator.h"
#include "backends/nccl/nccl_communicator.h"
#include "tests/conformance/communicator_suite.h"
#include "tests/nccl/nccl_fixtures.h"

namespace prunex {
namespace {

template <typename Fn>
void on_every_grouping(Fn fn) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<NodeGrouping> gs = {{size, 1}, {size, size}};
  if (size % 2 == 0 && size > 2) gs.push_back({size, 2});
  for (const NodeGrouping& ng : gs) {
    SCOPED_TRACE(::testing::Message() << "gpus_per_node " << ng.gpus_per_node);
    NcclCommunicator inner(MPI_COMM_WORLD, ng);
    HostStagedCommunicator comm(inner);
    fn(comm);
  }
}

#define PRUNEX_NCCL_SUITE_TEST(name, fn)                            \
  TEST(CommunicatorNccl, name) {                                    \
    const std::string why = testing::why_not_nccl(1);               \
    if (!why.empty()) GTEST_SKIP() << why;                          \
    on_every_grouping([](Communicator& c) { conformance::fn(c); }); \
  }
PRUNEX_COMMUNICATOR_CHECKS(PRUNEX_NCCL_SUITE_TEST)

}  // namespace
}  // namespace prunex
