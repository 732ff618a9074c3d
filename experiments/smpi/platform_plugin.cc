// SimGrid 3.32 loads a platform from a shared library: `smpirun -platform plugin.so` dlopens it
// and calls load_platform(engine). This one builds the PruneX platform (platform_env.h).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "experiments/smpi/platform_env.h"

extern "C" void load_platform(const simgrid::s4u::Engine& /*engine*/) {
  // An exception must not cross into SimGrid's C-style loader: report it and stop.
  try {
    prunex::sim::smpi::build_platform_from_env();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "prunex platform plugin: %s\n", e.what());
    std::exit(2);
  }
}
