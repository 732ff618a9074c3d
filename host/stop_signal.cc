#include "host/stop_signal.h"

#include <csignal>

namespace prunex {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void request_stop(int) {
  g_stop = 1;
}

}  // namespace

void install_stop_signal() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = request_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;  // a collective's system calls go on; the loop checks the flag
    sigaction(SIGUSR1, &sa, nullptr);
    return true;
  }();
  (void)installed;
}

bool stop_requested() {
  return g_stop != 0;
}

}  // namespace prunex
