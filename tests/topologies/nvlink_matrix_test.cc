// NVLink matrices and NIC affinity in topology files, and `topology import` of the
// nvidia-smi topo -m outputs printed in public sources (tests/topologies/fixtures/README.md).
// Expected values are read off the printed matrices by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "topologies/topology_import.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(PRUNEX_SOURCE_DIR) + "/tests/topologies/fixtures/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Brute force over every ring through all GPUs (GPU 0 first, each ring twice): the best
// smallest hop, independent of ring_links()' bitmask search.
int brute_ring(const std::vector<std::vector<int>>& m) {
  std::vector<int> order(m.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  int best = 0;
  do {
    int low = 1 << 30;
    for (std::size_t i = 0; i < order.size(); ++i)
      low = std::min(low, m[order[i]][order[(i + 1) % order.size()]]);
    best = std::max(best, low);
  } while (std::next_permutation(order.begin() + 1, order.end()));
  return best;
}

TEST(NvlinkMatrix, Dgx1MatrixAsPrinted) {
  const TopoMatrix m = parse_topo_matrix(fixture("dgx1-v100.topo.txt"), "dgx1");
  ASSERT_EQ(m.gpus.size(), 8u);
  EXPECT_EQ(m.nics, (std::vector<std::string>{"mlx5_2", "mlx5_0", "mlx5_3", "mlx5_1"}));
  // GPU0: NV1 to 1 and 2, NV2 to 3 and 4, SYS to 5-7; GPU7: NV1 to 3 and 5, NV2 to 4 and 6.
  EXPECT_EQ(m.nvlinks[0], (std::vector<int>{0, 1, 1, 2, 2, 0, 0, 0}));
  EXPECT_EQ(m.nvlinks[7], (std::vector<int>{0, 0, 0, 1, 2, 1, 2, 0}));
  for (const auto& row : m.nvlinks) EXPECT_EQ(std::accumulate(row.begin(), row.end(), 0), 6);
  // GPU0 is PIX to mlx5_0 (column 1), PHB to mlx5_1, SYS to the others.
  EXPECT_EQ(m.nic_distance[0], (std::vector<int>{4, 0, 4, 2}));
  // The NV2 pairs alone close a ring (0-3-2-1-5-6-7-4-0): two links per hop.
  EXPECT_EQ(ring_links(m.nvlinks), 2);
  EXPECT_EQ(brute_ring(m.nvlinks), 2);
}

TEST(NvlinkMatrix, RingLinksAgreesWithBruteForce) {
  // Random symmetric 6-GPU matrices with 0-3 links per pair.
  unsigned seed = 7;
  auto next = [&] { return (seed = seed * 1103515245u + 12345u) >> 16; };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<int>> m(6, std::vector<int>(6, 0));
    for (int a = 0; a < 6; ++a)
      for (int b = a + 1; b < 6; ++b) m[a][b] = m[b][a] = static_cast<int>(next() % 4);
    EXPECT_EQ(ring_links(m), brute_ring(m)) << "trial " << trial;
  }
}

TEST(NvlinkMatrix, ImportBuildsTheNodeOnItsBase) {
  const Topology base = load_topology("dgx1-v100");
  const Topology t = import_node(parse_topo_matrix(fixture("dgx1-v100.topo.txt"), "dgx1.txt"),
                                 "dgx1.txt", base, "mine");
  EXPECT_EQ(t.name, "mine");
  EXPECT_EQ(t.gpus_per_node, 8);
  EXPECT_EQ(t.intra.links, base.intra.links);  // the preset states the same matrix
  EXPECT_EQ(t.intra.links_per_pair, 2);
  EXPECT_EQ(t.nic.rails, 4);
  EXPECT_EQ(t.nic.affinity, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_DOUBLE_EQ(t.nic.link.bandwidth_Bps, base.nic.link.bandwidth_Bps);
  EXPECT_NE(t.sources.at("intra.links").find("dgx1.txt"), std::string::npos);
  // Round trip through the file form.
  const Topology back = parse_topology(topology_to_json(t), "back");
  EXPECT_EQ(back.intra.links, t.intra.links);
  EXPECT_EQ(back.nic.affinity, t.nic.affinity);
  EXPECT_EQ(back.intra.links_per_pair, 2);

  // C4140: NV2 everywhere, one NIC at NODE distance from all four GPUs.
  const Topology c = import_node(parse_topo_matrix(fixture("c4140.topo.txt"), "c4140.txt"),
                                 "c4140.txt", load_topology("c4140"), "c");
  EXPECT_EQ(c.gpus_per_node, 4);
  EXPECT_EQ(c.intra.links_per_pair, 2);
  EXPECT_EQ(c.nic.rails, 1);
  EXPECT_EQ(c.nic.affinity, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  // nccl-tests#251: two NICs, each PIX to a GPU pair: two rails.
  const Topology two = import_node(parse_topo_matrix(fixture("v100-two-nics.topo.txt"), "two.txt"),
                                   "two.txt", base, "two");
  EXPECT_EQ(two.nic.rails, 2);
  EXPECT_EQ(two.nic.affinity, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(NvlinkMatrix, BadMatricesAreOneLineErrors) {
  auto error_of = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of([] {
              parse_topo_matrix("nothing here\n", "x.txt");
            }).find("no nvidia-smi topo -m matrix"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_topo_matrix("GPU0 GPU1\nGPU0 X NVx\nGPU1 NV1 X\n", "x.txt");
            }).find("not NV<count>"),
            std::string::npos);
  // A known word with something after it is not that word; a row or column named twice would
  // stand for one GPU.
  for (const char* cell : {"NV4x", "NV0", "NV-2", "NV999"})
    EXPECT_NE(error_of([cell] {
                parse_topo_matrix(std::string("GPU0 GPU1\nGPU0 X ") + cell + "\nGPU1 NV1 X\n",
                                  "x.txt");
              }).find("not NV<count>"),
              std::string::npos)
        << cell;
  EXPECT_NE(error_of([] {
              parse_topo_matrix("GPU0 GPU1\nGPU0 X NV1\nGPU1 NV1 X\nGPU1 NV2 X\n", "x.txt");
            }).find("a second row for GPU1"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_topo_matrix("GPU0 GPU0\nGPU0 X NV1\n", "x.txt");
            }).find("the header names GPU0 twice"),
            std::string::npos);
  // An imported PCIe node, or a base with NVSwitch ports, is refused.
  const TopoMatrix pcie = parse_topo_matrix("GPU0 GPU1\nGPU0 X PHB\nGPU1 PHB X\n", "p.txt");
  EXPECT_NE(error_of([&] {
              import_node(pcie, "p.txt", load_topology("dgx1-v100"), "p");
            }).find("no NVLink"),
            std::string::npos);
  const TopoMatrix nv = parse_topo_matrix("GPU0 GPU1\nGPU0 X NV4\nGPU1 NV4 X\n", "n.txt");
  EXPECT_NE(
      error_of([&] { import_node(nv, "n.txt", load_topology("dgx-a100"), "n"); }).find("nvswitch"),
      std::string::npos);
  // Files: an asymmetric matrix, a matrix with no NVLink ring, a NIC order the model cannot
  // place, and links_per_pair beside the matrix.
  nlohmann::json d = topology_to_json(load_topology("c4140"));
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json e = d;
    edit(e);
    return error_of([&] { parse_topology(e, "f.json"); });
  };
  EXPECT_NE(
      with([](nlohmann::json& e) { e["intra"]["links"]["value"][0][1] = 1; }).find("not symmetric"),
      std::string::npos);
  EXPECT_NE(
      with([](nlohmann::json& e) {
        e["intra"]["links"]["value"] = {{0, 2, 0, 0}, {2, 0, 2, 0}, {0, 2, 0, 2}, {0, 0, 2, 0}};
      }).find("no ring"),
      std::string::npos);
  EXPECT_NE(with([](nlohmann::json& e) {
              e["nic"]["rails"] = 2;
              e["nic"]["affinity"]["value"] = {{0, 2}, {1, 3}};
            }).find("model gives it rail"),
            std::string::npos);
  EXPECT_NE(with([](nlohmann::json& e) { e["intra"]["links_per_pair"] = 2; }).find("derived"),
            std::string::npos);
}

}  // namespace
}  // namespace prunex
