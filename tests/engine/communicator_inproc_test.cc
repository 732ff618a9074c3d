// The communicator conformance suite (tests/conformance/communicator_suite.h) on the
// in-process communicator, ranks as threads, for groupings with one and several nodes of one
// and several ranks (odd sizes included).
#include "backends/inproc/inproc_communicator.h"
#include "tests/conformance/communicator_suite.h"

namespace prunex {
namespace {

const NodeGrouping kGroupings[] = {{1, 1}, {3, 3}, {4, 2}, {6, 2}, {5, 1}, {6, 3}};

#define PRUNEX_INPROC_TEST(name, fn)                                                     \
  TEST(CommunicatorInProcess, name) {                                                    \
    for (const NodeGrouping& g : kGroupings) {                                           \
      SCOPED_TRACE(std::to_string(g.nodes()) + " x " + std::to_string(g.gpus_per_node)); \
      spawn_ranks(g, [](Communicator& c) { conformance::fn(c); });                       \
    }                                                                                    \
  }
PRUNEX_COMMUNICATOR_CHECKS(PRUNEX_INPROC_TEST)

}  // namespace
}  // namespace prunex
