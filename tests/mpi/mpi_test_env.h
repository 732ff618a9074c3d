// Shared pieces of the multi-rank tests: the world as MPI sees it, and a fixture that builds
// an MpiCommunicator for each node grouping that divides the world (others are skipped).
#pragma once

#include <mpi.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/mpi/mpi_communicator.h"

namespace prunex::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Ranks on this rank's host, counted from gathered processor names (independent of
// MPI_COMM_TYPE_SHARED, which the backend uses).
inline int ranks_on_my_host() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<std::size_t>(world_size()) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  int same = 0;
  for (int r = 0; r < world_size(); ++r)
    same += std::strncmp(name, &all[r * MPI_MAX_PROCESSOR_NAME], MPI_MAX_PROCESSOR_NAME) == 0;
  return same;
}

constexpr Group kGroups[] = {Group::world, Group::intra, Group::inter, Group::rail};

// Parameter: --gpus-per-node (0 = ranks sharing a host). Skipped when it doesn't divide the
// world; every rank sees the same world size, so every rank skips alike.
class GroupedTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    const int p = GetParam() > 0 ? GetParam() : ranks_on_my_host();
    if (world_size() % p != 0) GTEST_SKIP() << "P=" << p << " does not divide " << world_size();
    p_ = p;
    comm_ = make_mpi_communicator(GetParam());
  }

  // Group sizes and ranks from the grouping's arithmetic (consecutive blocks of P).
  int expected_size(Group g) const {
    return g == Group::world ? world_size() : g == Group::intra ? p_ : world_size() / p_;
  }
  int expected_rank(Group g) const {
    const int r = world_rank();
    return g == Group::world ? r : g == Group::intra ? r % p_ : r / p_;
  }
  // inter is for leaders only; other ranks sit that group out.
  bool member(Group g) const { return g != Group::inter || world_rank() % p_ == 0; }

  int p_ = 1;
  std::unique_ptr<MpiCommunicator> comm_;
};

#define PRUNEX_INSTANTIATE_GROUPINGS(suite) \
  INSTANTIATE_TEST_SUITE_P(Grouping, suite, ::testing::Values(0, 1, 2, 4, 8))

}  // namespace prunex::test
