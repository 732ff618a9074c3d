// The RAII pieces: nested environments, communicator ownership, MPI errors as exceptions.
#include <stdexcept>
#include <string>

#include "backends/mpi/mpi_env.h"
#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

TEST(MpiEnv, NestedGuardLeavesMpiRunning) {
  {
    MpiEnv inner;  // MPI is already up (main's guard): this one must not finalise it
    EXPECT_EQ(inner.world_size(), world_size());
    EXPECT_EQ(inner.world_rank(), world_rank());
  }
  EXPECT_TRUE(MpiEnv::active());
}

TEST(MpiComm, SplitDupAndMove) {
  MpiComm dup = MpiComm::dup(MPI_COMM_WORLD);
  EXPECT_EQ(dup.size(), world_size());
  // Even ranks form one communicator; odd ranks are outside it.
  MpiComm evens = MpiComm::split(dup.get(), world_rank() % 2 == 0 ? 0 : MPI_UNDEFINED, 0);
  EXPECT_EQ(static_cast<bool>(evens), world_rank() % 2 == 0);
  if (evens) {
    EXPECT_EQ(evens.size(), (world_size() + 1) / 2);
  }
  MpiComm moved = std::move(dup);
  EXPECT_FALSE(static_cast<bool>(dup));  // NOLINT(bugprone-use-after-move): the point
  EXPECT_EQ(moved.size(), world_size());
}

TEST(MpiCheck, ErrorNamesCallFileAndMpiMessage) {
  MpiComm c = MpiComm::dup(MPI_COMM_WORLD);
  int x = 0;
  try {
    // Root outside the communicator: every rank rejects it locally, nobody waits.
    PRUNEX_MPI_CHECK(MPI_Bcast(&x, 1, MPI_INT, world_size(), c.get()));
    ADD_FAILURE() << "bad root accepted";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("mpi_env_test.cc:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("MPI_Bcast"), std::string::npos) << msg;
    EXPECT_NE(msg.find("root"), std::string::npos) << msg;  // MPI_ERR_ROOT's text
  }
}

}  // namespace
}  // namespace prunex::test
