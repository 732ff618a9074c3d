// NCCL's tuning model (netmodel/nccl_model.h) against numbers worked out by hand from
// NVIDIA/nccl v2.25.1's constants (tuning.cc, topo.h) for the puhti preset: V100 (Volta),
// 2 NVLinks per GPU pair (NCCL: 2 x 20 GB/s), 100 Gbit/s NICs (12.5 GB/s).
#include <gtest/gtest.h>

#include "engine/error.h"
#include "netmodel/nccl_model.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

using sim::Algo;
using sim::NcclProto;

constexpr double kBig = 268435456;  // 256 MiB

double us(const sim::NcclEstimate& e) {
  return e.seconds * 1e6;
}

TEST(NcclModel, OneNodeRingPerProtocol) {
  const Topology t = load_topology("puhti");
  auto at = [&](double bytes, NcclProto p) {
    return sim::nccl_model(t, 1, 4, CollectiveOp::allreduce, Algo::ring, Group::world,
                           static_cast<std::size_t>(bytes), p);
  };
  // Simple: busBw = 1 channel x 40; algBw = 40 x 4 / 6; latency 8.4 + 6 x 3.4 = 28.8 us.
  EXPECT_NEAR(us(at(kBig, NcclProto::simple)), 28.8 + kBig / (1000 * 40.0 * 4 / 6), 1e-3);
  // LL: busBw = min(39, 40 / 2) = 20; latency 6.6 + 6 x 0.6 = 10.2 us.
  EXPECT_NEAR(us(at(1024, NcclProto::ll)), 10.2 + 1024 / (1000 * 20.0 * 4 / 6), 1e-6);
  // LL128: min(0.92 x 40, 1 x 20) = 20; latency 14 + 6 x 1.9 = 25.4 us.
  EXPECT_NEAR(us(at(1024, NcclProto::ll128)), 25.4 + 1024 / (1000 * 20.0 * 4 / 6), 1e-6);
  // NCCL's pick: LL for 1 KiB, Simple for 256 MiB.
  EXPECT_EQ(at(1024, NcclProto::fastest).proto, NcclProto::ll);
  EXPECT_EQ(at(kBig, NcclProto::fastest).proto, NcclProto::simple);
  EXPECT_EQ(at(kBig, NcclProto::fastest).generation, "Volta");
}

TEST(NcclModel, TwoNodesOneGpuEachPayTheVoltaRingPlateau) {
  // n = 2, one rank per node: net hop of the tree (14 us, Simple), 2 inter steps, base 8.4,
  // x 1.9 (Volta multi-node ring Simple); busBw = 12.5 GB/s, algBw = 12.5 x 2 / 2.
  const Topology t = load_topology("puhti");
  const auto e = sim::nccl_model(t, 2, 1, CollectiveOp::allreduce, Algo::ring, Group::world,
                                 static_cast<std::size_t>(kBig), NcclProto::simple);
  const double want = (8.4 + 2 * 14.0) * 1.9 + kBig / (1000 * 12.5);
  EXPECT_NEAR(us(e), want, 1e-3);
  EXPECT_NEAR(e.busbw_Bps, kBig / (want * 1e-6), 1e-3 * e.busbw_Bps);  // factor 2(n-1)/n = 1
}

TEST(NcclModel, OneNodeTreeWithItsCorrection) {
  // busBw = min(0.92 x 40, 1 x 26.5) = 26.5; algBw = 26.5 / 2 x 0.9 (256 MiB: 2^22 x 64 B,
  // the last Simple entry); latency 8.4 + 2 x 3 x 4.0 = 32.4 us.
  const Topology t = load_topology("puhti");
  const auto e = sim::nccl_model(t, 1, 4, CollectiveOp::allreduce, Algo::tree, Group::world,
                                 static_cast<std::size_t>(kBig), NcclProto::simple);
  EXPECT_NEAR(us(e), 32.4 + kBig / (1000 * 26.5 / 2 * 0.9), 1e-3);
}

// Algo::nccl picks what NCCL picks, as its maintainers describe it: rings for large all-reduces
// across more than two nodes (NVIDIA/nccl#307: "With rings, you should get ~12 GB/s with each
// NIC"; 47 GB/s bus bandwidth on 4 DGX-1), trees for small ones at scale (their latency grows
// with log2 of the nodes, the ring's with the ranks), and rings only for the other ops.
TEST(NcclModel, AlgorithmPickedAsNcclPicksIt) {
  const Topology dgx1 = load_topology("dgx1-v100");
  EXPECT_EQ(sim::nccl_algorithm(dgx1, 4, 8, CollectiveOp::allreduce, Group::world, 1u << 30),
            Algo::ring);
  const Topology a100 = load_topology("dgx-a100");
  EXPECT_EQ(sim::nccl_algorithm(a100, 32, 8, CollectiveOp::allreduce, Group::world, 8), Algo::tree);
  EXPECT_EQ(sim::nccl_algorithm(a100, 32, 8, CollectiveOp::allgather, Group::world, 8), Algo::ring);
  EXPECT_EQ(sim::nccl_algorithm(a100, 32, 8, CollectiveOp::broadcast, Group::world, 8), Algo::ring);
  // The communicators of the hierarchy: one node's 8 ranks (intra) and one rank a node
  // (inter) are modelled, each with its own ranks.
  EXPECT_TRUE(
      sim::nccl_model(a100, 32, 8, CollectiveOp::allreduce, Algo::ring, Group::intra, 8).modeled);
  EXPECT_EQ(sim::nccl_algorithm(a100, 32, 8, CollectiveOp::allreduce, Group::inter, 8), Algo::tree);
  EXPECT_EQ(sim::nccl_algorithm(a100, 32, 8, CollectiveOp::allreduce, Group::inter, 1u << 30),
            Algo::ring);
  // And it is the faster of the two in NCCL's own model: 256 ranks, 8 B, at NCCL's latencies
  // (hand-worked above for smaller cases) the ring pays 2 x 255 steps, the tree 2 x (7 intra
  // + 5 net) hops.
  const auto ring =
      sim::nccl_model(a100, 32, 8, CollectiveOp::allreduce, Algo::ring, Group::world, 8);
  const auto tree =
      sim::nccl_model(a100, 32, 8, CollectiveOp::allreduce, Algo::tree, Group::world, 8);
  ASSERT_TRUE(ring.modeled && tree.modeled);
  EXPECT_LT(tree.seconds, ring.seconds / 5);
}

TEST(NcclModel, NoModelForWhatNcclDoesNotRun) {
  const Topology t = load_topology("puhti");
  EXPECT_FALSE(
      sim::nccl_model(t, 2, 4, CollectiveOp::allgather, Algo::tree, Group::world, 1024).modeled);
  EXPECT_FALSE(
      sim::nccl_model(t, 2, 4, CollectiveOp::allreduce, Algo::hierarchical, Group::world, 1024)
          .modeled);
  EXPECT_THROW(sim::parse_nccl_proto("LL64"), UsageError);
}

}  // namespace
}  // namespace prunex
