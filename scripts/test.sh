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
# The compilers and libraries first; the tests' own packages (SLURM, the data set, Python)
# install while the build runs.
scripts/setup.sh build
setup_log=$(mktemp)
trap 'rm -f "$setup_log"' EXIT
scripts/setup.sh run >"$setup_log" 2>&1 &
setup_run=$!
scripts/build.sh
wait $setup_run || { cat "$setup_log" >&2; echo "test.sh: scripts/setup.sh run failed" >&2; exit 1; }
cat "$setup_log"
echo "build: $(( $(date +%s) - start )) s"
cd build
# One slot more than the cores: the SLURM test mostly waits (tests/CMakeLists.txt, PROCESSORS).
ctest --output-on-failure --timeout 1800 -j "$(( $(nproc) + 1 ))" "$@"
echo "test.sh: $(( $(date +%s) - start )) s in all"
