#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every test with ctest
# (multi-rank tests under mpirun included), as many at once as the host has cores (a test of
# 4 ranks counts 2; tests/CMakeLists.txt, PROCESSORS); tests that must run alone say so
# (RUN_SERIAL: the emulated cluster). Arguments go to ctest:
#   scripts/test.sh -L quick     the single-process unit tests and fuzz replays (a first check)
#   scripts/test.sh -LE slow     all but the slow ones (SLURM, emulated links, every strategy
#                                trained and resumed on 4 ranks)
#   scripts/test.sh -R cli_      the command-line tests
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
scripts/build.sh
echo "build: $(( $(date +%s) - start )) s"
cd build
# One slot more than the cores: the SLURM test mostly waits (tests/CMakeLists.txt, PROCESSORS).
ctest --output-on-failure --timeout 1800 -j "$(( $(nproc) + 1 ))" "$@"
echo "test.sh: $(( $(date +%s) - start )) s in all"
