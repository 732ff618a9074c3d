#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs. Idempotent, and silent when everything
# is already there. CUDA and NCCL are not Debian packages: they are used when present.
#   scripts/setup.sh          everything
#   scripts/setup.sh build    what scripts/build.sh needs (compilers and libraries)
#   scripts/setup.sh run      what the tests and studies need beyond that (data set, Python
#                             references and plots, SLURM, network tools); test.sh installs
#                             these while the build runs
set -euo pipefail

build_packages=(
  cmake g++ make pkg-config ccache
  libopenmpi-dev openmpi-bin
  libsimgrid-dev
  libtorch-dev
  nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev libcli11-dev
)
run_packages=(
  clang-format
  dataset-fashion-mnist
  python3 python3-matplotlib python3-torchvision time
  iproute2
  slurmctld slurmd slurm-client munge libpmix-dev  # scripts/slurm/local_cluster.sh
)
case "${1:-all}" in
  build) packages=("${build_packages[@]}") ;;
  run) packages=("${run_packages[@]}") ;;
  all) packages=("${build_packages[@]}" "${run_packages[@]}") ;;
  *) echo "setup.sh: unknown group '$1' (build, run or none for all)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# The daemons (munge, slurmd, slurmctld) must not start as system services on installation:
# local_cluster.sh runs its own, with their own state and keys. Debian's maintainer scripts
# ask /usr/sbin/policy-rc.d (invoke-rc.d and deb-systemd-invoke alike); exit status 101 means
# "not allowed". One is put in place for the installation only, where there is none.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# scripts/setup.sh, during its apt-get install only\nexit 101\n' |
    "${sudo_cmd[@]}" tee "$policy" >/dev/null
  "${sudo_cmd[@]}" chmod 755 "$policy"
  trap '"${sudo_cmd[@]}" rm -f "$policy"' EXIT
fi
# The package lists, unless an update within the hour fetched them (test.sh's second group).
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -newermt '-60 min' 2>/dev/null | head -1)" ]; then
  "${sudo_cmd[@]}" apt-get update -qq
fi
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
