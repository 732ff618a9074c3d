#!/usr/bin/env bash
# The model zoo's layer tables (prunex model-info) against torchvision's models at 224x224:
# every tensor's name, shape and forward FLOPs (tests/reference/torchvision_zoo.py).
set -euo pipefail
prunex=${1:?usage: model_zoo.sh PRUNEX}
here=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3  # Debian's, with python3-torchvision (scripts/setup.sh)
"$PY" "$here/../reference/torchvision_zoo.py" "$prunex"
echo "PASS: model_zoo"
