// Starting other programs, once for the whole toolkit: fork + exec with no shell (arguments
// pass through untouched), optionally with the child's output in a log file or in a process
// group of its own, and waiting for it, plainly or while passing a stop request on. `prunex
// plot` runs the matplotlib scripts this way, `prunex reproduce` prunex's own subcommands,
// `prunex emulate` ip, tc and mpirun.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <string>
#include <vector>

namespace prunex {

struct SpawnOptions {
  std::string log_path;          // non-empty: the child's stdout and stderr go to this file
  bool own_group = false;        // the child leads a process group of its own (signals reach its
                                 // children too)
  bool default_signals = false;  // SIGINT and SIGTERM back to their default action in the child
};

// Starts argv[0] (a path) with argv; std::runtime_error when the log cannot be opened or fork
// fails. A program that cannot be executed exits 127 after one line on stderr.
pid_t spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits for a child; its exit status, or 128 + the signal that killed it.
int wait_process(pid_t pid);

// Waits for a child started with own_group while watching `stop`: once it is nonzero, SIGTERM
// goes to the child's group, then SIGKILL after grace_s. Its exit status, or 128 + signal.
int wait_process_forwarding(pid_t pid, const volatile std::sig_atomic_t& stop, double grace_s = 10);

// Runs a program and waits for it (log_path as in SpawnOptions). Returns its exit status;
// a child killed by a signal, or a failed fork, throws std::runtime_error.
int run_subprocess(const std::vector<std::string>& argv, const std::string& log_path = "");

// Full path of an executable program in the folders of PATH; "" when there is none.
std::string find_program(const std::string& name);
// The same in /usr/sbin, /sbin, /usr/bin and /bin only (ip, tc, unshare: the system's own,
// whatever PATH says), after the folders of PRUNEX_SYSTEM_PROGRAMS where it is set (a machine
// without iproute2 installed: scripts/gpu/gpu_check.sh --deps carries it there).
std::string find_system_program(const std::string& name);

// This process's executable (/proc/self/exe).
std::string self_executable();

// Replaces this process with argv[0] (a path) run with argv, environment unchanged (stdio
// flushed first); returns only by throwing std::runtime_error naming the program and why.
[[noreturn]] void replace_process(const std::vector<std::string>& argv);

}  // namespace prunex
