// Runs a function in a forked child and brings back its numbers: SimGrid 3.32 allows one
// engine per process, so tests and sweeps that need several platforms give each its own
// process. A UsageError in the child comes back as a UsageError (same message); any other
// failure as std::runtime_error.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace prunex::sim {

std::vector<double> fork_run(const std::function<std::vector<double>()>& fn);

// A started child: its process and the pipe its result comes back on.
struct ForkedChild {
  pid_t pid = -1;
  int fd = -1;
};
ForkedChild fork_start(const std::function<std::vector<double>()>& fn);
// Waits for the child and returns its numbers (or throws as fork_run does).
std::vector<double> fork_finish(const ForkedChild& child);

// Runs every function in its own child, at most `jobs` at once and, with `bytes` (one
// estimate per function), no more at once than fit in `capacity` (a function alone always
// may run); done(i, numbers) is called in the order they finish. Without `failed`, the first
// failure stops the children still running and is rethrown; with it, failed(i, message) is
// called for each function that fails (its child died, or threw) and the others run on.
void fork_run_all(const std::vector<std::function<std::vector<double>()>>& fns, int jobs,
                  const std::vector<double>& bytes, double capacity,
                  const std::function<void(std::size_t, const std::vector<double>&)>& done,
                  const std::function<void(std::size_t, const std::string&)>& failed = nullptr);

}  // namespace prunex::sim
