// Broadcast of bytes and barriers on every group, on Open MPI (the communicator suite checks
// broadcast from every root and all-gather in rank order: communicator_mpi_test.cc).
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

using CollectiveTest = GroupedTest;

TEST_P(CollectiveTest, BroadcastBytes) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    const int root = n - 1;
    std::vector<std::uint8_t> v(4099, q == root ? 0 : 0xEE);
    if (q == root)
      for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<std::uint8_t>(k * 7 + 1);
    comm_->broadcast(v.data(), v.size(), DType::u8, root, g);
    long wrong = 0;
    for (std::size_t k = 0; k < v.size(); ++k)
      wrong += v[k] != static_cast<std::uint8_t>(k * 7 + 1);
    EXPECT_EQ(wrong, 0) << group_name(g);
  }
}

// Nobody leaves a barrier before its last member arrives: the group's rank 0 arrives 50 ms
// late, so every other member spends at least half of that inside the barrier.
TEST_P(CollectiveTest, BarrierWaitsForTheLastArrival) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int q = expected_rank(g);
    comm_->barrier(g);  // line up first
    if (q == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const double t0 = MPI_Wtime();
    comm_->barrier(g);
    const double waited = MPI_Wtime() - t0;
    if (q != 0) {
      EXPECT_GT(waited, 0.025) << group_name(g);
    }
  }
}

PRUNEX_INSTANTIATE_GROUPINGS(CollectiveTest);

}  // namespace
}  // namespace prunex::test
