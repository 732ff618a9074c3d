// Runs a function in a forked child and brings back its numbers: SimGrid 3.32 allows one
// engine per process, so tests and sweeps that need several platforms give each its own
// process. A UsageError in the child comes back as a UsageError (same message); any other
// failure as std::runtime_error.
#pragma once

#include <functional>
#include <vector>

namespace prunex::sim {

std::vector<double> fork_run(const std::function<std::vector<double>()>& fn);

}  // namespace prunex::sim
