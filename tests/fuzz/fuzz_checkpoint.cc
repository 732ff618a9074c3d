// A checkpoint rank file (records/checkpoint.h): the section decoder, then the typed reads
// a restore makes.
#include "engine/error.h"
#include "records/checkpoint.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const prunex::StateSections s = prunex::decode_sections(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ckpt");
    for (const auto& [name, bytes] : s) {
      (void)prunex::get_state<float>(s, name);
      (void)bytes;
    }
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
