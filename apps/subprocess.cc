#include "apps/subprocess.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace prunex::cli {

int run_subprocess(const std::vector<std::string>& argv, const std::string& log_path) {
  if (argv.empty()) throw std::runtime_error("run_subprocess: empty argv");
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  int log_fd = -1;
  if (!log_path.empty()) {
    log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0)
      throw std::runtime_error("cannot open " + log_path + ": " + std::strerror(errno));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    if (log_fd >= 0) close(log_fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (log_fd >= 0 && (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)) _exit(127);
    execv(argv[0].c_str(), cargv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  if (log_fd >= 0) close(log_fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw std::runtime_error(argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status)));
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  return p.string();
}

}  // namespace prunex::cli
