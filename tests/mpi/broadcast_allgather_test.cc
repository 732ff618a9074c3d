// Broadcast from every root, all-gather blocks and barriers, on every group.
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

constexpr std::size_t kCounts[] = {1, 777, 1 << 17};

using CollectiveTest = GroupedTest;

// Root's element k is root * 1000 + k % 97; everyone else starts from a sentinel.
template <typename T>
void check_broadcast(MpiCommunicator& c, Group g, int n, int q, DType t) {
  for (std::size_t count : kCounts) {
    for (int root = 0; root < n; ++root) {
      std::vector<T> v(count, static_cast<T>(-1));
      auto pattern = [&](std::size_t k) { return static_cast<T>(root * 1000 + k % 97); };
      if (q == root)
        for (std::size_t k = 0; k < count; ++k) v[k] = pattern(k);
      c.broadcast(v.data(), count, t, root, g);
      long wrong = 0;
      for (std::size_t k = 0; k < count; ++k) wrong += v[k] != pattern(k);
      EXPECT_EQ(wrong, 0) << group_name(g) << " " << dtype_name(t) << " root " << root << " count "
                          << count;
    }
  }
}

TEST_P(CollectiveTest, BroadcastFromEveryRootCopiesRootsData) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    check_broadcast<float>(*comm_, g, n, q, DType::f32);
    check_broadcast<double>(*comm_, g, n, q, DType::f64);
    check_broadcast<std::int32_t>(*comm_, g, n, q, DType::i32);
  }
}

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

// Rank q's block holds q * 100000 + k; the gathered buffer holds every block in rank order.
template <typename T>
void check_allgather(MpiCommunicator& c, Group g, int n, int q, DType t) {
  for (std::size_t count : kCounts) {
    std::vector<T> send(count), recv(count * n, static_cast<T>(-1));
    for (std::size_t k = 0; k < count; ++k) send[k] = static_cast<T>(q * 100000 + k % 1000);
    c.allgather(send.data(), recv.data(), count, t, g);
    long wrong = 0;
    for (int r = 0; r < n; ++r)
      for (std::size_t k = 0; k < count; ++k)
        wrong += recv[r * count + k] != static_cast<T>(r * 100000 + k % 1000);
    EXPECT_EQ(wrong, 0) << group_name(g) << " " << dtype_name(t) << " count " << count;
  }
}

TEST_P(CollectiveTest, AllgatherPlacesBlocksInRankOrder) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    check_allgather<float>(*comm_, g, n, q, DType::f32);
    check_allgather<double>(*comm_, g, n, q, DType::f64);
    check_allgather<std::int32_t>(*comm_, g, n, q, DType::i32);
    check_allgather<std::int64_t>(*comm_, g, n, q, DType::i64);
  }
}

// Nobody leaves a barrier before its last member arrives: the group's rank 0 arrives 200 ms
// late, so every other member spends most of that inside the barrier.
TEST_P(CollectiveTest, BarrierWaitsForTheLastArrival) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int q = expected_rank(g);
    comm_->barrier(g);  // line up first
    if (q == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const double t0 = MPI_Wtime();
    comm_->barrier(g);
    const double waited = MPI_Wtime() - t0;
    if (q != 0) {
      EXPECT_GT(waited, 0.1) << group_name(g);
    }
  }
}

PRUNEX_INSTANTIATE_GROUPINGS(CollectiveTest);

}  // namespace
}  // namespace prunex::test
