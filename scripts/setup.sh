#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs. Idempotent, and silent when everything
# is already there. CUDA and NCCL are not Debian packages: they are used when present.
set -euo pipefail

packages=(
  cmake g++ make pkg-config ccache clang-format
  libopenmpi-dev openmpi-bin
  libsimgrid-dev
  libtorch-dev
  nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev libcli11-dev
  dataset-fashion-mnist
  python3 python3-matplotlib python3-torchvision time
  iproute2
  slurmctld slurmd slurm-client munge libpmix-dev  # scripts/slurm/local_cluster.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
