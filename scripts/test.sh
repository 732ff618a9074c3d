#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test with ctest
# (multi-rank tests under mpirun included).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
scripts/build.sh
echo "build: $(( $(date +%s) - start )) s"
cd build
# Serial: multi-rank tests oversubscribe the cores already, and some time barriers.
ctest --output-on-failure --timeout 1200 "$@"
echo "test.sh: $(( $(date +%s) - start )) s in all"
