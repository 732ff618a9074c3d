// Every shipped preset loads, validates, carries sources, and survives to_json -> parse.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "topologies/topology_io.h"
#include "topologies/topology_names.h"

namespace prunex {
namespace {

void expect_same(const Topology& a, const Topology& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.gpus_per_node, b.gpus_per_node);
  EXPECT_EQ(a.gpu.name, b.gpu.name);
  EXPECT_DOUBLE_EQ(a.gpu.fp32_flops, b.gpu.fp32_flops);
  EXPECT_DOUBLE_EQ(a.gpu.fp16_flops, b.gpu.fp16_flops);
  EXPECT_DOUBLE_EQ(a.gpu.mem_bandwidth_Bps, b.gpu.mem_bandwidth_Bps);
  EXPECT_DOUBLE_EQ(a.gpu.efficiency, b.gpu.efficiency);
  EXPECT_DOUBLE_EQ(a.gpu.tf32_flops, b.gpu.tf32_flops);
  EXPECT_DOUBLE_EQ(a.gpu.tf32_efficiency, b.gpu.tf32_efficiency);
  EXPECT_DOUBLE_EQ(a.gpu.amp_efficiency, b.gpu.amp_efficiency);
  EXPECT_EQ(a.intra.kind, b.intra.kind);
  EXPECT_DOUBLE_EQ(a.intra.link.bandwidth_Bps, b.intra.link.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(a.intra.link.latency_s, b.intra.link.latency_s);
  EXPECT_EQ(a.intra.links_per_pair, b.intra.links_per_pair);
  EXPECT_EQ(a.intra.links_per_gpu, b.intra.links_per_gpu);
  EXPECT_DOUBLE_EQ(a.intra.achieved, b.intra.achieved);
  EXPECT_DOUBLE_EQ(a.nic.achieved, b.nic.achieved);
  EXPECT_EQ(a.nic.rails, b.nic.rails);
  EXPECT_DOUBLE_EQ(a.nic.link.bandwidth_Bps, b.nic.link.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(a.nic.link.latency_s, b.nic.link.latency_s);
  EXPECT_EQ(a.fabric.kind, b.fabric.kind);
  EXPECT_EQ(a.fabric.levels, b.fabric.levels);
  EXPECT_EQ(a.fabric.radix, b.fabric.radix);
  EXPECT_DOUBLE_EQ(a.fabric.blocking, b.fabric.blocking);
  EXPECT_EQ(a.fabric.groups, b.fabric.groups);
  EXPECT_EQ(a.fabric.global_links_per_router, b.fabric.global_links_per_router);
  EXPECT_DOUBLE_EQ(a.fabric.link.bandwidth_Bps, b.fabric.link.bandwidth_Bps);
  EXPECT_DOUBLE_EQ(a.fabric.link.latency_s, b.fabric.link.latency_s);
  EXPECT_EQ(a.sources, b.sources);
}

TEST(TopologyPresets, TheShippedSetIsThere) {
  std::vector<std::string> want = {
      "c4140", "cloud-v100-100gbe", "cloud-v100-25gbe", "dgx-a100",      "dgx1-p100", "dgx1-v100",
      "dgx2",  "ethernet-100m",     "ethernet-1g",      "ethernet-500m", "h100",      "localhost",
      "puhti"};
  EXPECT_EQ(preset_names(), want);
}

TEST(TopologyPresets, EachLoadsValidatesAndCitesEveryNumber) {
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    Topology t = load_topology(name);
    EXPECT_EQ(t.name, name);
    EXPECT_NO_THROW(check_topology(t));
    // Every number in the file has a source: walk the normalised JSON for numeric leaves.
    nlohmann::json doc = topology_to_json(t);
    int numbers = 0;
    for (auto& [section, body] : doc.items()) {
      auto check = [&](const std::string& path, const nlohmann::json& v) {
        if (v.is_number()) ADD_FAILURE() << path << " has no source";
        if (v.is_object() && v.contains("value")) {
          ++numbers;
          EXPECT_FALSE(v["source"].get<std::string>().empty()) << path;
        }
      };
      if (body.is_object() && !body.contains("value")) {
        for (auto& [key, v] : body.items()) check(section + "." + key, v);
      } else {
        check(section, body);
      }
    }
    EXPECT_GE(numbers, 13);  // a star fabric has the fewest fields
    EXPECT_EQ(static_cast<size_t>(numbers), t.sources.size());
  }
}

TEST(TopologyPresets, PuhtiHoldsTheDocumentedNumbers) {
  Topology t = load_topology("puhti");
  EXPECT_EQ(t.nodes, 80);
  EXPECT_EQ(t.gpus_per_node, 4);
  EXPECT_EQ(t.gpus(), 320);
  EXPECT_DOUBLE_EQ(t.gpu.fp32_flops, 15.7e12);
  EXPECT_DOUBLE_EQ(t.gpu.fp16_flops, 125e12);
  EXPECT_DOUBLE_EQ(t.gpu.mem_bandwidth_Bps, 900e9);
  EXPECT_EQ(t.intra.kind, IntraKind::nvlink_pairs);
  EXPECT_EQ(t.intra.links_per_pair, 2);
  EXPECT_DOUBLE_EQ(t.intra.link.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(t.intra.link.latency_s, 0.6e-6);
  EXPECT_EQ(t.nic.rails, 2);
  EXPECT_DOUBLE_EQ(t.nic.link.bandwidth_Bps, 12.5e9);  // HDR100
  EXPECT_DOUBLE_EQ(t.node_injection_Bps(), 25e9);
  EXPECT_EQ(t.fabric.kind, FabricKind::fat_tree);
  EXPECT_DOUBLE_EQ(t.fabric.blocking, 1.0);
  EXPECT_NE(t.sources.at("intra.links_per_pair").find("assumed"), std::string::npos);
}

TEST(TopologyPresets, OtherPresetsHoldTheirShapes) {
  Topology a = load_topology("dgx-a100");
  EXPECT_EQ(a.gpus_per_node, 8);
  EXPECT_EQ(a.intra.kind, IntraKind::nvswitch);
  EXPECT_EQ(a.nic.rails, 8);
  EXPECT_DOUBLE_EQ(a.nic.link.bandwidth_Bps, 25e9);  // HDR200
  Topology h = load_topology("h100");
  EXPECT_EQ(h.nic.rails, 8);
  EXPECT_DOUBLE_EQ(h.nic.link.bandwidth_Bps, 50e9);  // NDR400
  EXPECT_DOUBLE_EQ(h.intra.link.bandwidth_Bps, 450e9);
  const std::pair<const char*, double> ethernet[] = {
      {"ethernet-100m", 100e6 / 8}, {"ethernet-500m", 500e6 / 8}, {"ethernet-1g", 1e9 / 8}};
  for (const auto& [name, Bps] : ethernet) {
    Topology e = load_topology(name);
    EXPECT_EQ(e.gpus_per_node, 1) << name;
    EXPECT_EQ(e.fabric.kind, FabricKind::star) << name;
    EXPECT_DOUBLE_EQ(e.nic.link.bandwidth_Bps, Bps) << name;
  }
  EXPECT_EQ(load_topology("localhost").intra.kind, IntraKind::loopback);
}

// Achieved bandwidths (published microbenchmarks, sources in the files): the signalling rate
// times the fraction, NVLink 2 at 20 of 25 GB/s and an EDR port at 12.2 of 12.5 GB/s on the
// DGX-1; applied once (a second time changes nothing).
TEST(TopologyPresets, AchievedBandwidthsScaleTheSignallingRates) {
  const Topology t = load_topology("dgx1-v100");
  EXPECT_DOUBLE_EQ(t.intra.achieved, 0.8);
  EXPECT_DOUBLE_EQ(t.nic.achieved, 0.976);
  const Topology a = achieved_bandwidths(t);
  EXPECT_DOUBLE_EQ(a.intra.link.bandwidth_Bps, 20e9);
  EXPECT_DOUBLE_EQ(a.nic.link.bandwidth_Bps, 12.2e9);
  EXPECT_DOUBLE_EQ(a.fabric.link.bandwidth_Bps, 12.2e9);
  EXPECT_DOUBLE_EQ(a.intra.achieved, 1);
  EXPECT_DOUBLE_EQ(achieved_bandwidths(a).nic.link.bandwidth_Bps, 12.2e9);
  EXPECT_NE(a.sources.at("nic.bandwidth_gbits").find("nccl-tests#29"), std::string::npos);
  // A file without fractions runs at its signalling rates.
  Topology e = load_topology("ethernet-1g");
  EXPECT_DOUBLE_EQ(achieved_bandwidths(e).nic.link.bandwidth_Bps, e.nic.link.bandwidth_Bps);
}

// --precision: the GPU runs at the precision's peak times its sustained fraction (the numbers
// as the dgx-a100 file states them: TF32 156 TFLOP/s x 0.149, fp16 312 x 0.196); fp32 is the
// file's own speed; a precision the file states no peak or no efficiency for is refused with
// the field to add.
TEST(TopologyPresets, PrecisionPicksThePeakAndItsEfficiency) {
  const Topology a = load_topology("dgx-a100");
  EXPECT_DOUBLE_EQ(apply_precision(a, Precision::fp32).gpu.effective_flops(), 19.5e12 * 0.5);
  EXPECT_DOUBLE_EQ(apply_precision(a, Precision::tf32).gpu.effective_flops(), 156e12 * 0.149);
  const Topology amp = apply_precision(a, Precision::amp);
  EXPECT_DOUBLE_EQ(amp.gpu.effective_flops(), 312e12 * 0.196);
  EXPECT_NE(amp.sources.at("gpu.efficiency").find("dgxa100-amp"), std::string::npos);
  EXPECT_DOUBLE_EQ(
      apply_precision(load_topology("dgx1-v100"), Precision::amp).gpu.effective_flops(),
      125e12 * 0.238);
  auto refused = [](const char* preset, Precision p, const std::string& field) {
    try {
      (void)apply_precision(load_topology(preset), p);
      ADD_FAILURE() << preset << ": not refused";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  refused("dgx1-v100", Precision::tf32, "gpu.tf32_tflops");  // Volta has no TF32
  // MLPerf v3.0's one-node DGX H100 row (validation/published/mlperf-v30-nvidia.json).
  const Topology h100_amp = apply_precision(load_topology("h100"), Precision::amp);
  EXPECT_DOUBLE_EQ(h100_amp.gpu.effective_flops(), 990e12 * 0.181);
  EXPECT_NE(h100_amp.sources.at("gpu.efficiency").find("mlperf-v30-nvidia"), std::string::npos);
  refused("h100", Precision::tf32, "gpu.tf32_efficiency");       // no published source yet
  refused("ethernet-1g", Precision::amp, "gpu.amp_efficiency");  // the A40: none either
  EXPECT_EQ(parse_precision("amp"), Precision::amp);
  EXPECT_THROW(parse_precision("bf16"), UsageError);
}

TEST(TopologyPresets, RoundTripThroughJson) {
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    Topology t = load_topology(name);
    nlohmann::json doc = topology_to_json(t);
    Topology back = parse_topology(doc, "roundtrip");
    expect_same(t, back);
    EXPECT_EQ(topology_to_json(back), doc);
    // Through text too, as a user would save it.
    expect_same(t, parse_topology(nlohmann::json::parse(doc.dump(2)), "text"));
  }
}

TEST(TopologyPresets, LoadsByPathAndRejectsUnknownNames) {
  Topology by_path =
      load_topology(std::string(PRUNEX_SOURCE_DIR) + "/topologies/presets/h100.json");
  expect_same(by_path, load_topology("h100"));
  try {
    load_topology("no-such-cluster");
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("unknown topology 'no-such-cluster'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("puhti"), std::string::npos) << msg;
  }
}

TEST(TopologyPresets, ScaleOutAddsFatTreeLevels) {
  Topology puhti = load_topology("puhti");
  // 1024 nodes x 2 rails = 2048 ports > 800 that two levels of 40-port switches connect.
  Topology big = scale_to_nodes(puhti, 1024);
  EXPECT_EQ(big.nodes, 1024);
  EXPECT_EQ(big.fabric.levels, 3);
  EXPECT_NE(big.sources.at("fabric.levels").find("raised from 2"), std::string::npos);
  // Fewer nodes keep the fabric as it is; the node count's source says it is a what-if.
  Topology small = scale_to_nodes(puhti, 16);
  EXPECT_EQ(small.fabric.levels, 2);
  EXPECT_EQ(small.sources.at("nodes"), "what-if: 16 nodes (--nodes); puhti states 80");
  small.sources.erase("nodes");
  Topology stated = puhti;
  stated.sources.erase("nodes");
  EXPECT_EQ(small.sources, stated.sources);
  // The stated size itself keeps its source.
  EXPECT_EQ(scale_to_nodes(puhti, 80).sources, puhti.sources);
  EXPECT_THROW(scale_to_nodes(puhti, 0), UsageError);
  // Overriding nodes without scaling is caught by check_topology().
  Topology over = puhti;
  over.nodes = 1024;
  EXPECT_THROW(check_topology(over), UsageError);
}

}  // namespace
}  // namespace prunex
