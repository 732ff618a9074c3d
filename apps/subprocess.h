// Runs another program (fork + exec, no shell, so arguments pass through untouched) and
// waits for it: `prunex plot` runs the matplotlib scripts this way, `prunex reproduce` runs
// prunex's own subcommands (each simulation in its own process, as SimGrid needs).
#pragma once

#include <string>
#include <vector>

namespace prunex::cli {

// argv[0] is the program's path. With log_path set, the child's stdout and stderr go to that
// file (created or truncated); otherwise they are ours. Returns the exit status; a child
// killed by a signal, or a failed fork, throws std::runtime_error. A program that cannot be
// executed exits 127 after one line on stderr.
int run_subprocess(const std::vector<std::string>& argv, const std::string& log_path = "");

// This process's executable (/proc/self/exe).
std::string self_executable();

}  // namespace prunex::cli
