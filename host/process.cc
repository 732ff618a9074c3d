#include "host/process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace prunex {

pid_t spawn_process(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) throw std::runtime_error("spawn_process: empty argv");
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  int log_fd = -1;
  if (!options.log_path.empty()) {
    log_fd = open(options.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0)
      throw std::runtime_error("cannot open " + options.log_path + ": " + std::strerror(errno));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    if (log_fd >= 0) close(log_fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (options.own_group) setpgid(0, 0);
    if (options.default_signals) {
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
    }
    if (log_fd >= 0 && (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)) _exit(127);
    execv(argv[0].c_str(), cargv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  if (options.own_group) setpgid(pid, pid);  // also here: no race with a signal sent at once
  if (log_fd >= 0) close(log_fd);
  return pid;
}

namespace {

int status_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The raw wait status of a child.
int wait_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  return status;
}

}  // namespace

int wait_process(pid_t pid) {
  return status_code(wait_status(pid));
}

int wait_process_forwarding(pid_t pid, const volatile std::sig_atomic_t& stop, double grace_s) {
  int status = 0;
  bool forwarded = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR)
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (stop != 0 && !forwarded) {
      kill(-pid, SIGTERM);
      forwarded = true;
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<long>(grace_s * 1000));
    }
    if (forwarded && std::chrono::steady_clock::now() > deadline) kill(-pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return status_code(status);
}

int run_subprocess(const std::vector<std::string>& argv, const std::string& log_path) {
  SpawnOptions options;
  options.log_path = log_path;
  const int status = wait_status(spawn_process(argv, options));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw std::runtime_error(argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)));
}

namespace {

// The first of dirs (':'-separated; an empty entry is the current folder) holding an
// executable `name`.
std::string find_in(const std::string& dirs, const std::string& name) {
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = dirs.find(':', start);
    const std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string full = (dir.empty() ? "." : dir) + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

}  // namespace

std::string find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  return find_in(path ? path : "/usr/bin:/bin", name);
}

std::string find_system_program(const std::string& name) {
  const char* extra = std::getenv("PRUNEX_SYSTEM_PROGRAMS");
  const std::string system = "/usr/sbin:/sbin:/usr/bin:/bin";
  return find_in(extra && *extra ? std::string(extra) + ":" + system : system, name);
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  return p.string();
}

void replace_process(const std::vector<std::string>& argv) {
  std::vector<char*> words;
  for (const auto& w : argv) words.push_back(const_cast<char*>(w.c_str()));
  words.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv(words[0], words.data());
  throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(errno));
}

}  // namespace prunex
