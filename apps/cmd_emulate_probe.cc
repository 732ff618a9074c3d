// `prunex emulate-probe`: the TCP stream `prunex emulate` sends over each emulated link at
// start-up to check its shaping (internal: run inside the nodes' namespaces).
#include <climits>
#include <limits>
#include <string>

#include "apps/cli.h"
#include "emulation/link_probe.h"
#include "engine/error.h"

namespace prunex::cli {
namespace {

int run_probe(const Args& args) {
  if (auto where = args.get("listen"))
    return probe_listen_once(*where, args.get_or("out", "/dev/stdout"));
  PRUNEX_USAGE(args.has("send"),
               "emulate-probe needs --listen ADDRESS:PORT or --send ADDRESS:PORT");
  return probe_send_bytes(*args.get("send"), args.get_double("bytes", 1 << 20));
}

PRUNEX_REGISTER_COMMAND(Command{
    "emulate-probe",
    "(internal) the link check of prunex emulate: one TCP stream, its rate",
    "prunex emulate-probe --listen ADDR:PORT --out FILE | --send ADDR:PORT --bytes N",
    "Run by prunex emulate inside the emulated nodes' namespaces: the listener accepts one\n"
    "connection, reads to its end and writes 'TOTAL BYTES SECONDS' to FILE (all bytes, then\n"
    "the second half's bytes and seconds); the sender connects and writes N bytes.",
    {
        {"listen", "ADDR:PORT", "accept one stream here", ""},
        {"out", "FILE", "where the listener writes 'TOTAL BYTES SECONDS'", ""},
        {"send", "ADDR:PORT", "send a stream there", ""},
        real_option("bytes", "N", "bytes to send", "1048576", 0,
                    std::numeric_limits<double>::max()),
    },
    run_probe});

}  // namespace
}  // namespace prunex::cli
