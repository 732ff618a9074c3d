// Bad topology documents: each class of error is one UsageError line naming the field.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "topologies/topology_io.h"

namespace prunex {
namespace {

using nlohmann::json;

// A small valid document with plain numbers (no sources), edited per test.
json base() {
  return json::parse(R"({
    "name": "t", "nodes": 4, "gpus_per_node": 4,
    "gpu": {"name": "g", "fp32_tflops": 10, "fp16_tflops": 100,
            "memory_bandwidth_gbs": 900, "efficiency": 0.5},
    "intra": {"kind": "nvlink_pairs", "bandwidth_gbs": 25, "latency_us": 1,
              "links_per_pair": 2, "links_per_gpu": 6},
    "nic": {"rails": 2, "bandwidth_gbits": 100, "latency_us": 2},
    "fabric": {"kind": "fat_tree", "levels": 2, "radix": 8, "blocking": 1,
               "bandwidth_gbits": 100, "latency_us": 0.1}
  })");
}

// The message of the UsageError that parsing `doc` raises ("" when none is raised).
std::string error_of(const json& doc) {
  try {
    parse_topology(doc, "t.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::function<void(json&)>& edit, const std::string& field,
                  const std::string& words) {
  json doc = base();
  edit(doc);
  std::string msg = error_of(doc);
  SCOPED_TRACE(msg);
  ASSERT_FALSE(msg.empty()) << "no error for " << field;
  EXPECT_EQ(msg.rfind("topology t.json: " + field + " ", 0), 0u);
  EXPECT_NE(msg.find(words), std::string::npos);
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(TopologyErrors, BaseDocumentIsValid) {
  EXPECT_EQ(error_of(base()), "");
}

TEST(TopologyErrors, UnknownKeys) {
  expect_error([](json& d) { d["colour"] = "blue"; }, "colour", "unknown key");
  expect_error([](json& d) { d["nic"]["speed"] = 1; }, "nic.speed", "unknown key");
  expect_error(
      [](json& d) {
        d["nic"]["bandwidth_gbits"] = {{"value", 1}, {"unit", "G"}};
      },
      "nic.bandwidth_gbits.unit", "unknown key");
  // A key of another kind is unknown here: a star has no radix.
  expect_error(
      [](json& d) {
        d["fabric"] = {{"kind", "star"}, {"radix", 8}, {"bandwidth_gbits", 1}, {"latency_us", 1}};
      },
      "fabric.radix", "unknown key");
  expect_error([](json& d) { d["intra"]["kind"] = "nvswitch"; }, "intra.links_per_gpu",
               "unknown key");
}

// The per-precision fields: efficiencies are fractions, and a TF32 efficiency needs the TF32
// peak it is a fraction of.
TEST(TopologyErrors, PrecisionFields) {
  expect_error([](json& d) { d["gpu"]["amp_efficiency"] = 1.5; }, "gpu.amp_efficiency",
               "must be in (0, 1], or left out");
  expect_error([](json& d) { d["gpu"]["tf32_efficiency"] = 0.2; }, "gpu.tf32_efficiency",
               "needs gpu.tf32_tflops");
  expect_error([](json& d) { d["gpu"]["tf32_tflops"] = -1; }, "gpu.tf32_tflops",
               "must be > 0, or left out (got -1)");
  expect_error([](json& d) { d["gpu"]["amp_efficiency"] = 0; }, "gpu.amp_efficiency",
               "must be > 0, or left out (got 0)");
  json ok = base();
  ok["gpu"]["tf32_tflops"] = 150;
  ok["gpu"]["tf32_efficiency"] = 0.2;
  ok["gpu"]["amp_efficiency"] = 0.25;
  EXPECT_EQ(error_of(ok), "");
}

TEST(TopologyErrors, MissingFields) {
  expect_error([](json& d) { d["gpu"].erase("fp32_tflops"); }, "gpu.fp32_tflops", "is missing");
  expect_error([](json& d) { d.erase("fabric"); }, "fabric", "is missing");
  expect_error([](json& d) { d["fabric"].erase("blocking"); }, "fabric.blocking", "is missing");
  expect_error(
      [](json& d) {
        d["nic"]["latency_us"] = {{"source", "x"}};
      },
      "nic.latency_us.value", "is missing");
}

TEST(TopologyErrors, WrongTypesAndKinds) {
  expect_error([](json& d) { d["nodes"] = "80"; }, "nodes", "must be a number");
  expect_error([](json& d) { d["nodes"] = 2.5; }, "nodes", "whole number");
  expect_error([](json& d) { d["gpu"] = 3; }, "gpu", "must be a JSON object");
  expect_error([](json& d) { d["intra"]["kind"] = "infinity"; }, "intra.kind", "must be one of");
  expect_error([](json& d) { d["fabric"]["kind"] = "torus"; }, "fabric.kind", "must be one of");
  expect_error(
      [](json& d) {
        d["fabric"]["latency_us"] = {{"value", "1"}};
      },
      "fabric.latency_us.value", "must be a number");
}

TEST(TopologyErrors, ZeroOrNegativeBandwidths) {
  expect_error([](json& d) { d["nic"]["bandwidth_gbits"] = 0; }, "nic.bandwidth_gbits",
               "must be > 0 (got 0)");
  expect_error([](json& d) { d["intra"]["bandwidth_gbs"] = -25; }, "intra.bandwidth_gbs",
               "must be > 0 (got -25)");
  expect_error(
      [](json& d) {
        d["fabric"]["bandwidth_gbits"] = {{"value", 0}, {"source", "x"}};
      },
      "fabric.bandwidth_gbits", "must be > 0");
  expect_error([](json& d) { d["gpu"]["memory_bandwidth_gbs"] = 0; }, "gpu.memory_bandwidth_gbs",
               "must be > 0");
  expect_error([](json& d) { d["gpu"]["fp32_tflops"] = -1; }, "gpu.fp32_tflops", "must be > 0");
  expect_error([](json& d) { d["nic"]["latency_us"] = -1; }, "nic.latency_us", "must be >= 0");
  expect_error([](json& d) { d["gpu"]["efficiency"] = 1.5; }, "gpu.efficiency", "(0, 1]");
  expect_error([](json& d) { d["nic"]["achieved_fraction"] = 0; }, "nic.achieved_fraction",
               "(0, 1]");
  expect_error([](json& d) { d["intra"]["achieved_fraction"] = 1.2; }, "intra.achieved_fraction",
               "(0, 1]");
}

TEST(TopologyErrors, InconsistentCounts) {
  expect_error([](json& d) { d["gpus_per_node"] = 0; }, "gpus_per_node", "must be >= 1");
  expect_error([](json& d) { d["nodes"] = -3; }, "nodes", "must be >= 1");
  expect_error([](json& d) { d["nic"]["rails"] = 0; }, "nic.rails", "must be >= 1");
  // 3 links to each of 3 peers = 9 > 6 NVLink ports.
  expect_error([](json& d) { d["intra"]["links_per_pair"] = 3; }, "intra.links_per_pair",
               "9 links per GPU exceeds intra.links_per_gpu 6");
  // Two levels of 8-port switches connect 4 x 8 = 32 ports; 20 nodes x 2 rails need 40.
  expect_error([](json& d) { d["nodes"] = 20; }, "fabric.radix", "at most 32 NIC ports");
  expect_error([](json& d) { d["fabric"]["blocking"] = 0.5; }, "fabric.blocking", "must be >= 1");
  // Dragonfly: 5 groups need 4 global links per group; 1 router x 2 links reach only 2.
  expect_error(
      [](json& d) {
        d["nodes"] = 10;
        d["fabric"] = {{"kind", "dragonfly"},    {"groups", 5},
                       {"routers_per_group", 1}, {"global_links_per_router", 2},
                       {"bandwidth_gbits", 100}, {"latency_us", 1}};
      },
      "fabric.global_links_per_router", "cannot reach the other 4 groups");
  expect_error(
      [](json& d) {
        d["fabric"] = {{"kind", "dragonfly"},    {"groups", 8},
                       {"routers_per_group", 4}, {"global_links_per_router", 2},
                       {"bandwidth_gbits", 100}, {"latency_us", 1}};
      },
      "fabric.groups", "exceeds nodes 4");
}

class TopologyFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("prunex_topology_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::filesystem::path dir_;
};

TEST_F(TopologyFileErrors, MalformedJsonIsOneLine) {
  std::string path = write("bad.json", "{\"name\": \"x\",\n \"nodes\": }\n");
  try {
    load_topology(path);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("topology " + path + ": malformed JSON", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST_F(TopologyFileErrors, MissingFileAndFieldErrorsNameTheFile) {
  std::string missing = (dir_ / "absent.json").string();
  EXPECT_THROW(load_topology(missing), UsageError);
  json doc = base();
  doc["nic"]["bandwidth_gbits"] = 0;
  std::string path = write("zero.json", doc.dump());
  try {
    load_topology(path);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "topology " + path + ": nic.bandwidth_gbits must be > 0 (got 0)");
  }
  // A valid file loads and keeps the given numbers.
  Topology t = load_topology(write("good.json", base().dump()));
  EXPECT_EQ(t.nodes, 4);
  EXPECT_DOUBLE_EQ(t.nic.link.bandwidth_Bps, 100e9 / 8);
  EXPECT_TRUE(t.sources.empty());
}

}  // namespace
}  // namespace prunex
