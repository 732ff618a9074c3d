#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, then runs the toolkit's main
# demonstration and prints where its outputs are.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build/bin/prunex --help
