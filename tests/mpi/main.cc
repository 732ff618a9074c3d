// Runs every multi-rank test on every rank. Only rank 0 prints gtest's report; other ranks
// print just their failures, tagged with the rank. The exit status is nonzero on every rank
// if any rank failed, so mpirun's status reflects the whole job.
#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdio>

#include "backends/mpi/mpi_env.h"

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  prunex::MpiEnv env(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = env.world_rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());  // gtest hands us ownership
    listeners.Append(new RankFailurePrinter(rank));                // gtest takes ownership
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  PRUNEX_MPI_CHECK(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  if (rank == 0 && any_failed && !failed) std::fprintf(stderr, "a rank other than 0 failed\n");
  return any_failed;
}
