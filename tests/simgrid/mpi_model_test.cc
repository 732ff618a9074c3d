// The Open MPI algorithm model (--algo mpi, collectives_mpi.cc) against facts stated outside
// it: Open MPI 4.1.4's decision switch points, the bytes each algorithm moves per rank
// (Thakur, Rabenseifner & Gropp 2005: ring and Rabenseifner all-reduce receive 2(n-1)/n S
// per rank, recursive doubling log2(n) S; an all-gather receives the n-1 other blocks; a
// broadcast gives every other rank S once), the latency terms the model's rules give by
// hand, and one simulated all-reduce against its time written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "backends/simgrid/sim_cluster.h"
#include "netmodel/closed_form.h"
#include "netmodel/collectives.h"
#include "simulate/fork_run.h"
#include "tests/common/sim_topologies.h"

namespace prunex {
namespace {

using namespace sim;

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Bytes each rank receives over the whole schedule.
std::map<int, double> received(const Schedule& s) {
  std::map<int, double> r;
  for (const auto& p : s)
    for (const auto& f : p.flows) r[f.dst] += f.bytes;
  return r;
}

int terms(const Schedule& s) {
  int t = 0;
  for (const auto& p : s) t += p.latency_steps;
  return t;
}

TEST(MpiModel, DecisionsAreOpenMpi41SwitchPoints) {
  const auto ar = [](int n, double b) { return ompi_choice(CollectiveOp::allreduce, n, b); };
  EXPECT_EQ(ar(2, 4), MpiAlg::ring);                 // < 8 B
  EXPECT_EQ(ar(2, 64), MpiAlg::recursive_doubling);  // < 4096
  EXPECT_EQ(ar(2, 4096), MpiAlg::ring);              // < 8192
  EXPECT_EQ(ar(2, 200000), MpiAlg::ring);            // segmented ring, segment size 0
  EXPECT_EQ(ar(2, 262144), MpiAlg::rabenseifner);
  EXPECT_EQ(ar(4, 8191), MpiAlg::recursive_doubling);
  EXPECT_EQ(ar(4, 8192), MpiAlg::rabenseifner);
  EXPECT_EQ(ar(200, 1000), MpiAlg::reduce_bcast);  // nonoverlapping
  EXPECT_EQ(ar(5000, 20000), MpiAlg::recursive_doubling);
  const auto ag = [](int n, double b) { return ompi_choice(CollectiveOp::allgather, n, b); };
  EXPECT_EQ(ag(2, 1e6), MpiAlg::recursive_doubling);  // two_proc: one exchange
  EXPECT_EQ(ag(8, 1e6), MpiAlg::recursive_doubling);
  EXPECT_EQ(ag(6, 1e6), MpiAlg::bruck);  // recursive doubling needs a power of two
  EXPECT_EQ(ag(40, 2000), MpiAlg::neighbor);
  EXPECT_EQ(ag(41, 2000), MpiAlg::ring);  // neighbor exchange needs an even count
  const auto bc = [](int n, double b) { return ompi_choice(CollectiveOp::broadcast, n, b); };
  EXPECT_EQ(bc(2, 100), MpiAlg::binary);
  EXPECT_EQ(bc(2, 2000), MpiAlg::linear);
  EXPECT_EQ(bc(4, 100000), MpiAlg::linear);
  EXPECT_EQ(bc(64, 1000), MpiAlg::knomial);
}

TEST(MpiModel, BytesPerRankMatchTheAlgorithmsClosedForms) {
  const double s = 1 << 20;  // every allreduce size here is Rabenseifner for n >= 4
  for (int n : {2, 4, 8, 16}) {
    const RankLayout layout{n, 1};
    for (const auto& [rank, bytes] :
         received(mpi_schedule(CollectiveOp::allreduce, iota(n), layout, s)))
      EXPECT_NEAR(bytes, 2.0 * (n - 1) / n * s, 1e-6) << "n " << n << " rank " << rank;
    // Recursive doubling (small sizes): log2(n) whole vectors.
    for (const auto& [rank, bytes] :
         received(mpi_schedule(CollectiveOp::allreduce, iota(n), layout, 1000)))
      EXPECT_NEAR(bytes, std::log2(n) * 1000, 1e-9) << "n " << n;
  }
  // All-gather: n-1 blocks per rank, whatever the algorithm (recursive doubling, Bruck,
  // neighbor exchange, ring).
  for (auto [n, block] : std::vector<std::pair<int, double>>{
           {2, 1e5}, {6, 1e5}, {8, 1e5}, {40, 2000}, {41, 2000}, {40, 1e6}}) {
    const auto r = received(mpi_schedule(CollectiveOp::allgather, iota(n), {n, 1}, block));
    ASSERT_EQ(static_cast<int>(r.size()), n) << "n " << n;
    for (const auto& [rank, bytes] : r) EXPECT_NEAR(bytes, (n - 1) * block, 1e-6) << "n " << n;
  }
  // Broadcast (trees, chain, linear): every rank but the root receives S once.
  for (auto [n, bytes] : std::vector<std::pair<int, double>>{
           {2, 100}, {3, 2000}, {4, 100000}, {7, 100}, {8, 5000}, {13, 10}, {64, 1000}}) {
    const auto r = received(mpi_schedule(CollectiveOp::broadcast, iota(n), {n, 1}, bytes));
    EXPECT_EQ(r.count(0), 0u) << "n " << n;
    EXPECT_EQ(static_cast<int>(r.size()), n - 1) << "n " << n;
    for (const auto& [rank, b] : r) EXPECT_DOUBLE_EQ(b, bytes) << "n " << n << " rank " << rank;
  }
}

TEST(MpiModel, LatencyTermsFollowStepsRendezvousAndArrival) {
  const RankLayout four{4, 1};
  // Recursive doubling on 4: two exchanges + the arrival (the whole vector of the last rank
  // to arrive still has every step to go).
  EXPECT_EQ(terms(mpi_schedule(CollectiveOp::allreduce, iota(4), four, 1000)), 3);
  EXPECT_EQ(terms(mpi_schedule(CollectiveOp::allgather, iota(4), four, 100)), 3);
  // Rabenseifner on 4 at 8 KiB: four steps of 4 and 2 KiB (eager).
  EXPECT_EQ(terms(mpi_schedule(CollectiveOp::allreduce, iota(4), four, 8192)), 4);
  // ... at 1 MiB: every step above 64 KiB pays the rendezvous round trip: 4 x 3.
  EXPECT_EQ(terms(mpi_schedule(CollectiveOp::allreduce, iota(4), four, 1 << 20)), 12);
  // 2 ranks, 1 MiB: Rabenseifner's two steps of 512 KiB: 2 x 3.
  EXPECT_EQ(terms(mpi_schedule(CollectiveOp::allreduce, iota(2), {2, 1}, 1 << 20)), 6);
  // Inside a node the eager limit is 4 KiB: a 2 x 2 world all-reduce of 16 KiB
  // (Rabenseifner) has 8 KiB intra steps (rendezvous) and 4 KiB inter steps (eager).
  const Schedule s = mpi_schedule(CollectiveOp::allreduce, iota(4), {2, 2}, 16384);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].latency_steps, 3);  // intra, 8 KiB
  EXPECT_EQ(s[1].latency_steps, 1);  // inter, 4 KiB
  EXPECT_EQ(s[2].latency_steps, 1);
  EXPECT_EQ(s[3].latency_steps, 3);
  // 2 x 2 recursive doubling (1 KiB): the arrival term sits on the first inter step.
  const Schedule rd = mpi_schedule(CollectiveOp::allreduce, iota(4), {2, 2}, 1024);
  ASSERT_EQ(rd.size(), 2u);
  EXPECT_EQ(rd[0].latency_steps, 1);  // intra
  EXPECT_EQ(rd[1].latency_steps, 2);
}

TEST(MpiModel, ScheduleLoadIsTheBusiestResourcePerStep) {
  // 2 x 2 Rabenseifner: intra steps put S/2 on a GPU port; inter steps two flows of S/4
  // through each node's one NIC path: S/2. Four steps: 2S.
  const double s = 1 << 20;
  const RankLayout layout{2, 2};
  const ScheduleLoad l =
      schedule_load(mpi_schedule(CollectiveOp::allreduce, iota(4), layout, s), layout);
  EXPECT_DOUBLE_EQ(l.bytes, 2 * s);
  EXPECT_EQ(l.latency_terms, 4 * 3);
  // One path standing for 2 rails: an inter-node message's first 64 KiB go on one rail, so
  // they cost twice their bytes there. 2 x 1, 1 MiB: two steps of 512 KiB each way.
  RankLayout pooled{2, 1};
  pooled.pooled_rails = 2;
  const double e = 64 * 1024;
  EXPECT_DOUBLE_EQ(
      schedule_load(mpi_schedule(CollectiveOp::allreduce, iota(2), pooled, s), pooled).bytes,
      2 * (s / 2 + e));
}

TEST(MpiModel, SimulatedAllreduceIsItsStepsAddedUp) {
  // 4 nodes x 1 on the test star, 1 MiB: Rabenseifner, 12 latency terms of one NIC hop, and
  // per step one S/2, S/4, S/4, S/2 flow each way through every NIC: 1.5 S / B.
  const Topology t = test::star_topology(4, 1);
  const double s = 1 << 20;
  const double seconds = fork_run([&] {
    SimCluster c(t, {4, 1});
    return std::vector<double>{c.run_collective(CollectiveOp::allreduce, Algo::mpi, Group::world,
                                                static_cast<std::size_t>(s))
                                   .seconds};
  })[0];
  const double want = 12 * node_latency(t, 4, 0, 1) + 1.5 * s / test::kNicBw;
  EXPECT_NEAR(seconds / want, 1.0, 1e-3) << seconds << " s against " << want << " s";
  EXPECT_TRUE(std::isnan(closed_form_seconds(t, 4, 1, CollectiveOp::allreduce, Algo::mpi,
                                             Group::world, static_cast<std::size_t>(s))));
}

}  // namespace
}  // namespace prunex
