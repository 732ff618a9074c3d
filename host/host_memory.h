// What this machine can still give a run, so that a run too large for it ends with one usage
// error (exit 2) before any work instead of an out-of-memory kill half-way (simulate's
// platforms, train's model copies).
#pragma once

#include <string>

namespace prunex {

// Bytes this process may still use: PRUNEX_MAX_MEMORY_GIB when set, else the smaller of
// MemAvailable (/proc/meminfo) and the cgroup's memory.max less its memory.current.
double available_memory_bytes();

// Throws UsageError "WHAT needs about X GiB, this machine has Y GiB available (HINT)" when
// need_bytes > have_bytes (default: available_memory_bytes()).
void check_fits_in_memory(double need_bytes, const std::string& what, const std::string& hint,
                          double have_bytes = -1);

}  // namespace prunex
