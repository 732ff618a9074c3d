#include "records/output_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/error.h"

namespace prunex {

namespace fs = std::filesystem;

namespace {

// Creates `path` as a folder for `flag` (UsageError if a file is in the way or it cannot be
// created); returns the topmost folder it created ("" if it existed).
std::string make_folder(const std::string& path, const std::string& flag,
                        const std::string& named) {
  fs::path top;  // the topmost folder that does not exist yet
  for (fs::path p = fs::path(path); !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (fs::exists(st)) {
      PRUNEX_USAGE(fs::is_directory(st), flag, " ", named, ": ",
                   p == fs::path(named) ? "is an existing file, not a folder"
                                        : p.string() + " is a file, not a folder");
      break;
    }
    top = p;
    if (p == p.parent_path()) break;
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  PRUNEX_USAGE(!ec, flag, " ", named, ": cannot create the folder ", path, " (", ec.message(), ")");
  return top.string();
}

// Creates and removes a probe file in `folder`: 0, or the errno of the failed creation.
int probe_writable(const std::string& folder) {
  const std::string probe = folder + "/.prunex-probe." + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const int err = fd < 0 ? errno : 0;
  if (fd >= 0) {
    close(fd);
    unlink(probe.c_str());
  }
  return err;
}

// Removes the folders from `path` up to `created` while they are empty.
void remove_created(const std::string& path, const std::string& created) {
  if (created.empty()) return;
  std::error_code ec;
  for (fs::path p = fs::path(path);; p = p.parent_path()) {
    if (!fs::is_empty(p, ec) || ec || !fs::remove(p, ec)) break;
    if (p == fs::path(created) || p == p.parent_path()) break;
  }
}

}  // namespace

OutputDir::OutputDir(const std::string& path, const std::string& flag) : path_(path) {
  PRUNEX_USAGE(!path.empty(), flag, " must not be empty");
  created_ = make_folder(path, flag, path);
  const int probe_errno = probe_writable(path);
  fd_ = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool locked = fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0;
  if (probe_errno != 0 || !locked) {
    const std::string why = probe_errno != 0
                                ? std::string("not writable (") + std::strerror(probe_errno) + ")"
                                : "another run is writing there now; give this one its own folder";
    release();  // closes, removes what it created
    PRUNEX_USAGE(false, flag, " ", path, ": ", why);
  }
}

OutputDir::~OutputDir() {
  release();
}

void OutputDir::release() {
  if (fd_ >= 0) close(fd_);  // releases the lock
  fd_ = -1;
  remove_created(path_, created_);
  created_.clear();
}

OutputFile::OutputFile(const std::string& path, const std::string& flag) {
  PRUNEX_USAGE(!path.empty(), flag, " must not be empty");
  std::error_code ec;
  PRUNEX_USAGE(!fs::is_directory(path, ec), flag, " ", path, ": is a folder, not a file");
  const fs::path parent = fs::path(path).parent_path();
  folder_ = parent.empty() ? "." : parent.string();
  created_ = make_folder(folder_, flag, path);
  if (const int err = probe_writable(folder_); err != 0) {
    remove_created(folder_, created_);
    created_.clear();
    PRUNEX_USAGE(false, flag, " ", path, ": its folder is not writable (", std::strerror(err), ")");
  }
}

OutputFile::~OutputFile() {
  remove_created(folder_, created_);
}

}  // namespace prunex
