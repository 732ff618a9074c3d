// The switch of an emulated cluster when the kernel has no netem qdisc (`prunex emulate`): a
// thread that plays one Ethernet switch per rail in user space and holds every frame for the
// link's one-way latency before passing it on, so the links carry latency as well as rate.
//
// Each port is the root-namespace end of a node's veth link (tc's tbf still shapes both ends).
// The thread reads frames from a packet socket per port (with the kernel's virtio-net header,
// so large TCP segments and their checksum offload cross as they are), learns which port
// holds which MAC address, and after the delay writes each frame to its destination's port,
// or to every other port of the rail for broadcasts and unknown destinations. All frames wait
// the same time, so one FIFO per rail keeps them in order.
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace prunex {

class DelaySwitch {
 public:
  // ports[r]: the interfaces of rail r, one per node; delay_s: each frame's one-way delay.
  DelaySwitch(std::vector<std::vector<std::string>> ports, double delay_s);
  ~DelaySwitch();  // stops the thread
  DelaySwitch(const DelaySwitch&) = delete;
  DelaySwitch& operator=(const DelaySwitch&) = delete;

  // Opens the packet sockets (std::runtime_error naming the interface on failure) and starts
  // forwarding.
  void start();
  void stop();

  long long frames_forwarded() const { return forwarded_.load(); }

 private:
  void run();

  std::vector<std::vector<std::string>> ports_;
  double delay_s_;
  std::vector<std::vector<int>> fds_;  // per rail, per port
  int wake_[2] = {-1, -1};             // a pipe that stops the thread
  std::thread thread_;
  std::atomic<long long> forwarded_{0};
};

}  // namespace prunex
