// The IDX reader (Fashion-MNIST, gzip or plain): the input is split in two at a point given
// by its first byte, the images file and the labels file.
#include "engine/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "workloads/data/idx_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t split = std::min<size_t>(size - 1, data[0] * 4u);
  const prunex::fuzz::InputFile images(data + 1, split, "images");
  const prunex::fuzz::InputFile labels(data + 1 + split, size - 1 - split, "labels");
  try {
    (void)prunex::read_idx_images_and_labels(images.path(), labels.path());
  } catch (const prunex::UsageError&) {
  }
  return 0;
}
