#include "simulate/fork_run.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
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

ForkedChild fork_start(const std::function<std::vector<double>()>& fn) {
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
  return {pid, fds[0]};
}

std::vector<double> fork_finish(const ForkedChild& c) {
  const std::string data = read_all(c.fd);
  ::close(c.fd);
  int wstatus = 0;
  ::waitpid(c.pid, &wstatus, 0);
  if (WIFSIGNALED(wstatus))
    throw std::runtime_error("its process was killed by signal " +
                             std::to_string(WTERMSIG(wstatus)) + " (" +
                             strsignal(WTERMSIG(wstatus)) + ")");
  if (data.empty() || !WIFEXITED(wstatus))
    throw std::runtime_error("its process ended without a result (status " +
                             std::to_string(wstatus) + ")");
  const std::string payload = data.substr(1);
  if (data[0] == 'u') throw UsageError(payload);
  if (data[0] == 'e') throw std::runtime_error(payload);
  std::vector<double> values(payload.size() / sizeof(double));
  std::memcpy(values.data(), payload.data(), values.size() * sizeof(double));
  return values;
}

std::vector<double> fork_run(const std::function<std::vector<double>()>& fn) {
  return fork_finish(fork_start(fn));
}

void fork_run_all(const std::vector<std::function<std::vector<double>()>>& fns, int jobs,
                  const std::vector<double>& bytes, double capacity,
                  const std::function<void(std::size_t, const std::vector<double>&)>& done,
                  const std::function<void(std::size_t, const std::string&)>& failed) {
  PRUNEX_CHECK(jobs >= 1, "jobs must be >= 1 (got ", jobs, ")");
  PRUNEX_CHECK(bytes.empty() || bytes.size() == fns.size(), "one size per function");
  struct Running {
    std::size_t index;
    ForkedChild child;
  };
  std::vector<Running> running;
  double in_use = 0;
  auto size_of = [&](std::size_t i) { return bytes.empty() ? 0.0 : bytes[i]; };
  auto stop_all = [&] {
    for (auto& r : running) {
      ::kill(r.child.pid, SIGTERM);
      ::close(r.child.fd);
      ::waitpid(r.child.pid, nullptr, 0);
    }
    running.clear();
  };
  std::size_t next = 0;
  while (next < fns.size() || !running.empty()) {
    // Start points in order while a job slot and the memory allow (one always may run).
    while (next < fns.size() && static_cast<int>(running.size()) < jobs &&
           (running.empty() || in_use + size_of(next) <= capacity)) {
      running.push_back({next, fork_start(fns[next])});
      in_use += size_of(next);
      ++next;
    }
    // A child's pipe turns readable when it has written its result (or died).
    std::vector<pollfd> fds;
    for (const auto& r : running) fds.push_back({r.child.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      stop_all();
      PRUNEX_CHECK(false, "poll: ", std::strerror(errno));
    }
    for (std::size_t k = fds.size(); k-- > 0;) {
      if (fds[k].revents == 0) continue;
      const Running r = running[k];
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      in_use -= size_of(r.index);
      std::vector<double> values;
      try {
        values = fork_finish(r.child);
      } catch (const std::exception& e) {
        if (!failed) {
          stop_all();
          throw;
        }
        failed(r.index, e.what());
        continue;
      }
      done(r.index, values);
    }
  }
}

}  // namespace prunex::sim
