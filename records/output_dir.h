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

// Checks `path` as an output file for `flag` before any work: not empty, not a folder, no
// file among its folders, its folder creatable (created) and writable (a probe file created
// and removed there). UsageError naming the problem otherwise. Folders it created that are
// still empty when it goes (the command failed before writing) are removed again. Writers
// still write the file whole or not at all (write_file_atomic).
class OutputFile {
 public:
  explicit OutputFile(const std::string& path, const std::string& flag = "--out");
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

 private:
  std::string folder_;
  std::string created_;  // the topmost folder this object created ("" if none)
};

}  // namespace prunex
