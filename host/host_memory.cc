#include "host/host_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "engine/error.h"

namespace prunex {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * kKiB;

// First number in a file (memory.max may say "max": then no limit).
double read_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word)) return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  return end != word.c_str() ? v : std::numeric_limits<double>::infinity();
}

double meminfo_available() {
  std::ifstream in("/proc/meminfo");
  double kib = 0;
  for (std::string line; std::getline(in, line);)  // some lines have no unit: one at a time
    if (std::sscanf(line.c_str(), "MemAvailable: %lf kB", &kib) == 1) return kib * kKiB;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

double available_memory_bytes() {
  if (const char* cap = std::getenv("PRUNEX_MAX_MEMORY_GIB")) {
    char* end = nullptr;
    const double gib = std::strtod(cap, &end);
    PRUNEX_USAGE(end != cap && *end == '\0' && gib > 0,
                 "PRUNEX_MAX_MEMORY_GIB must be a positive number of GiB (got '", cap, "')");
    return gib * kGiB;
  }
  double cgroup = read_number("/sys/fs/cgroup/memory.max");
  const double used = read_number("/sys/fs/cgroup/memory.current");
  if (cgroup < std::numeric_limits<double>::infinity() && used < cgroup) cgroup -= used;
  return std::min(meminfo_available(), cgroup);
}

void check_fits_in_memory(double need_bytes, const std::string& what, const std::string& hint,
                          double have_bytes) {
  const double have = have_bytes >= 0 ? have_bytes : available_memory_bytes();
  char line[256];
  std::snprintf(line, sizeof line, "needs about %.1f GiB, this machine has %.1f GiB available",
                need_bytes / kGiB, have / kGiB);
  PRUNEX_USAGE(need_bytes <= have, what, " ", line, " (", hint, ")");
}

}  // namespace prunex
