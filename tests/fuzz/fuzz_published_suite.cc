// `prunex validate`'s suite files (validation/published/*.json): one arbitrary file as the
// whole suite, read and checked by load_published_suite (entries, points, fits, settings).
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "engine/error.h"
#include "simulate/published.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/prunex_fuzz_suite_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return 0;
  const std::string file = dir + "/suite.json";
  if (FILE* f = std::fopen(file.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    (void)prunex::sim::load_published_suite(dir);
  } catch (const prunex::UsageError&) {
  }
  unlink(file.c_str());
  rmdir(dir.c_str());
  return 0;
}
