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

OutputDir::OutputDir(const std::string& path, const std::string& flag) : path_(path) {
  PRUNEX_USAGE(!path.empty(), flag, " must not be empty");
  // Walk up to the nearest existing ancestor: a file on the way makes the folder impossible.
  fs::path top;  // the topmost folder that does not exist yet
  for (fs::path p = fs::path(path); !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (fs::exists(st)) {
      PRUNEX_USAGE(fs::is_directory(st), flag, " ", path, ": ",
                   p == fs::path(path) ? "is an existing file, not a folder"
                                       : p.string() + " is a file, not a folder");
      break;
    }
    top = p;
    if (p == p.parent_path()) break;
  }
  std::error_code ec;
  fs::create_directories(path, ec);
  PRUNEX_USAGE(!ec, flag, " ", path, ": cannot create the folder (", ec.message(), ")");
  created_ = top.string();
  const std::string probe = path + "/.prunex-probe." + std::to_string(getpid());
  const int probe_fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const int probe_errno = errno;
  if (probe_fd >= 0) {
    close(probe_fd);
    unlink(probe.c_str());
  }
  fd_ = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool locked = fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) == 0;
  if (probe_fd < 0 || !locked) {
    const std::string why = probe_fd < 0
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
  if (created_.empty()) return;
  // Remove the folders this object created, from `path` up to `created_`, while empty.
  std::error_code ec;
  for (fs::path p = fs::path(path_);; p = p.parent_path()) {
    if (!fs::is_empty(p, ec) || ec || !fs::remove(p, ec)) break;
    if (p == fs::path(created_) || p == p.parent_path()) break;
  }
  created_.clear();
}

}  // namespace prunex
