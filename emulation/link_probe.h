// The TCP stream `prunex emulate` sends over each emulated link at start-up to check its
// shaping (`prunex emulate-probe`, run inside the nodes' namespaces).
#pragma once

#include <string>

namespace prunex {

// Accepts one connection on ADDRESS:PORT, reads to its end and writes "TOTAL BYTES SECONDS"
// to `out` (all bytes, then the second half's bytes and seconds). Exit status: 0 or 1.
int probe_listen_once(const std::string& where, const std::string& out);
// Connects to ADDRESS:PORT and writes `bytes` bytes. Exit status: 0 or 1.
int probe_send_bytes(const std::string& where, double bytes);

}  // namespace prunex
