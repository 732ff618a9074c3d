#include "host/peer_watch.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace prunex {
namespace {

constexpr char kHeartbeat = 'H', kGoodbye = 'B';
constexpr int kBeatMs = 1000;
// After a loss is seen, the report waits this long: when the whole job is being stopped
// (scancel, another rank's MPI_Abort), this process is killed too in the meantime and reports
// nothing, so only a loss the job did not ask for is reported.
constexpr double kGraceS = 2.0;

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error("peer watch: " + what + ": " + std::strerror(errno));
}

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string first_address() {
  std::string out = "127.0.0.1";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    if (!(a->ifa_flags & IFF_UP) || (a->ifa_flags & IFF_LOOPBACK)) continue;
    char buf[INET_ADDRSTRLEN];
    if (inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf,
                  sizeof buf)) {
      out = buf;
      break;
    }
  }
  freeifaddrs(list);
  return out;
}

// Reads what is waiting on a non-blocking socket; true while the peer has not closed it.
bool drain(int fd) {
  char buf[64];
  for (;;) {
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r > 0) continue;
    if (r < 0 && errno == EINTR) continue;
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void send_byte(int fd, char c) {
  if (fd >= 0) (void)::send(fd, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

struct Endpoint {
  std::string host, address;
  int port = 0;
};

Endpoint parse_endpoint(const std::string& s) {
  std::istringstream in(s);
  Endpoint e;
  if (!(in >> e.host >> e.address >> e.port) || e.port <= 0 || e.port > 65535)
    throw std::runtime_error("peer watch: bad endpoint '" + s + "'");
  return e;
}

// Waits for fd to be readable (or writable) until `deadline`; false on timeout.
bool wait_fd(int fd, short events, double deadline) {
  for (;;) {
    const int ms = static_cast<int>((deadline - now_s()) * 1000);
    if (ms <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) throw sys_error("poll");
  }
}

bool read_exact(int fd, void* buf, size_t n, double deadline) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    if (!wait_fd(fd, POLLIN, deadline)) return false;
    const ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) {
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      return false;
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

PeerWatch::PeerWatch(double silence_s) : silence_s_(silence_s) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  hostname_ = name[0] ? name : "localhost";
  address_ = first_address();
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw sys_error("socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw sys_error("bind");
  if (::listen(listen_fd_, 4) != 0) throw sys_error("listen");
  socklen_t len = sizeof a;
  if (::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw sys_error("getsockname");
  port_ = ntohs(a.sin_port);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw sys_error("pipe");
}

PeerWatch::~PeerWatch() {
  stop();
  close_fd(listen_fd_);
  close_fd(wake_[0]);
  close_fd(wake_[1]);
}

std::string PeerWatch::endpoint() const {
  return hostname_ + " " + address_ + " " + std::to_string(port_);
}

void PeerWatch::start(int rank, const std::vector<std::string>& endpoints, OnLost on_lost,
                      double connect_s) {
  const int n = static_cast<int>(endpoints.size());
  if (n < 2) return;
  succ_rank_ = (rank + 1) % n;
  const int pred_rank = (rank + n - 1) % n;
  on_lost_ = std::move(on_lost);
  const Endpoint succ = parse_endpoint(endpoints[succ_rank_]);
  succ_host_ = succ.host;
  const double deadline = now_s() + connect_s;
  // To the successor: loopback when it shares this host name (the same machine or emulated
  // node), else its address. The listen backlog accepts before the peer calls accept().
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(succ.port));
  const std::string address = succ.host == hostname_ ? "127.0.0.1" : succ.address;
  if (inet_pton(AF_INET, address.c_str(), &to.sin_addr) != 1)
    throw std::runtime_error("peer watch: bad address '" + address + "'");
  for (;;) {
    // Non-blocking, so that a peer behind a firewall that drops packets costs `connect_s`,
    // not the kernel's SYN timeout.
    succ_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (succ_fd_ < 0) throw sys_error("socket");
    int err = ::connect(succ_fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      err = ETIMEDOUT;
      if (wait_fd(succ_fd_, POLLOUT, deadline)) {
        socklen_t len = sizeof err;
        if (::getsockopt(succ_fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
    }
    if (err == 0) break;
    errno = err;
    close_fd(succ_fd_);
    if (now_s() > deadline)
      throw std::runtime_error("peer watch: cannot connect to rank " + std::to_string(succ_rank_) +
                               " at " + address + ":" + std::to_string(succ.port) + ": " +
                               std::strerror(errno));
    ::usleep(50000);
  }
  const int32_t me = rank;  // 4 bytes into an empty send buffer: never short
  if (::send(succ_fd_, &me, sizeof me, MSG_NOSIGNAL) != sizeof me) throw sys_error("send");
  // From the predecessor.
  if (!wait_fd(listen_fd_, POLLIN, deadline))
    throw std::runtime_error("peer watch: rank " + std::to_string(pred_rank) +
                             " did not connect within " + std::to_string(connect_s) + " s");
  pred_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (pred_fd_ < 0) throw sys_error("accept");
  int32_t from = -1;
  if (!read_exact(pred_fd_, &from, sizeof from, deadline) || from != pred_rank)
    throw std::runtime_error("peer watch: expected rank " + std::to_string(pred_rank) +
                             ", a connection said " + std::to_string(from));
  ::fcntl(pred_fd_, F_SETFL, ::fcntl(pred_fd_, F_GETFL) | O_NONBLOCK);
  thread_ = std::thread([this] { run(); });
}

void PeerWatch::stop() {
  if (stopping_.exchange(true)) return;
  send_byte(wake_[1], 'x');
  if (thread_.joinable()) thread_.join();  // the sockets are this thread's alone from here
  // Goodbye, then a half close. Unread bytes at close() make the kernel reset the connection
  // instead of closing it, which could drop the goodbye before the peer reads it: what
  // arrived is read first, and again briefly after the half close.
  for (int* fd : {&succ_fd_, &pred_fd_}) {
    if (*fd < 0) continue;
    drain(*fd);
    send_byte(*fd, kGoodbye);
    ::shutdown(*fd, SHUT_WR);
  }
  const double until = now_s() + 0.2;
  for (int* fd : {&succ_fd_, &pred_fd_})
    while (*fd >= 0 && now_s() < until && drain(*fd)) ::usleep(10000);
  close_fd(succ_fd_);
  close_fd(pred_fd_);
}

void PeerWatch::abandon() {
  if (stopping_.exchange(true)) return;
  send_byte(wake_[1], 'x');
  if (thread_.joinable()) thread_.join();
  close_fd(succ_fd_);
  close_fd(pred_fd_);
}

// Reads what arrived on fd; false once the peer is gone without its goodbye. A goodbye ends
// the watch of that link (fd closed, -1).
bool PeerWatch::read_from(int fd, bool successor) {
  char buf[64];
  for (;;) {
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r > 0) {
      if (std::memchr(buf, kGoodbye, static_cast<size_t>(r))) {
        close_fd(successor ? succ_fd_ : pred_fd_);
        return true;
      }
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;  // closed (0) or reset
  }
}

void PeerWatch::run() {
  double heard_succ = now_s(), next_beat = now_s();
  std::string lost;  // what was seen of the successor
  while (!stopping_) {
    pollfd fds[3] = {{wake_[0], POLLIN, 0}, {succ_fd_, POLLIN, 0}, {pred_fd_, POLLIN, 0}};
    const int r = ::poll(fds, 3, kBeatMs / 2);
    if (stopping_) return;
    if (r < 0 && errno != EINTR) return;
    if (succ_fd_ >= 0 && fds[1].revents) {
      if (read_from(succ_fd_, true))
        heard_succ = now_s();
      else
        lost = "its connection closed without a goodbye (the process died or its node went down)";
    }
    if (pred_fd_ >= 0 && fds[2].revents && !read_from(pred_fd_, false))
      close_fd(pred_fd_);  // its own predecessor reports it
    if (lost.empty() && succ_fd_ >= 0 && now_s() - heard_succ > silence_s_)
      lost = "silent for " + std::to_string(static_cast<int>(silence_s_)) +
             " s (its node stopped answering)";
    if (!lost.empty()) {
      close_fd(succ_fd_);
      const double until = now_s() + kGraceS;
      while (!stopping_ && now_s() < until) ::usleep(100000);
      if (!stopping_ && on_lost_) on_lost_(succ_rank_, succ_host_, lost);
      return;
    }
    if (now_s() >= next_beat) {
      send_byte(succ_fd_, kHeartbeat);
      send_byte(pred_fd_, kHeartbeat);
      next_beat = now_s() + kBeatMs / 1000.0;
    }
  }
}

}  // namespace prunex
