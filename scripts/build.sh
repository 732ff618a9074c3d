#!/usr/bin/env bash
# Configures and builds into build/ (binary: build/bin/prunex). Used by demo.sh and test.sh.
# Arguments name targets to build instead of all: `scripts/build.sh prunex` builds the command
# line alone (simulate, sweep, validate, ...: no LibTorch trainer, no tests).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release | grep -E '^-- prunex:|Error|error' || true
  test -f build/CMakeCache.txt || { echo "build: cmake configure failed" >&2; exit 1; }
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j "$jobs" "${targets[@]}"
