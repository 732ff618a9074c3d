// The CIFAR-10 binary reader (data_batch_*.bin: 1 label byte + 3072 pixel bytes a record).
#include "engine/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "workloads/data/cifar10_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const prunex::fuzz::InputFile file(data, size, "cifar");
  try {
    (void)prunex::read_cifar10_file(file.path());
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
