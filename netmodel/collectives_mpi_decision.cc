// Which algorithm Open MPI 4.1 runs for a collective (--algo mpi; schedules in
// collectives_mpi.cc). Its coll/tuned component picks one per call from the communicator size
// and the message size with fixed decision tables (ompi/mca/coll/tuned/
// coll_tuned_decision_fixed.c, v4.1.4: "generated based off of results gathered using the
// ompi-collectives-tuning package"); the tables below are its switch points for the
// operations the engine calls (commutative all-reduce, all-gather, broadcast).
#include "engine/error.h"
#include "netmodel/collectives.h"

namespace prunex::sim {

namespace {

// One switch table row: communicators smaller than max_ranks use, for totals below each
// bound, the algorithm named after it (the last entry has no bound).
struct Row {
  int max_ranks;
  std::vector<std::pair<double, MpiAlg>> by_bytes;
};
constexpr double kAny = 1e300;

MpiAlg pick(const std::vector<Row>& table, int n, double bytes) {
  for (const auto& row : table)
    if (n < row.max_ranks)
      for (const auto& [bound, alg] : row.by_bytes)
        if (bytes < bound) return alg;
  return table.back().by_bytes.back().second;
}

using A = MpiAlg;

// coll_tuned_decision_fixed.c, allreduce, commutative operations (v4.1.4). Segmented ring
// runs with segment size 0 there, which Open MPI turns into the plain ring.
const std::vector<Row>& allreduce_table() {
  static const std::vector<Row> t = {
      {4,
       {{8, A::ring},
        {4096, A::recursive_doubling},
        {8192, A::ring},
        {16384, A::recursive_doubling},
        {65536, A::ring},
        {262144, A::ring},
        {kAny, A::rabenseifner}}},
      {8, {{16, A::ring}, {8192, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {16, {{8192, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {32, {{64, A::ring}, {4096, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {64, {{128, A::ring}, {kAny, A::rabenseifner}}},
      {128, {{262144, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {256, {{131072, A::reduce_bcast}, {262144, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {512, {{4096, A::reduce_bcast}, {kAny, A::rabenseifner}}},
      {2048, {{2048, A::reduce_bcast}, {16384, A::recursive_doubling}, {kAny, A::rabenseifner}}},
      {4096,
       {{2048, A::reduce_bcast},
        {4096, A::ring},
        {16384, A::recursive_doubling},
        {kAny, A::rabenseifner}}},
      {1 << 30,
       {{2048, A::reduce_bcast},
        {16384, A::ring},
        {32768, A::recursive_doubling},
        {kAny, A::rabenseifner}}},
  };
  return t;
}

// allgather (v4.1.4), by one rank's block. 2 ranks: two_proc, one exchange (as recursive
// doubling on 2).
const std::vector<Row>& allgather_table() {
  static const std::vector<Row> t = {
      {3, {{kAny, A::recursive_doubling}}},
      {32, {{kAny, A::recursive_doubling}}},
      {64, {{1024, A::recursive_doubling}, {65536, A::neighbor}, {kAny, A::ring}}},
      {128, {{512, A::recursive_doubling}, {65536, A::neighbor}, {kAny, A::ring}}},
      {256,
       {{512, A::recursive_doubling},
        {131072, A::neighbor},
        {524288, A::ring},
        {1048576, A::neighbor},
        {kAny, A::ring}}},
      {512,
       {{32, A::recursive_doubling},
        {128, A::bruck},
        {1024, A::recursive_doubling},
        {131072, A::neighbor},
        {524288, A::ring},
        {1048576, A::neighbor},
        {kAny, A::ring}}},
      {1024,
       {{64, A::recursive_doubling},
        {256, A::bruck},
        {2048, A::recursive_doubling},
        {kAny, A::neighbor}}},
      {2048,
       {{4, A::recursive_doubling},
        {8, A::bruck},
        {16, A::recursive_doubling},
        {32, A::bruck},
        {256, A::recursive_doubling},
        {512, A::bruck},
        {4096, A::recursive_doubling},
        {kAny, A::neighbor}}},
      {4096,
       {{32, A::bruck},
        {128, A::recursive_doubling},
        {512, A::bruck},
        {4096, A::recursive_doubling},
        {kAny, A::neighbor}}},
      {1 << 30,
       {{2, A::recursive_doubling},
        {8, A::bruck},
        {16, A::recursive_doubling},
        {512, A::bruck},
        {4096, A::recursive_doubling},
        {kAny, A::neighbor}}},
  };
  return t;
}

// bcast (v4.1.4), segment size 0 (whole messages: store and forward).
const std::vector<Row>& bcast_table() {
  static const std::vector<Row> t = {
      {4,
       {{32, A::chain},
        {256, A::binary},
        {512, A::chain},
        {1024, A::knomial},
        {32768, A::linear},
        {131072, A::binary},
        {262144, A::chain},
        {524288, A::linear},
        {1048576, A::binomial},
        {kAny, A::binary}}},
      {8,
       {{64, A::binary},
        {128, A::binomial},
        {2048, A::binary},
        {8192, A::binomial},
        {1048576, A::linear},
        {kAny, A::chain}}},
      {16,
       {{8, A::knomial},
        {64, A::binary},
        {4096, A::knomial},
        {16384, A::binary},
        {32768, A::binomial},
        {kAny, A::linear}}},
      {32, {{4096, A::knomial}, {1048576, A::binomial}, {kAny, A::scatter_allgather}}},
      {64, {{2048, A::binomial}, {kAny, A::knomial}}},
      {128, {{kAny, A::knomial}}},
      {256,
       {{2, A::binomial},
        {16384, A::binary},
        {32768, A::linear},
        {65536, A::binary},
        {kAny, A::knomial}}},
      {1024, {{16384, A::knomial}, {32768, A::binary}, {kAny, A::knomial}}},
      {2048, {{524288, A::knomial}, {kAny, A::scatter_allgather}}},
      {4096, {{262144, A::knomial}, {kAny, A::scatter_allgather}}},
      {1 << 30,
       {{8192, A::knomial},
        {16384, A::binary},
        {262144, A::knomial},
        {kAny, A::scatter_allgather}}},
  };
  return t;
}

}  // namespace

const char* mpi_alg_name(MpiAlg a) {
  switch (a) {
    case MpiAlg::recursive_doubling:
      return "recursive doubling";
    case MpiAlg::ring:
      return "ring";
    case MpiAlg::rabenseifner:
      return "rabenseifner";
    case MpiAlg::reduce_bcast:
      return "reduce + bcast";
    case MpiAlg::bruck:
      return "bruck";
    case MpiAlg::neighbor:
      return "neighbor exchange";
    case MpiAlg::linear:
      return "linear";
    case MpiAlg::chain:
      return "chain";
    case MpiAlg::binary:
      return "binary tree";
    case MpiAlg::binomial:
      return "binomial";
    case MpiAlg::knomial:
      return "knomial";
    case MpiAlg::scatter_allgather:
      return "scatter + allgather";
  }
  return "?";
}

MpiAlg ompi_choice(CollectiveOp op, int n, double bytes) {
  switch (op) {
    case CollectiveOp::allreduce:
      return pick(allreduce_table(), n, bytes);
    case CollectiveOp::allgather: {
      const MpiAlg a = pick(allgather_table(), n, bytes);
      // Recursive doubling needs a power of two (else Open MPI runs Bruck); neighbor
      // exchange an even count (else the ring).
      if (a == MpiAlg::recursive_doubling && (n & (n - 1)) != 0) return MpiAlg::bruck;
      if (a == MpiAlg::neighbor && n % 2 != 0) return MpiAlg::ring;
      return a;
    }
    case CollectiveOp::broadcast:
      return pick(bcast_table(), n, bytes);
    case CollectiveOp::barrier:
    case CollectiveOp::alltoall:
    case CollectiveOp::send:
    case CollectiveOp::recv:
      break;
  }
  throw UsageError(detail::concat("no Open MPI decision for ", collective_op_name(op)));
}

}  // namespace prunex::sim
