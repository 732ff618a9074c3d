// `prunex`: the toolkit's command line. Each subcommand lives in apps/cmd_*.cc and registers
// itself; this file only dispatches and turns errors into exit codes (2: bad input).
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "apps/cli.h"
#include "engine/error.h"

namespace {

// The overview: on stdout when asked for (--help), on stderr when it answers a missing
// command (exit 2).
void print_overview(std::FILE* to) {
  auto commands = prunex::cli::registry();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  fmt::print(to,
             "prunex: hierarchical structured-ADMM training (PruneX), live on MPI or modeled on "
             "SimGrid\n\nusage: prunex COMMAND [options]   (prunex COMMAND --help for details)\n\n"
             "commands:\n");
  std::size_t width = 0;
  for (const auto& c : commands) width = std::max(width, c.name.size());
  for (const auto& c : commands) fmt::print(to, "  {:<{}}  {}\n", c.name, width, c.summary);
}

// This process's rank as the launcher set it (mpirun, srun), or 0: a usage error found while
// parsing is the same on every rank, so only rank 0 prints it.
int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  prunex::cli::set_command_words(args);
  const auto& commands = prunex::cli::registry();
  // `prunex help COMMAND` is `prunex COMMAND --help`.
  if (args.size() > 2 && args[0] == "help") {
    fmt::print(stderr, "prunex: help takes one command (prunex help COMMAND)\n");
    return 2;
  }
  if (args.size() == 2 && args[0] == "help") {
    const auto c = std::find_if(commands.begin(), commands.end(),
                                [&](const auto& x) { return x.name == args[1]; });
    if (c == commands.end()) {
      fmt::print(stderr, "prunex: unknown command '{}' (try prunex --help)\n", args[1]);
      return 2;
    }
    fmt::print("{}", prunex::cli::help_text(*c));
    return 0;
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_overview(args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  auto it = std::find_if(commands.begin(), commands.end(),
                         [&](const auto& c) { return c.name == args[0]; });
  if (it == commands.end()) {
    fmt::print(stderr, "prunex: unknown command '{}' (try prunex --help)\n", args[0]);
    return 2;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // A command that runs another (emulate) reads only the words before "--".
  const auto own_end = it->trailing ? std::find(rest.begin(), rest.end(), "--") : rest.end();
  if (std::find(rest.begin(), own_end, "--help") != own_end ||
      std::find(rest.begin(), own_end, "-h") != own_end) {
    fmt::print("{}", prunex::cli::help_text(*it));
    return 0;
  }
  try {
    const prunex::cli::CommandLine line = prunex::cli::parse_command_line(args);
    return line.command->run(line.args);
  } catch (const prunex::UsageError& e) {
    if (launcher_rank() == 0) {
      fmt::print(stderr, "prunex {}: error: {}\n", it->name, e.what());
    } else {
      // mpirun kills the job when the first rank exits non-zero; a rank that left at once
      // could take rank 0 down before its one line was forwarded (1 run in ~30 lost it).
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "prunex {}: failed: {}\n", it->name, e.what());
    return 1;
  }
}
