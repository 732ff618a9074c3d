// Shared by the fuzz targets (tests/fuzz/fuzz_*.cc): the input as JSON or as a file on disk.
// Each target's entry point is LLVMFuzzerTestOneInput: libFuzzer drives it in the fuzz
// build (scripts/tools/fuzz.sh), replay_main.cc replays the stored corpus in ctest. A target
// accepts a UsageError (the one-line, exit-2 error every parser owes bad input); anything
// else escaping it (another exception, a crash, a sanitizer report) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace prunex::fuzz {

// The input parsed as JSON, or a discarded value when it is not JSON (nlohmann's own
// parser is not under test).
inline nlohmann::json as_json(const uint8_t* data, size_t size) {
  return nlohmann::json::parse(data, data + size, nullptr, false);
}

// The input written to a file of this process (the readers under test take paths).
class InputFile {
 public:
  InputFile(const uint8_t* data, size_t size, const char* tag) {
    const char* dir = std::getenv("TMPDIR");
    path_ =
        std::string(dir ? dir : "/tmp") + "/prunex_fuzz_" + tag + "_" + std::to_string(getpid());
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (f) {
      if (size) std::fwrite(data, 1, size, f);
      std::fclose(f);
    }
  }
  ~InputFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace prunex::fuzz
