#include "workloads/data/cifar10_reader.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/error.h"

namespace prunex {
namespace {

constexpr int64_t kSide = 32;
constexpr int64_t kImageBytes = 3 * kSide * kSide;
constexpr int64_t kRecordBytes = 1 + kImageBytes;

}  // namespace

RawImages read_cifar10_file(const std::string& path) {
  std::error_code ec;
  PRUNEX_USAGE(std::filesystem::is_regular_file(path, ec), "data file ", path,
               " does not exist or is not a regular file");
  std::ifstream in(path, std::ios::binary);
  PRUNEX_USAGE(in.good(), "cannot open data file ", path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  PRUNEX_USAGE(!in.bad(), "cannot read data file ", path);
  const int64_t size = static_cast<int64_t>(bytes.size());
  PRUNEX_USAGE(size > 0, "data file ", path, " is empty");
  PRUNEX_USAGE(size % kRecordBytes == 0, "data file ", path, " is truncated: ", size,
               " bytes is not a whole number of ", kRecordBytes, "-byte CIFAR-10 records");
  RawImages raw;
  raw.count = size / kRecordBytes;
  raw.channels = 3;
  raw.height = raw.width = kSide;
  raw.pixels.resize(raw.count * kImageBytes);
  raw.labels.resize(raw.count);
  for (int64_t i = 0; i < raw.count; ++i) {
    const uint8_t* rec = bytes.data() + i * kRecordBytes;
    PRUNEX_USAGE(rec[0] < 10, "data file ", path, ": label ", int(rec[0]), " of record ", i,
                 " is outside 0..9 (not a CIFAR-10 binary file?)");
    raw.labels[i] = rec[0];
    std::copy(rec + 1, rec + kRecordBytes, raw.pixels.begin() + i * kImageBytes);
  }
  return raw;
}

RawImages read_cifar10(const std::string& dir, bool train) {
  std::filesystem::path base = dir;
  std::error_code ec;
  if (!std::filesystem::exists(base / "test_batch.bin", ec) &&
      std::filesystem::is_directory(base / "cifar-10-batches-bin", ec))
    base /= "cifar-10-batches-bin";
  std::vector<std::string> files;
  if (train) {
    for (int b = 1; b <= 5; ++b)
      files.push_back((base / ("data_batch_" + std::to_string(b) + ".bin")).string());
  } else {
    files.push_back((base / "test_batch.bin").string());
  }
  RawImages all;
  for (const auto& f : files) {
    RawImages part = read_cifar10_file(f);
    all.channels = part.channels;
    all.height = part.height;
    all.width = part.width;
    all.count += part.count;
    all.pixels.insert(all.pixels.end(), part.pixels.begin(), part.pixels.end());
    all.labels.insert(all.labels.end(), part.labels.begin(), part.labels.end());
  }
  return all;
}

}  // namespace prunex
