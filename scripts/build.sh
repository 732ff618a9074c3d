#!/usr/bin/env bash
# Configures and builds into build/ (binary: build/bin/prunex). Used by demo.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release | grep -E '^-- prunex:|Error|error' || true
  test -f build/CMakeCache.txt || { echo "build: cmake configure failed" >&2; exit 1; }
fi
cmake --build build -j "$jobs"
