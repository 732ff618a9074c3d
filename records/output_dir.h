// An output folder (--out), checked and claimed before any work starts: a run that cannot
// write its results says so at once (exit 2, one line), not after hours of training, and two
// runs given the same folder never mix their files.
#pragma once

#include <string>

namespace prunex {

// Checks `path` as an output folder for `flag` and claims it for this object's lifetime: not
// empty, not an existing file nor under one, creatable (created), writable (a probe file
// created and removed in it), and not held by another run (an flock on the folder itself, so
// nothing extra is left in it). UsageError naming the problem otherwise. A folder it created
// that is still empty when it goes (the run failed before writing) is removed again, with
// the parents it created: a failed run leaves nothing behind.
class OutputDir {
 public:
  explicit OutputDir(const std::string& path, const std::string& flag = "--out");
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

 private:
  void release();
  std::string path_;
  std::string created_;  // the topmost folder this object created ("" if it existed)
  int fd_ = -1;
};

}  // namespace prunex
