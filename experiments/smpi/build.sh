#!/usr/bin/env bash
# Builds the SMPI comparison pieces into OUTDIR (default build/smpi), outside CMake:
#   platform_plugin.so   the PruneX platform for `smpirun -platform` (platform_plugin.cc)
#   print_hosts          the hostfile for `smpirun -hostfile`, ranks in PruneX order
#   allreduce_probe      the MPI program (smpicc)
# Needs g++, pkg-config simgrid (libsimgrid-dev), nlohmann-json, fmt and smpicc. Objects are
# rebuilt only when a source or header is newer than the outputs. Run from the repo root.
set -euo pipefail
out=${1:-build/smpi}
root=$(pwd)
mkdir -p "$out/obj"
cxx=(g++)
command -v ccache >/dev/null && cxx=(ccache g++)
flags=(-std=c++17 -O2 -fPIC -Wall -Wextra -Werror -I"$root"
       -DPRUNEX_PRESET_DIR="\"$root/topologies/presets\"")
read -r -a sg_cflags <<<"$(pkg-config --cflags simgrid)"
read -r -a sg_libs <<<"$(pkg-config --libs simgrid)"
srcs=(experiments/smpi/platform_env.cc backends/simgrid/platform.cc topologies/*.cc
      records/json_file.cc records/json_fields.cc)
deps=("${srcs[@]}" experiments/smpi/*.h experiments/smpi/*.cc experiments/smpi/*.c
      experiments/smpi/build.sh backends/simgrid/platform.h topologies/*.h records/json_file.h records/json_fields.h
      engine/error.h)
stale() {  # stale OUTPUT: missing or older than any dependency
  [[ ! -e $1 ]] && return 0
  for d in "${deps[@]}"; do [[ $d -nt $1 ]] && return 0; done
  return 1
}
objs=()
pids=()
for s in "${srcs[@]}"; do
  o="$out/obj/$(echo "$s" | tr / _).o"
  objs+=("$o")
  if stale "$o"; then "${cxx[@]}" "${flags[@]}" "${sg_cflags[@]}" -c "$s" -o "$o" &
    pids+=($!)
  fi
done
for p in "${pids[@]}"; do wait "$p"; done  # any failed compile stops the build
if stale "$out/platform_plugin.so"; then
  "${cxx[@]}" "${flags[@]}" "${sg_cflags[@]}" -shared -o "$out/platform_plugin.so" \
    experiments/smpi/platform_plugin.cc "${objs[@]}" "${sg_libs[@]}" -lfmt
fi
if stale "$out/print_hosts"; then
  "${cxx[@]}" "${flags[@]}" "${sg_cflags[@]}" -o "$out/print_hosts" \
    experiments/smpi/print_hosts.cc "${objs[@]}" "${sg_libs[@]}" -lfmt
fi
if stale "$out/allreduce_probe"; then
  smpicc -O2 -Wall -Wextra -Werror -o "$out/allreduce_probe" experiments/smpi/allreduce_probe.c
fi
