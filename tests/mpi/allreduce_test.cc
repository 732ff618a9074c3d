// All-reduce on Open MPI beyond the communicator suite (tests/conformance/communicator_suite.h,
// which checks sum, avg, max and bor on every group and dtype; communicator_mpi_test.cc): the
// maximum on another rank per element with negative values, what MPI refuses, the ring's
// empty segments, and Work's completion.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "engine/wire_dtype.h"
#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

// Sizes: one element, an odd count, and one big enough for MPI's pipelined algorithms.
constexpr std::size_t kCounts[] = {1, 1001, 1 << 17};

using AllreduceTest = GroupedTest;

template <typename T>
void check_max(MpiCommunicator& c, Group g, int n, int q, DType t, int offset) {
  for (std::size_t count : kCounts) {
    // Each element's maximum sits on a different rank: (q + k) % n peaks at n - 1.
    std::vector<T> v(count);
    for (std::size_t k = 0; k < count; ++k)
      v[k] = static_cast<T>(static_cast<int>((q + k) % n) + offset);
    c.allreduce(v.data(), count, t, ReduceOp::max, g);
    long wrong = 0;
    for (std::size_t k = 0; k < count; ++k) wrong += v[k] != static_cast<T>(n - 1 + offset);
    EXPECT_EQ(wrong, 0) << group_name(g) << " " << dtype_name(t) << " count " << count;
  }
}

TEST_P(AllreduceTest, MaxIsLargestContribution) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    check_max<float>(*comm_, g, n, q, DType::f32, -20);  // negative: no zero-initialised luck
    check_max<double>(*comm_, g, n, q, DType::f64, -20);
    check_max<std::int32_t>(*comm_, g, n, q, DType::i32, -20);
    check_max<std::uint8_t>(*comm_, g, n, q, DType::u8, 3);
  }
}

TEST_P(AllreduceTest, UnsupportedOpDtypePairsAreLogicErrors) {
  std::int32_t i = 1;
  float f = 1;
  EXPECT_THROW(comm_->allreduce(&i, 1, DType::i32, ReduceOp::avg, Group::world), std::logic_error);
  EXPECT_THROW(comm_->allreduce(&f, 1, DType::f32, ReduceOp::bor, Group::world), std::logic_error);
  EXPECT_THROW(comm_->allreduce_async(&f, 1, DType::f32, ReduceOp::bor, Group::world),
               std::logic_error);
}

// The non-blocking all-reduce runs as Open MPI's ring (kMpiDefaults): buffers of fewer values
// than ranks leave some ring segments empty, and still sum right.
TEST_P(AllreduceTest, AsyncRingWithFewerValuesThanRanks) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{7}}) {
      std::vector<float> a(count, static_cast<float>(q + 1));
      comm_->allreduce_async(a.data(), count, DType::f32, ReduceOp::sum, g)->wait();
      for (float x : a) EXPECT_EQ(x, n * (n + 1) / 2.0f) << group_name(g) << " count " << count;
    }
  }
}

TEST_P(AllreduceTest, AsyncWorksCompleteInAnyOrder) {
  for (Group g : kGroups) {
    if (!member(g)) continue;
    const int n = expected_size(g), q = expected_rank(g);
    const std::size_t count = 1 << 16;
    std::vector<float> a(count, static_cast<float>(q + 1)), b(count, static_cast<float>(q + 1));
    auto wa = comm_->allreduce_async(a.data(), count, DType::f32, ReduceOp::sum, g);
    auto wb = comm_->allreduce_async(b.data(), count, DType::f32, ReduceOp::avg, g);
    wb->wait();
    wa->wait();
    EXPECT_TRUE(wa->is_completed());
    EXPECT_TRUE(wb->is_completed());
    long wrong = 0;
    for (std::size_t k = 0; k < count; ++k)
      wrong += (a[k] != n * (n + 1) / 2.0f) + (b[k] != (n + 1) / 2.0f);
    EXPECT_EQ(wrong, 0) << group_name(g);

    // Polling until done, and a Work dropped without wait() finishes in its destructor.
    std::vector<double> c(count, q + 1.0), d(count, q + 1.0);
    auto wc = comm_->allreduce_async(c.data(), count, DType::f64, ReduceOp::sum, g);
    while (!wc->is_completed()) {
    }
    comm_->allreduce_async(d.data(), count, DType::f64, ReduceOp::sum, g).reset();
    wrong = 0;
    for (std::size_t k = 0; k < count; ++k)
      wrong += (c[k] != n * (n + 1) / 2.0) + (d[k] != n * (n + 1) / 2.0);
    EXPECT_EQ(wrong, 0) << group_name(g);
  }
}

PRUNEX_INSTANTIATE_GROUPINGS(AllreduceTest);

}  // namespace
}  // namespace prunex::test
