#include "host/heap_reuse.h"

#include <malloc.h>

namespace prunex {

void keep_freed_memory_for_reuse() {
  // glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: 4 MiB x sizeof(long).
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
}

}  // namespace prunex
