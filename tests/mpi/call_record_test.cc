// Every call leaves a record: op, group, this rank's bytes, and a duration.
#include <cstdint>
#include <vector>

#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

TEST(CallRecords, OneRecordPerCallWithOpGroupAndBytes) {
  auto comm = make_mpi_communicator(world_size() % 2 == 0 ? 2 : 1);
  comm->clear_calls();
  std::vector<float> f(10, 1.0f);
  std::vector<double> d(3, 2.0);
  std::vector<std::int32_t> send(4, 7), recv(4 * comm->size(Group::intra));
  std::vector<std::uint8_t> bits(5, 1);
  const double t0 = MPI_Wtime();
  comm->allreduce(f.data(), f.size(), DType::f32, ReduceOp::sum, Group::intra);
  comm->broadcast(d.data(), d.size(), DType::f64, 0, Group::world);
  comm->allgather(send.data(), recv.data(), send.size(), DType::i32, Group::intra);
  comm->barrier(Group::world);
  comm->allreduce_async(bits.data(), bits.size(), DType::u8, ReduceOp::bor, Group::world)->wait();
  const double elapsed = MPI_Wtime() - t0;
  if (comm->is_leader())
    comm->allreduce(d.data(), d.size(), DType::f64, ReduceOp::max, Group::inter);

  struct Want {
    CollectiveOp op;
    Group group;
    DType dtype;
    std::size_t bytes;
  };
  std::vector<Want> want = {
      {CollectiveOp::allreduce, Group::intra, DType::f32, 40},
      {CollectiveOp::broadcast, Group::world, DType::f64, 24},
      {CollectiveOp::allgather, Group::intra, DType::i32, 16},  // this rank's own block
      {CollectiveOp::barrier, Group::world, DType::u8, 0},
      {CollectiveOp::allreduce, Group::world, DType::u8, 5}};
  if (comm->is_leader()) want.push_back({CollectiveOp::allreduce, Group::inter, DType::f64, 24});
  const auto& calls = comm->calls();
  ASSERT_EQ(calls.size(), want.size());
  double total = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(calls[i].op, want[i].op) << i;
    EXPECT_EQ(calls[i].group, want[i].group) << i;
    EXPECT_EQ(calls[i].dtype, want[i].dtype) << i;
    EXPECT_EQ(calls[i].bytes, want[i].bytes) << i;
    EXPECT_GE(calls[i].seconds, 0.0) << i;
    if (i < 5) total += calls[i].seconds;
  }
  EXPECT_LE(total, elapsed);  // the recorded durations lie inside the measured span
  comm->clear_calls();
  EXPECT_TRUE(comm->calls().empty());
}

}  // namespace
}  // namespace prunex::test
