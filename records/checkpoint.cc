#include "records/checkpoint.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/error.h"
#include "records/json_file.h"
#include "records/run_record.h"

namespace prunex {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "PRUNEXCKPT1\n";

template <typename T>
void put_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Reads little-endian integers and byte runs, every length checked against what is left.
class Reader {
 public:
  Reader(std::string_view b, const std::string& origin) : b_(b), origin_(origin) {}
  template <typename T>
  T le(const char* what) {
    need(sizeof(T), what);
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      v |= static_cast<T>(static_cast<unsigned char>(b_[at_ + i])) << (8 * i);
    at_ += sizeof(T);
    return v;
  }
  std::string_view bytes(uint64_t n, const char* what) {
    need(n, what);
    const std::string_view s = b_.substr(at_, n);
    at_ += n;
    return s;
  }
  uint64_t left() const { return b_.size() - at_; }

 private:
  void need(uint64_t n, const char* what) {
    PRUNEX_USAGE(n <= left(), "checkpoint ", origin_, ": truncated (", what, " needs ", n,
                 " bytes, ", left(), " left)");
  }
  std::string_view b_;
  const std::string& origin_;
  uint64_t at_ = 0;
};

std::string iteration_folder(const std::string& dir, int iteration) {
  char name[32];
  std::snprintf(name, sizeof name, "iter-%08d", iteration);
  return (fs::path(dir) / name).string();
}

std::string rank_file_name(int rank) {
  char name[32];
  std::snprintf(name, sizeof name, "rank-%05d.ckpt", rank);
  return name;
}

std::string read_whole(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  PRUNEX_USAGE(f.good(), what, ": cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

uint32_t crc32_of(std::string_view bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large buffers in pieces.
  for (size_t at = 0; at < bytes.size();) {
    const size_t n = std::min<size_t>(bytes.size() - at, 1u << 30);
    c = crc32(c, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
    at += n;
  }
  return static_cast<uint32_t>(c);
}

std::string encode_sections(const StateSections& sections) {
  std::string out(kMagic);
  put_le<uint32_t>(out, static_cast<uint32_t>(sections.size()));
  for (const auto& [name, data] : sections) {
    put_le<uint32_t>(out, static_cast<uint32_t>(name.size()));
    out += name;
    put_le<uint64_t>(out, data.size());
    out += data;
  }
  put_le<uint32_t>(out, crc32_of(out));
  return out;
}

StateSections decode_sections(std::string_view bytes, const std::string& origin) {
  PRUNEX_USAGE(bytes.size() >= kMagic.size() + 8 && bytes.substr(0, kMagic.size()) == kMagic,
               "checkpoint ", origin, ": not a prunex checkpoint file");
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  Reader trailer(bytes.substr(bytes.size() - 4), origin);
  PRUNEX_USAGE(trailer.le<uint32_t>("checksum") == crc32_of(body), "checkpoint ", origin,
               ": checksum mismatch (corrupt or truncated)");
  Reader r(body.substr(kMagic.size()), origin);
  const uint32_t count = r.le<uint32_t>("section count");
  StateSections out;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t name_len = r.le<uint32_t>("section name length");
    std::string name(r.bytes(name_len, "section name"));
    const uint64_t len = r.le<uint64_t>("section length");
    const std::string_view data = r.bytes(len, "section data");
    PRUNEX_USAGE(out.emplace(std::move(name), std::string(data)).second, "checkpoint ", origin,
                 ": a section appears twice");
  }
  PRUNEX_USAGE(r.left() == 0, "checkpoint ", origin, ": ", r.left(), " bytes after the sections");
  return out;
}

CheckpointFileInfo write_rank_checkpoint(const std::string& dir, int iteration, int rank,
                                         const StateSections& sections) {
  const std::string bytes = encode_sections(sections);
  write_file_atomic((fs::path(iteration_folder(dir, iteration)) / rank_file_name(rank)).string(),
                    bytes);
  // The trailer (the CRC-32 of the body): the CRC of a whole file that ends in its own CRC is
  // the same constant for every file, so it could not tell two files apart.
  return {static_cast<int64_t>(bytes.size()),
          crc32_of(std::string_view(bytes).substr(0, bytes.size() - 4))};
}

void publish_checkpoint(const std::string& dir, int iteration, nlohmann::json manifest,
                        const std::vector<CheckpointFileInfo>& infos) {
  const std::string folder = iteration_folder(dir, iteration);
  manifest["format"] = "prunex-checkpoint-1";
  manifest["iteration"] = iteration;
  nlohmann::json files = nlohmann::json::array();
  for (size_t r = 0; r < infos.size(); ++r)
    files.push_back({{"name", rank_file_name(static_cast<int>(r))},
                     {"bytes", infos[r].bytes},
                     {"crc32", infos[r].crc32}});
  manifest["files"] = files;
  write_file_atomic(folder + "/manifest.json", manifest.dump(1));
  write_file_atomic(dir + "/LATEST", fs::path(folder).filename().string() + "\n");
  // Only now are the older checkpoints redundant.
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("iter-", 0) == 0 && e.path() != fs::path(folder)) fs::remove_all(e.path(), ec);
  }
}

CheckpointManifest read_latest_checkpoint(const std::string& dir) {
  const std::string what = "--resume " + dir;
  PRUNEX_USAGE(fs::is_directory(dir), what, ": no such folder");
  std::string latest = read_whole(dir + "/LATEST", what + " (no complete checkpoint)");
  while (!latest.empty() && (latest.back() == '\n' || latest.back() == ' ')) latest.pop_back();
  PRUNEX_USAGE(latest.rfind("iter-", 0) == 0 && latest.find('/') == std::string::npos, what,
               ": LATEST names no checkpoint folder ('", latest, "')");
  CheckpointManifest m;
  m.folder = (fs::path(dir) / latest).string();
  m.json = read_json_file(m.folder + "/manifest.json", what + ":");
  const nlohmann::json& j = m.json;
  PRUNEX_USAGE(j.is_object() && j.value("format", "") == "prunex-checkpoint-1" &&
                   j.contains("iteration") && j["iteration"].is_number_integer() &&
                   j.contains("files") && j["files"].is_array() && j.contains("config") &&
                   j["config"].is_object(),
               what, ": ", m.folder, "/manifest.json is not a prunex checkpoint manifest");
  m.iteration = j["iteration"].get<int>();
  PRUNEX_USAGE(m.iteration >= 1, what, ": manifest iteration ", m.iteration, " is not positive");
  return m;
}

namespace {

// The manifest's entry for `rank`, checked; its file's path.
std::string rank_file_entry(const CheckpointManifest& m, int rank, int64_t& bytes) {
  const nlohmann::json& files = m.json["files"];
  PRUNEX_USAGE(rank >= 0 && static_cast<size_t>(rank) < files.size(), "checkpoint ", m.folder,
               " has no file for rank ", rank);
  const nlohmann::json& f = files[rank];
  PRUNEX_USAGE(f.is_object() && f.value("name", "") == rank_file_name(rank) &&
                   f.contains("bytes") && f["bytes"].is_number_integer() && f.contains("crc32") &&
                   f["crc32"].is_number_unsigned(),
               "checkpoint ", m.folder, "/manifest.json: bad entry for rank ", rank);
  bytes = f["bytes"].get<int64_t>();
  return (fs::path(m.folder) / rank_file_name(rank)).string();
}

}  // namespace

void check_rank_file_present(const CheckpointManifest& m, int rank) {
  int64_t want = 0;
  const std::string path = rank_file_entry(m, rank, want);
  PRUNEX_USAGE(std::ifstream(path, std::ios::binary).good(), "checkpoint: cannot read ", path);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  PRUNEX_USAGE(!ec, "checkpoint: cannot read ", path, " (", ec.message(), ")");
  PRUNEX_USAGE(static_cast<int64_t>(size) == want, "checkpoint ", path, ": ", size,
               " bytes, the manifest says ", want, " (truncated?)");
}

StateSections read_rank_checkpoint(const CheckpointManifest& m, int rank) {
  int64_t want = 0;
  const std::string path = rank_file_entry(m, rank, want);
  const nlohmann::json& f = m.json["files"][rank];
  const std::string bytes = read_whole(path, "checkpoint");
  PRUNEX_USAGE(static_cast<int64_t>(bytes.size()) == want, "checkpoint ", path, ": ", bytes.size(),
               " bytes, the manifest says ", want, " (truncated?)");
  StateSections out = decode_sections(bytes, path);  // checks the body against the trailer
  PRUNEX_USAGE(
      crc32_of(std::string_view(bytes).substr(0, bytes.size() - 4)) == f["crc32"].get<uint32_t>(),
      "checkpoint ", path,
      ": checksum differs from the manifest's (a file of another checkpoint?)");
  return out;
}

}  // namespace prunex
