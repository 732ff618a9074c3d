#include "emulation/emulate_delay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>

namespace prunex {
namespace {

using Clock = std::chrono::steady_clock;
using Mac = std::array<unsigned char, 6>;

// struct virtio_net_hdr (linux/virtio_net.h, which C++ cannot include: a field is named
// `class`): flags, gso_type, hdr_len, gso_size, csum_start, csum_offset. The switch passes it
// on unread, before every frame both ways (PACKET_VNET_HDR).
constexpr std::size_t kHeader = 10;
constexpr std::size_t kMaxFrame = kHeader + 65536 + 64;  // a large TCP segment and more

struct Frame {
  Clock::time_point due;
  int from = 0;                      // port it came in on
  std::vector<unsigned char> bytes;  // virtio-net header, then the Ethernet frame
};

std::runtime_error failure(const std::string& what, const std::string& ifname) {
  return std::runtime_error("delay switch: " + what + " on " + ifname + ": " +
                            std::strerror(errno));
}

int open_port(const std::string& ifname) {
  const unsigned index = if_nametoindex(ifname.c_str());
  if (index == 0) throw failure("no interface", ifname);
  // Protocol 0 until bound, so no frame of another interface is queued before the bind.
  const int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw failure("packet socket", ifname);
  const int one = 1, buffer = 4 << 20;
  sockaddr_ll at{};
  at.sll_family = AF_PACKET;
  at.sll_protocol = htons(ETH_P_ALL);
  at.sll_ifindex = static_cast<int>(index);
  if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0 ||
      bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    throw failure("binding a packet socket", ifname);
  }
  // Our own writes to a port would come back as outgoing frames; the kernel drops them here
  // (Linux 4.20+), and the receive loop skips PACKET_OUTGOING where it does not.
  setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  return fd;
}

}  // namespace

DelaySwitch::DelaySwitch(std::vector<std::vector<std::string>> ports, double delay_s)
    : ports_(std::move(ports)), delay_s_(delay_s) {}

DelaySwitch::~DelaySwitch() {
  stop();
}

void DelaySwitch::start() {
  try {
    for (const auto& rail : ports_) {
      fds_.emplace_back();
      for (const auto& ifname : rail) fds_.back().push_back(open_port(ifname));
    }
    if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("delay switch: pipe");
  } catch (...) {
    stop();
    throw;
  }
  thread_ = std::thread([this] { run(); });
  // Real-time priority where allowed (root): the ranks spin on every core while they wait for
  // messages, and a frame due now must not wait for the scheduler to get to the switch (at
  // normal priority a 1010 us hop took 1.2-2.1 ms on the 2-core host). The switch does little
  // work per frame, and the kernel keeps 5% of each second for other tasks anyway.
  sched_param prio{};
  prio.sched_priority = 10;
  pthread_setschedparam(thread_.native_handle(), SCHED_FIFO, &prio);
}

void DelaySwitch::stop() {
  if (thread_.joinable()) {
    const char c = 0;
    (void)!write(wake_[1], &c, 1);
    thread_.join();
  }
  for (auto& rail : fds_)
    for (int fd : rail) close(fd);
  fds_.clear();
  for (int& fd : wake_) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

void DelaySwitch::run() {
  const auto delay =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(delay_s_));
  const std::size_t rails = fds_.size();
  std::vector<std::deque<Frame>> queues(rails);
  std::vector<std::map<Mac, int>> where(rails);  // learned: MAC -> port, per rail
  std::vector<pollfd> polls = {{wake_[0], POLLIN, 0}};
  std::vector<std::pair<std::size_t, int>> port_of = {{0, -1}};  // poll index -> (rail, port)
  for (std::size_t r = 0; r < rails; ++r)
    for (std::size_t p = 0; p < fds_[r].size(); ++p) {
      polls.push_back({fds_[r][p], POLLIN, 0});
      port_of.emplace_back(r, static_cast<int>(p));
    }
  std::vector<unsigned char> buf(kMaxFrame);

  auto send_to = [&](std::size_t r, int port, const Frame& f) {
    // A full socket buffer or qdisc drops the frame, as a switch's full port buffer would.
    if (send(fds_[r][port], f.bytes.data(), f.bytes.size(), MSG_DONTWAIT) >= 0) ++forwarded_;
  };
  auto forward = [&](std::size_t r, const Frame& f) {
    Mac dst;
    std::memcpy(dst.data(), f.bytes.data() + kHeader, dst.size());
    const auto known = where[r].find(dst);
    if ((dst[0] & 1) == 0 && known != where[r].end()) {
      if (known->second != f.from) send_to(r, known->second, f);
      return;
    }
    for (int p = 0; p < static_cast<int>(fds_[r].size()); ++p)  // broadcast, or not yet seen
      if (p != f.from) send_to(r, p, f);
  };

  for (;;) {
    auto now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    for (std::size_t r = 0; r < rails; ++r) {
      auto& q = queues[r];
      while (!q.empty() && q.front().due <= now) {
        forward(r, q.front());
        q.pop_front();
      }
      if (!q.empty()) next = std::min(next, q.front().due);
    }
    timespec wait{};
    timespec* timeout = nullptr;
    if (next != Clock::time_point::max()) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(next - now).count();
      wait.tv_sec = ns / 1000000000;
      wait.tv_nsec = ns % 1000000000;
      timeout = &wait;
    }
    if (ppoll(polls.data(), polls.size(), timeout, nullptr) < 0 && errno != EINTR) return;
    if (polls[0].revents != 0) return;  // stop()
    now = Clock::now();
    for (std::size_t i = 1; i < polls.size(); ++i) {
      if ((polls[i].revents & POLLIN) == 0) continue;
      const auto [r, port] = port_of[i];
      for (int n = 0; n < 256; ++n) {  // drain, but let the other ports and due frames in
        sockaddr_ll from{};
        socklen_t len = sizeof from;
        const ssize_t got = recvfrom(fds_[r][port], buf.data(), buf.size(), 0,
                                     reinterpret_cast<sockaddr*>(&from), &len);
        if (got < 0) break;
        if (from.sll_pkttype == PACKET_OUTGOING) continue;
        if (static_cast<std::size_t>(got) < kHeader + ETH_HLEN) continue;
        Mac src;
        std::memcpy(src.data(), buf.data() + kHeader + 6, src.size());
        if ((src[0] & 1) == 0) where[r][src] = port;
        queues[r].push_back({now + delay, port, {buf.begin(), buf.begin() + got}});
      }
    }
  }
}

}  // namespace prunex
