#include "emulation/link_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/error.h"

namespace prunex {
namespace {

sockaddr_in parse_endpoint(const std::string& where) {
  const auto colon = where.rfind(':');
  PRUNEX_USAGE(colon != std::string::npos, "expected ADDRESS:PORT, got '", where, "'");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::stoi(where.substr(colon + 1))));
  PRUNEX_USAGE(inet_pton(AF_INET, where.substr(0, colon).c_str(), &a.sin_addr) == 1,
               "bad address in '", where, "'");
  return a;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Accepts one connection and reads to EOF; writes "TOTAL BYTES SECONDS": all bytes, then the
// bytes and seconds of the second half of the stream (past the token bucket's initial burst,
// which a short stream at a low rate would otherwise count).
}  // namespace

int probe_listen_once(const std::string& where, const std::string& out) {
  const sockaddr_in a = parse_endpoint(where);
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(s, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || listen(s, 1) != 0) {
    std::perror("emulate-probe: bind/listen");
    return 1;
  }
  const int c = accept(s, nullptr, nullptr);
  if (c < 0) return 1;
  std::vector<char> buf(1 << 16);
  std::vector<std::pair<double, double>> arrivals;  // (time, bytes so far)
  double bytes = 0;
  for (;;) {
    const ssize_t n = read(c, buf.data(), buf.size());
    if (n <= 0) break;
    bytes += static_cast<double>(n);
    arrivals.emplace_back(now(), bytes);
  }
  close(c);
  close(s);
  double half_bytes = 0, half_seconds = 0;
  for (const auto& [t, b] : arrivals)
    if (b >= bytes / 2) {
      half_bytes = bytes - b;
      half_seconds = arrivals.back().first - t;
      break;
    }
  std::ofstream(out) << bytes << " " << half_bytes << " " << half_seconds << "\n";
  return 0;
}

// Connects (retrying while the listener starts) and sends `bytes` bytes.
int probe_send_bytes(const std::string& where, double bytes) {
  const sockaddr_in a = parse_endpoint(where);
  int s = -1;
  for (int attempt = 0; attempt < 100; ++attempt) {
    s = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(s, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) break;
    close(s);
    s = -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (s < 0) {
    std::fprintf(stderr, "emulate-probe: cannot connect to %s\n", where.c_str());
    return 1;
  }
  std::vector<char> buf(1 << 16, 'x');
  double left = bytes;
  while (left > 0) {
    const size_t chunk = static_cast<size_t>(std::min<double>(left, buf.size()));
    const ssize_t n = write(s, buf.data(), chunk);
    if (n <= 0) {
      std::perror("emulate-probe: write");
      return 1;
    }
    left -= static_cast<double>(n);
  }
  close(s);
  return 0;
}

}  // namespace prunex
