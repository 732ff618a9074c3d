// The watch on the other ranks (host/peer_watch.h) with ranks as threads of this process,
// on loopback: ranks that stop are never reported; a rank that vanishes without its goodbye
// (its sockets closed, as when its process is killed) is reported once, by its predecessor,
// with its rank and host; a rank that stays connected but silent is reported after the
// silence limit.
#include "host/peer_watch.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace prunex {
namespace {

struct Report {
  int by, lost;
  std::string host, how;
};

struct Ring {
  std::vector<std::unique_ptr<PeerWatch>> watches;
  std::mutex m;
  std::vector<Report> reports;

  explicit Ring(int n, double silence_s = 60) {
    std::vector<std::string> endpoints;
    for (int r = 0; r < n; ++r) {
      watches.push_back(std::make_unique<PeerWatch>(silence_s));
      endpoints.push_back(watches.back()->endpoint());
    }
    // start() waits for the predecessor's connection: the ranks start side by side.
    std::vector<std::thread> starts;
    for (int r = 0; r < n; ++r)
      starts.emplace_back([this, r, endpoints] {
        watches[r]->start(r, endpoints,
                          [this, r](int lost, const std::string& host, const std::string& how) {
                            std::lock_guard<std::mutex> lock(m);
                            reports.push_back({r, lost, host, how});
                          });
      });
    for (auto& t : starts) t.join();
  }
  std::vector<Report> seen() {
    std::lock_guard<std::mutex> lock(m);
    return reports;
  }
};

void wait_s(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

TEST(PeerWatch, EndpointNamesHostAddressAndPort) {
  PeerWatch w;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string e = w.endpoint();
  EXPECT_EQ(e.rfind(std::string(host) + " ", 0), 0u) << e;
  EXPECT_GT(std::stoi(e.substr(e.rfind(' ') + 1)), 0) << e;
}

TEST(PeerWatch, RanksThatStopAreNeverReported) {
  Ring ring(3);
  wait_s(1.5);  // heartbeats flow
  // They stop one after another, as ranks leaving a finished run do.
  for (auto& w : ring.watches) {
    w->stop();
    wait_s(0.3);
  }
  wait_s(2.5);  // past the report's grace
  EXPECT_TRUE(ring.seen().empty()) << ring.seen()[0].how;
}

TEST(PeerWatch, AVanishedRankIsReportedOnceByItsPredecessor) {
  Ring ring(4);
  wait_s(0.5);
  ring.watches[2]->abandon();  // sockets closed without a goodbye
  for (int i = 0; i < 60 && ring.seen().empty(); ++i) wait_s(0.1);
  wait_s(1.0);  // room for a wrong second report
  const auto seen = ring.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].by, 1);
  EXPECT_EQ(seen[0].lost, 2);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(seen[0].host, host);
  EXPECT_NE(seen[0].how.find("without a goodbye"), std::string::npos) << seen[0].how;
  for (int r : {0, 1, 3}) ring.watches[r]->stop();
}

TEST(PeerWatch, ASilentRankIsReportedAfterTheLimit) {
  // Rank 1 is this test: it connects and says its rank, then never sends a byte.
  PeerWatch w0(1.0);
  const int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(lfd, 2), 0);
  socklen_t len = sizeof a;
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string e0 = w0.endpoint();
  const std::string host = e0.substr(0, e0.find(' '));
  const std::vector<std::string> endpoints = {
      e0, host + " 127.0.0.1 " + std::to_string(ntohs(a.sin_port))};
  std::mutex m;
  std::vector<Report> seen;
  std::thread starter([&] {
    w0.start(0, endpoints, [&](int lost, const std::string& h, const std::string& how) {
      std::lock_guard<std::mutex> lock(m);
      seen.push_back({0, lost, h, how});
    });
  });
  const int in = ::accept(lfd, nullptr, nullptr);  // rank 0's connection to its successor
  ASSERT_GE(in, 0);
  const int out = ::socket(AF_INET, SOCK_STREAM, 0);  // to rank 0, as its predecessor
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(static_cast<uint16_t>(std::stoi(e0.substr(e0.rfind(' ') + 1))));
  ASSERT_EQ(::connect(out, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  const int32_t me = 1;
  ASSERT_EQ(::send(out, &me, sizeof me, 0), static_cast<ssize_t>(sizeof me));
  starter.join();
  for (int i = 0; i < 80; ++i) {
    {
      std::lock_guard<std::mutex> lock(m);
      if (!seen.empty()) break;
    }
    wait_s(0.1);
  }
  {
    std::lock_guard<std::mutex> lock(m);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].lost, 1);
    EXPECT_NE(seen[0].how.find("silent"), std::string::npos) << seen[0].how;
  }
  w0.stop();
  ::close(in);
  ::close(out);
  ::close(lfd);
}

}  // namespace
}  // namespace prunex
