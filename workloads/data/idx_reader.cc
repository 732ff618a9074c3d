#include "workloads/data/idx_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/error.h"

namespace prunex {
namespace {

constexpr uint32_t kImagesMagic = 2051;  // 0x00000803
constexpr uint32_t kLabelsMagic = 2049;  // 0x00000801
// A corrupt header must not make us allocate without bound: no IDX file we read is near this.
constexpr size_t kMaxBytes = size_t{1} << 31;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

// The whole decompressed content of a (possibly uncompressed) file.
std::vector<uint8_t> read_gz(const std::string& path) {
  std::error_code ec;
  PRUNEX_USAGE(std::filesystem::is_regular_file(path, ec), "data file ", path,
               " does not exist or is not a regular file");
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  PRUNEX_USAGE(f != nullptr, "cannot open data file ", path, ": ", std::strerror(errno));
  std::vector<uint8_t> out;
  std::vector<uint8_t> chunk(1 << 20);
  for (;;) {
    const int got = gzread(f.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(f.get(), &code);
      throw UsageError("data file " + path + " is truncated or corrupt (" + msg + ")");
    }
    if (got == 0) break;
    out.insert(out.end(), chunk.begin(), chunk.begin() + got);
    PRUNEX_USAGE(out.size() <= kMaxBytes, "data file ", path, " is larger than ", kMaxBytes,
                 " bytes decompressed");
  }
  // gzread reports a cut-off gzip stream at its end as 0 bytes with an error set.
  int code = Z_OK;
  const char* msg = gzerror(f.get(), &code);
  PRUNEX_USAGE(code == Z_OK, "data file ", path, " is truncated or corrupt (", msg, ")");
  return out;
}

uint32_t big_endian_u32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t{b[at]} << 24) | (uint32_t{b[at + 1]} << 16) | (uint32_t{b[at + 2]} << 8) |
         uint32_t{b[at + 3]};
}

// Checks magic and size; returns the dims. The payload starts after 4 + 4 * dims bytes.
std::vector<int64_t> parse_header(const std::vector<uint8_t>& bytes, const std::string& path,
                                  uint32_t magic, size_t ndims) {
  const size_t header = 4 + 4 * ndims;
  PRUNEX_USAGE(bytes.size() >= 4, "data file ", path, " is truncated: ", bytes.size(),
               " bytes, no IDX header");
  const uint32_t got = big_endian_u32(bytes, 0);
  PRUNEX_USAGE(got == magic, "data file ", path, " has wrong magic number ", got, " (expected ",
               magic, magic == kImagesMagic ? ", IDX images" : ", IDX labels", ")");
  PRUNEX_USAGE(bytes.size() >= header, "data file ", path, " is truncated inside its header");
  std::vector<int64_t> dims;
  int64_t payload = 1;
  for (size_t d = 0; d < ndims; ++d) {
    dims.push_back(big_endian_u32(bytes, 4 + 4 * d));
    PRUNEX_USAGE(dims.back() > 0, "data file ", path, " has dimension ", d, " of size 0");
    payload *= dims.back();
    PRUNEX_USAGE(payload <= static_cast<int64_t>(kMaxBytes), "data file ", path,
                 " claims an implausible size");
  }
  const int64_t have = static_cast<int64_t>(bytes.size() - header);
  PRUNEX_USAGE(have >= payload, "data file ", path, " is truncated: its header promises ", payload,
               " data bytes, it holds ", have);
  PRUNEX_USAGE(have == payload, "data file ", path, " has ", have - payload,
               " bytes after the data its header describes");
  return dims;
}

}  // namespace

RawImages read_idx_images_and_labels(const std::string& images_path,
                                     const std::string& labels_path) {
  const auto image_bytes = read_gz(images_path);
  const auto dims = parse_header(image_bytes, images_path, kImagesMagic, 3);
  const auto label_bytes = read_gz(labels_path);
  const auto label_dims = parse_header(label_bytes, labels_path, kLabelsMagic, 1);
  PRUNEX_USAGE(label_dims[0] == dims[0], "data file ", labels_path, " holds ", label_dims[0],
               " labels but ", images_path, " holds ", dims[0], " images");
  RawImages raw;
  raw.count = dims[0];
  raw.channels = 1;
  raw.height = dims[1];
  raw.width = dims[2];
  raw.pixels.assign(image_bytes.begin() + 16, image_bytes.end());
  raw.labels.assign(label_bytes.begin() + 8, label_bytes.end());
  return raw;
}

RawImages read_fashion_mnist(const std::string& dir, bool train) {
  const std::filesystem::path base = dir.empty() ? default_fashion_mnist_dir() : dir;
  const std::string prefix = train ? "train" : "t10k";
  const std::string images = (base / (prefix + "-images-idx3-ubyte.gz")).string();
  const std::string labels = (base / (prefix + "-labels-idx1-ubyte.gz")).string();
  RawImages raw = read_idx_images_and_labels(images, labels);
  for (int64_t i = 0; i < raw.count; ++i)
    PRUNEX_USAGE(raw.labels[i] < 10, "data file ", labels, ": label ", int(raw.labels[i]),
                 " of sample ", i, " is outside 0..9");
  return raw;
}

}  // namespace prunex
