#include "backends/simgrid/fork_run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/error.h"

namespace prunex::sim {

namespace {

// Wire format: one status byte ('o' ok, 'u' usage error, 'e' other), then either the count
// and the doubles, or the message.
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

std::string read_all(int fd) {
  std::string s;
  char buf[65536];
  for (ssize_t r; (r = ::read(fd, buf, sizeof buf)) > 0;)
    s.append(buf, static_cast<std::size_t>(r));
  return s;
}

void child(int fd, const std::function<std::vector<double>()>& fn) {
  char status = 'o';
  std::string payload;
  try {
    const auto values = fn();
    payload.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  } catch (const UsageError& e) {
    status = 'u';
    payload = e.what();
  } catch (const std::exception& e) {
    status = 'e';
    payload = e.what();
  }
  const bool ok = write_all(fd, &status, 1) && write_all(fd, payload.data(), payload.size());
  std::fflush(nullptr);
  ::_exit(ok ? 0 : 3);
}

}  // namespace

std::vector<double> fork_run(const std::function<std::vector<double>()>& fn) {
  int fds[2];
  PRUNEX_CHECK(::pipe(fds) == 0, "pipe: ", std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  PRUNEX_CHECK(pid >= 0, "fork: ", std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], fn);
  }
  ::close(fds[1]);
  const std::string data = read_all(fds[0]);
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (data.empty() || !WIFEXITED(wstatus))
    throw std::runtime_error("simulation child process died (status " + std::to_string(wstatus) +
                             ")");
  const std::string payload = data.substr(1);
  if (data[0] == 'u') throw UsageError(payload);
  if (data[0] == 'e') throw std::runtime_error(payload);
  std::vector<double> values(payload.size() / sizeof(double));
  std::memcpy(values.data(), payload.data(), values.size() * sizeof(double));
  return values;
}

}  // namespace prunex::sim
