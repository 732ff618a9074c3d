// A watch on the other ranks of a live run, beside MPI. When a node dies under SLURM (or a rank
// is killed), Open MPI 4.1's TCP transport leaves the survivors blocked in their collectives
// with a multi-line "failed to TCP connect" warning that names no rank, until the launcher
// ends the job (SLURM: NODE_FAIL after SlurmdTimeout). The watch names the lost rank.
//
// Each rank holds a TCP connection to its ring successor ((r + 1) mod N, which it opens) and
// one from its predecessor, and a thread that waits on both and sends a heartbeat byte every
// second. A connection that closes without the peer's goodbye (its process died: killed, or
// its node lost), or that stays silent for `silence_s` (a node that vanished without closing
// anything), is a lost peer. Only the successor's loss is reported, so one lost rank gives
// one report (its predecessor's); the predecessor link is watched so that each side's end is
// seen. stop() says goodbye first: ranks that end normally, or stop on an error of their own,
// are never reported. No MPI here: the caller exchanges the endpoints (one string per rank).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace prunex {

class PeerWatch {
 public:
  // rank `lost` on `host` (as its endpoint names it) is gone: `how` says what was seen.
  using OnLost = std::function<void(int lost, const std::string& host, const std::string& how)>;

  // Listens on an ephemeral TCP port of every IPv4 address of this host (network namespace).
  explicit PeerWatch(double silence_s = 60);
  ~PeerWatch();
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

  // "HOSTNAME ADDRESS PORT": this rank's endpoint for the others. ADDRESS is the first
  // non-loopback IPv4 address that is up (127.0.0.1 when there is none); peers on the same
  // host name connect over loopback.
  std::string endpoint() const;

  // Connects to endpoints[(rank + 1) % N], accepts its predecessor's connection (both within
  // `connect_s`; std::runtime_error otherwise) and starts the thread. N = 1: nothing to watch.
  void start(int rank, const std::vector<std::string>& endpoints, OnLost on_lost,
             double connect_s = 60);

  // Goodbye to both neighbours, then the thread ends and the sockets close. Idempotent.
  void stop();
  // Closes both connections without a goodbye, as a killed process does (tests).
  void abandon();

 private:
  void run();
  bool read_from(int fd, bool successor);

  double silence_s_;
  int listen_fd_ = -1, succ_fd_ = -1, pred_fd_ = -1, wake_[2] = {-1, -1};
  int succ_rank_ = 0;
  std::string succ_host_;
  std::string hostname_, address_;
  int port_ = 0;
  OnLost on_lost_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace prunex
