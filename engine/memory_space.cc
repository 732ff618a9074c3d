#include "engine/memory_space.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/error.h"

namespace prunex {
namespace {

class HostSpace final : public SpaceMemory {
 public:
  MemorySpace space() const override { return MemorySpace::host; }
  SpaceBuffer alloc(int64_t bytes) override {
    void* p = std::calloc(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 1);
    PRUNEX_CHECK(p != nullptr, "out of host memory for ", bytes, " bytes");
    return SpaceBuffer(p, bytes, [](void* q) { std::free(q); });
  }
  void copy(void* dst, const void* src, int64_t bytes) override {
    if (bytes > 0 && dst != src) std::memmove(dst, src, static_cast<size_t>(bytes));
  }
  void to_host(void* host, const void* src, int64_t bytes) override { copy(host, src, bytes); }
  void from_host(void* dst, const void* host, int64_t bytes) override { copy(dst, host, bytes); }
};

}  // namespace

SpaceMemory& host_space() {
  static HostSpace space;
  return space;
}

}  // namespace prunex
