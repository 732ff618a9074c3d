// The communicator conformance suite (tests/conformance/communicator_suite.h) on Open MPI:
// real ranks (mpirun -np 2, 4, 8), every grouping that divides the world.
#include "tests/conformance/communicator_suite.h"
#include "tests/mpi/mpi_test_env.h"

namespace prunex::test {
namespace {

using CommunicatorMpi = GroupedTest;

#define PRUNEX_MPI_TEST(name, fn) \
  TEST_P(CommunicatorMpi, name) { \
    conformance::fn(*comm_);      \
  }
PRUNEX_COMMUNICATOR_CHECKS(PRUNEX_MPI_TEST)

PRUNEX_INSTANTIATE_GROUPINGS(CommunicatorMpi);

}  // namespace
}  // namespace prunex::test
