// `prunex bench --backend nccl` (the collective harness on NCCL) and `--op compaction --device
// cuda` (the GPU kernels) end to end: without a GPU each must exit 2 saying "no CUDA device";
// with one, one rank's collectives and a small model's kernels check out (exit 0).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "backends/cuda/cuda_check.h"

namespace prunex {
namespace {

struct Result {
  int status = -1;
  std::string output;
};

Result run(const std::string& args) {
  Result r;
  const std::string cmd = std::string(PRUNEX_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (fgets(buf.data(), buf.size(), p)) r.output += buf.data();
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(BenchNccl, NoDeviceExitsTwoOtherwiseChecksOut) {
  if (!std::filesystem::exists(PRUNEX_BINARY))
    GTEST_SKIP() << "the prunex binary is not built: " << PRUNEX_BINARY;
  const std::string collectives = "bench --backend nccl --op allreduce -e 1M";
  const std::string kernels =
      "bench --op compaction --device cuda --model resnet20 --sparsity filter+channel --keep 0.5 "
      "-n 3 -w 1";
  if (cuda_device_count() == 0) {
    for (const std::string& cmd : {collectives, kernels}) {
      const Result r = run(cmd);
      EXPECT_EQ(r.status, 2) << cmd << ": " << r.output;
      EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
      EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line: " << r.output;
    }
    return;
  }
  Result r = run(collectives);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("# Out of bounds values : 0"), std::string::npos) << r.output;
  r = run(kernels);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("pack+unpack"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("# Out of bounds values : 0"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace prunex
