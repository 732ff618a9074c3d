// Data readers on small files written here in the exact distribution formats, their errors,
// sharded loading, and the real Fashion-MNIST package.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/error.h"
#include "workloads/data/cifar10_reader.h"
#include "workloads/data/dataset.h"
#include "workloads/data/idx_reader.h"

namespace prunex {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("prunex_data_test_" + std::to_string(::getpid()) + "_" + std::to_string(next_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  static inline int next_ = 0;
};

std::vector<uint8_t> be32(uint32_t v) {
  return {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
}

void write_gz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  if (!bytes.empty()) {
    ASSERT_EQ(gzwrite(f, bytes.data(), bytes.size()), int(bytes.size()));
  }
  ASSERT_EQ(gzclose(f), Z_OK);
}

// An IDX file: magic, dims, then `payload` (which may disagree with dims, to test errors).
std::vector<uint8_t> idx_bytes(uint32_t magic, const std::vector<uint32_t>& dims,
                               const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> out = be32(magic);
  for (uint32_t d : dims) {
    auto b = be32(d);
    out.insert(out.end(), b.begin(), b.end());
  }
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// Fashion-MNIST-shaped small files: n images of rows x cols, pixel k of image i = (7i + k) % 256,
// label i % 10.
void write_fashion(const TempDir& dir, const std::string& prefix, uint32_t n, uint32_t rows,
                   uint32_t cols) {
  std::vector<uint8_t> pixels, labels;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < rows * cols; ++k) pixels.push_back(uint8_t((7 * i + k) % 256));
    labels.push_back(uint8_t(i % 10));
  }
  write_gz(dir.file(prefix + "-images-idx3-ubyte.gz"), idx_bytes(2051, {n, rows, cols}, pixels));
  write_gz(dir.file(prefix + "-labels-idx1-ubyte.gz"), idx_bytes(2049, {n}, labels));
}

// The statement throws UsageError whose one-line message names `file` and contains `what`.
#define EXPECT_USAGE_NAMING(stmt, file, text)              \
  do {                                                     \
    try {                                                  \
      stmt;                                                \
      ADD_FAILURE() << "no UsageError from " #stmt;        \
    } catch (const UsageError& e) {                        \
      const std::string msg = e.what();                    \
      EXPECT_NE(msg.find(file), std::string::npos) << msg; \
      EXPECT_NE(msg.find(text), std::string::npos) << msg; \
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg; \
    }                                                      \
  } while (0)

TEST(FashionMnistReader, ReadsGzippedIdx) {
  TempDir dir;
  write_fashion(dir, "train", 5, 28, 28);
  write_fashion(dir, "t10k", 3, 4, 6);
  const RawImages raw = read_fashion_mnist(dir.path().string(), true);
  EXPECT_EQ(raw.count, 5);
  EXPECT_EQ(raw.channels, 1);
  EXPECT_EQ(raw.height, 28);
  EXPECT_EQ(raw.width, 28);
  const Dataset test = load_fashion_mnist(dir.path().string(), false);
  ASSERT_EQ(test.images.sizes().vec(), (std::vector<int64_t>{3, 1, 4, 6}));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(test.labels[i].item<int64_t>(), i);
    for (int k = 0; k < 24; ++k) {
      const double x = ((7 * i + k) % 256) / 255.0;
      const double expected = (x - 0.2860406) / 0.3530242;
      EXPECT_NEAR(test.images[i][0][k / 6][k % 6].item<double>(), expected, 1e-5);
    }
  }
}

TEST(FashionMnistReader, MissingTruncatedAndWrongMagicFilesAreNamed) {
  TempDir dir;
  const std::string d = dir.path().string();
  const std::string images = dir.file("train-images-idx3-ubyte.gz");
  const std::string labels = dir.file("train-labels-idx1-ubyte.gz");
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), images, "does not exist");

  write_fashion(dir, "train", 4, 5, 5);
  fs::remove(labels);
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), labels, "does not exist");

  // Header promises 4 images, 3.5 are there.
  write_fashion(dir, "train", 4, 5, 5);
  write_gz(images, idx_bytes(2051, {4, 5, 5}, std::vector<uint8_t>(87, 1)));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), images, "truncated");
  // Cut inside the header.
  write_gz(images, {0, 0, 8, 3, 0, 0});
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), images, "truncated");
  // A cut-off gzip stream.
  write_fashion(dir, "train", 40, 28, 28);
  {
    std::ifstream in(images, std::ios::binary);
    std::vector<char> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(images, std::ios::binary | std::ios::trunc).write(gz.data(), gz.size() / 2);
  }
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), images, "truncated");

  // Labels file given where images belong, and vice versa.
  write_fashion(dir, "train", 4, 5, 5);
  write_gz(images, idx_bytes(2049, {4}, std::vector<uint8_t>(4, 1)));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), images, "magic");
  write_fashion(dir, "train", 4, 5, 5);
  write_gz(labels, idx_bytes(2051, {4, 1, 1}, std::vector<uint8_t>(4, 1)));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), labels, "magic");

  // Counts that disagree, and a label outside 0..9.
  write_fashion(dir, "train", 4, 5, 5);
  write_gz(labels, idx_bytes(2049, {3}, {1, 2, 3}));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), labels, "holds 3 labels");
  write_gz(labels, idx_bytes(2049, {4}, {1, 2, 10, 3}));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), labels, "outside 0..9");
  // Trailing bytes after the data.
  write_fashion(dir, "train", 4, 5, 5);
  write_gz(labels, idx_bytes(2049, {4}, {1, 2, 3, 4, 5}));
  EXPECT_USAGE_NAMING(read_fashion_mnist(d, true), labels, "after the data");
}

// A CIFAR-10 binary file of n records; record i: label (i + first) % 10, byte k of its image
// = (3i + k + first) % 251.
void write_cifar(const std::string& path, int n, int first) {
  std::vector<char> bytes;
  for (int i = 0; i < n; ++i) {
    bytes.push_back(char((i + first) % 10));
    for (int k = 0; k < 3072; ++k) bytes.push_back(char((3 * i + k + first) % 251));
  }
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
}

TEST(Cifar10Reader, ReadsTheBinaryFormat) {
  TempDir dir;
  const int counts[5] = {2, 1, 3, 1, 2};
  int first = 0;
  for (int b = 0; b < 5; ++b) {
    write_cifar(dir.file("data_batch_" + std::to_string(b + 1) + ".bin"), counts[b], first);
    first += 100;
  }
  write_cifar(dir.file("test_batch.bin"), 4, 7);
  const RawImages train = read_cifar10(dir.path().string(), true);
  EXPECT_EQ(train.count, 9);
  EXPECT_EQ(int(train.labels[2]), 100 % 10);  // first record of data_batch_2
  const Dataset test = load_cifar10(dir.path().string(), false);
  ASSERT_EQ(test.images.sizes().vec(), (std::vector<int64_t>{4, 3, 32, 32}));
  const float mean[3] = {0.4914f, 0.4822f, 0.4465f}, sd[3] = {0.2470f, 0.2435f, 0.2616f};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(test.labels[i].item<int64_t>(), (i + 7) % 10);
    // Spot pixels: channel c, row y, column x sit at byte c*1024 + y*32 + x of the record.
    for (auto [c, y, x] : {std::tuple{0, 0, 0}, std::tuple{1, 5, 17}, std::tuple{2, 31, 31}}) {
      const double byte = (3 * i + c * 1024 + y * 32 + x + 7) % 251;
      EXPECT_NEAR(test.images[i][c][y][x].item<double>(), (byte / 255 - mean[c]) / sd[c], 1e-5);
    }
  }
}

TEST(Cifar10Reader, ExtractedArchiveFolderAndErrors) {
  TempDir dir;
  const fs::path sub = dir.path() / "cifar-10-batches-bin";
  fs::create_directories(sub);
  write_cifar((sub / "test_batch.bin").string(), 2, 0);
  EXPECT_EQ(read_cifar10(dir.path().string(), false).count, 2);

  for (int b = 1; b <= 5; ++b)
    if (b != 3) write_cifar((sub / ("data_batch_" + std::to_string(b) + ".bin")).string(), 1, 0);
  const std::string third = (sub / "data_batch_3.bin").string();
  EXPECT_USAGE_NAMING(read_cifar10(dir.path().string(), true), third, "does not exist");
  write_cifar(third, 2, 0);
  fs::resize_file(third, 2 * 3073 - 5);
  EXPECT_USAGE_NAMING(read_cifar10(dir.path().string(), true), third, "truncated");
  fs::resize_file(third, 0);
  EXPECT_USAGE_NAMING(read_cifar10(dir.path().string(), true), third, "empty");
  // Whole records, but a label byte no CIFAR-10 file has (e.g. some other format).
  {
    std::vector<char> rec(3073, 0);
    rec[0] = 12;
    std::ofstream(third, std::ios::binary | std::ios::trunc).write(rec.data(), rec.size());
  }
  EXPECT_USAGE_NAMING(read_cifar10_file(third), third, "outside 0..9");
  EXPECT_THROW(load_cifar10("", true), UsageError);
}

TEST(Sharding, ShardedLoadEqualsShardOfFullLoad) {
  TempDir dir;
  write_fashion(dir, "train", 23, 3, 3);
  const Dataset full = load_fashion_mnist(dir.path().string(), true);
  const Dataset part = load_fashion_mnist(dir.path().string(), true, {2, 2, 1, 0});
  const Dataset ref = shard(full, {2, 2, 1, 0});
  EXPECT_EQ(part.size(), 5);
  EXPECT_TRUE(torch::equal(part.images, ref.images));
  EXPECT_TRUE(torch::equal(part.labels, ref.labels));
}

TEST(FashionMnistPackage, LoadsTheRealData) {
  const std::string dir = default_fashion_mnist_dir();
  if (!fs::exists(fs::path(dir) / "train-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (" << dir << ")";
  const RawImages train = read_fashion_mnist("", true);
  const RawImages test = read_fashion_mnist("", false);
  EXPECT_EQ(train.count, 60000);
  EXPECT_EQ(test.count, 10000);
  EXPECT_EQ(train.height, 28);
  EXPECT_EQ(train.width, 28);
  // Fashion-MNIST is balanced: 6000 / 1000 per class.
  std::vector<int> per_class(10, 0);
  for (uint8_t l : train.labels) ++per_class[l];
  for (int k = 0; k < 10; ++k) EXPECT_EQ(per_class[k], 6000) << "class " << k;
  std::fill(per_class.begin(), per_class.end(), 0);
  for (uint8_t l : test.labels) ++per_class[l];
  for (int k = 0; k < 10; ++k) EXPECT_EQ(per_class[k], 1000) << "class " << k;
  // The normalisation constants are this data's mean and standard deviation.
  double sum = 0, sq = 0;
  for (uint8_t p : train.pixels) {
    sum += p / 255.0;
    sq += (p / 255.0) * (p / 255.0);
  }
  const double n = double(train.pixels.size()), mean = sum / n;
  const auto norm = fashion_mnist_normalization();
  EXPECT_NEAR(mean, norm.mean[0], 1e-6);
  EXPECT_NEAR(std::sqrt(sq / n - mean * mean), norm.std[0], 1e-6);
  const Dataset d = load_fashion_mnist("", false);
  EXPECT_EQ(d.images.sizes().vec(), (std::vector<int64_t>{10000, 1, 28, 28}));
  EXPECT_EQ(d.labels.min().item<int64_t>(), 0);
  EXPECT_EQ(d.labels.max().item<int64_t>(), 9);
}

}  // namespace
}  // namespace prunex
