#!/usr/bin/env bash
# The one script for a machine with a GPU (the lent GPU, or a cluster node): builds the
# NCCL/CUDA backend, runs every GPU test, times the kernels, runs a short GPU training, and
# appends the results (date, GPU, numbers) to BENCHMARKS.md.
#
#   scripts/gpu_check.sh [--deps DIR] [--out DIR] [--no-write]
#   scripts/gpu_check.sh --fetch-debs DIR      (on a Debian 12 machine with apt + internet)
#
# What it measures:
#   1. ctest on the GPU: test_nccl (every kernel against its CPU reference, the one-rank
#      NcclCommunicator tests) -- no test may skip on a machine with a device.
#   2. `prunex bench --op compaction --device cuda`: fused pack + unpack for ResNet-152 at channel keep 0.5
#      against a device-to-device cudaMemcpyAsync of the same bytes (target >= 80% of the
#      copy's throughput), and the whole-model GPU projection; every row checked against the
#      CPU (#wrong must be 0).
#   3. The same channel projection written with LibTorch ops (python torch, CUDA events) on
#      the same ResNet-152 layer shapes, for comparison with (2).
#   4. `prunex train` with world size 1 on synthetic data for 2 outer iterations.
#
# Needs: nvcc, CMake >= 3.18, NCCL (CUDA's include/lib, or the nvidia-nccl python package),
# python3 with torch (CUDA build; its TorchConfig.cmake is used), no apt, no internet.
# The rest of the project needs Debian packages that such a machine usually lacks (Open MPI,
# SimGrid, nlohmann-json, fmt, GoogleTest, zlib). They are carried as .deb files extracted
# into a folder:
#   on a Debian 12 machine with apt:  scripts/gpu_check.sh --fetch-debs deps/
#   copy deps/ over, then:            scripts/gpu_check.sh --deps deps/
# --deps adds DIR/usr to CMAKE_PREFIX_PATH, PATH, LD_LIBRARY_PATH and PKG_CONFIG_PATH.
# UNTESTED: the --fetch-debs / --deps path has not been run (no GPU machine was lent when it
# was written). Risks: a GPU machine that is not Debian 12 (glibc/ABI mismatch of the
# extracted libraries), and a pip torch built with the old C++ ABI (link errors against the
# Debian libraries).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEPS=""
OUT="$ROOT/out/gpu_check"
WRITE=1
BUILD="$ROOT/build-gpu"

fetch_debs() {  # UNTESTED
  local dir="$1"
  local pkgs="libopenmpi-dev openmpi-bin libsimgrid-dev nlohmann-json3-dev libfmt-dev libgtest-dev zlib1g-dev pkg-config"
  mkdir -p "$dir/debs"
  # The whole dependency closure, minus the C runtime the target machine has its own of.
  local closure
  # shellcheck disable=SC2086  # package lists split on purpose
  closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances $pkgs | grep '^[a-z0-9]' | sort -u |
    grep -vE '^(libc6|libc-bin|libgcc-s1|libstdc\+\+6|gcc-12-base|debconf|dpkg|perl-base|base-files)$')
  # shellcheck disable=SC2086
  (cd "$dir/debs" && apt-get download $closure)
  for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir"; done
  echo "extracted $(ls "$dir"/debs/*.deb | wc -l) packages into $dir; copy it to the GPU machine"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --fetch-debs) fetch_debs "$2"; exit 0 ;;
    --deps) DEPS="$(cd "$2" && pwd)"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-write) WRITE=0; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "gpu_check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
LOG="$OUT/gpu_check.log"
: > "$LOG"
say() { echo "== $*" | tee -a "$LOG"; }

# --- toolchain ---------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null; then nvidia-smi -L | tee -a "$LOG"; fi
GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo unknown)"
export PATH="/usr/local/cuda/bin:$PATH"
command -v nvcc >/dev/null || { echo "gpu_check.sh: nvcc not found" >&2; exit 1; }
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; assert torch.cuda.is_available(), "torch has no CUDA"; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$LOG"

PREFIX="$TORCH_PREFIX"
CMAKE_EXTRA=()
if [ -n "$DEPS" ]; then
  PREFIX="$PREFIX;$DEPS/usr;$DEPS/usr/lib/x86_64-linux-gnu/cmake"
  export PATH="$DEPS/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:$DEPS/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}"
  # The .pc files say prefix=/usr: look only in DEPS and prefix every path with it.
  export PKG_CONFIG_LIBDIR="$DEPS/usr/lib/x86_64-linux-gnu/pkgconfig:$DEPS/usr/share/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$DEPS"
  export OPAL_PREFIX="$DEPS/usr"  # Debian's Open MPI was built for prefix /usr
  CMAKE_EXTRA+=("-DMPI_CXX_COMPILER=$DEPS/usr/bin/mpicxx")
fi
# NCCL from CUDA's folders, else from the nvidia-nccl python package (no unversioned .so).
if [ ! -e /usr/local/cuda/include/nccl.h ]; then
  NCCL_DIR="$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null || true)"
  if [ -n "$NCCL_DIR" ] && [ -e "$NCCL_DIR/include/nccl.h" ]; then
    CMAKE_EXTRA+=("-DNCCL_INCLUDE_DIR=$NCCL_DIR/include" "-DNCCL_LIBRARY=$(ls "$NCCL_DIR"/lib/libnccl.so* | head -1)")
  fi
fi

# --- build -------------------------------------------------------------------------------
say "configure ($BUILD)"
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PREFIX" \
  "${CMAKE_EXTRA[@]}" > "$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"
  echo "gpu_check.sh: configure failed (missing Debian packages? see --deps)" >&2
  exit 1
fi
grep "prunex:" "$OUT/configure.log" | tee -a "$LOG"
grep -q "building backends/nccl" "$OUT/configure.log" ||
  { echo "gpu_check.sh: CMake did not find CUDA + NCCL" >&2; exit 1; }
say "build"
cmake --build "$BUILD" -j"$(nproc)" --target prunex_nccl test_nccl prunex 2>&1 | tail -5 | tee -a "$LOG"

# --- 1. tests ----------------------------------------------------------------------------
say "tests"
TEST_RC=0
"$BUILD/bin/test_nccl" 2>&1 | tee "$OUT/test_nccl.log" | tail -15 | tee -a "$LOG" || TEST_RC=$?
TESTS_PASSED=$(grep -cE '^\[       OK \] ' "$OUT/test_nccl.log" || true)
TESTS_FAILED=$(grep -cE '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)
TESTS_SKIPPED=$(grep -cE '^\[  SKIPPED \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)

NGPU=$(nvidia-smi -L 2>/dev/null | wc -l || echo 0)
if [ "$NGPU" -ge 2 ] && command -v mpirun >/dev/null; then
  say "multi-rank NCCL tests on $NGPU GPUs"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np "$NGPU" \
    "$BUILD/bin/test_nccl" --gtest_filter='NcclMultiRank.*:CommunicatorNccl.*' > "$OUT/test_nccl_multirank.log" 2>&1 || TEST_RC=1
  grep -E '^\[  (PASSED|FAILED) ' "$OUT/test_nccl_multirank.log" | sort | uniq -c | tee -a "$LOG"
else
  say "multi-rank NCCL tests skipped: $NGPU GPU(s) (they need 2 or more and mpirun)"
fi

# --- 2. kernels --------------------------------------------------------------------------
say "bench: prunex bench --op compaction --device cuda --model resnet152 --sparsity channel --keep 0.5"
BENCH_RC=0
"$BUILD/bin/prunex" bench --op compaction --device cuda --model resnet152 --sparsity channel --keep 0.5 \
  -n 20 -w 5 --json "$OUT/bench_nccl.json" 2>&1 | tee "$OUT/bench_nccl.txt" | tee -a "$LOG" || BENCH_RC=$?

# --- 3. the same projection with LibTorch ops --------------------------------------------
say "torch projection on the same shapes"
"$BUILD/bin/prunex" model-info --model resnet152 --json > "$OUT/resnet152.json"
python3 - "$OUT/resnet152.json" "$OUT/torch_projection.json" <<'PY' 2>&1 | tee -a "$LOG"
# Channel projection (keep 0.5, every conv except the first, as SparsitySpec::build) with
# torch ops: squared channel norms, top-k, mask multiply. CUDA-event median of 20 runs.
import json, math, sys, statistics, torch
layout = json.load(open(sys.argv[1]))
convs = [l for l in layout["layers"] if l["role"] == "conv"][1:]
g = torch.Generator(device="cuda").manual_seed(1)
w0 = [torch.rand(l["shape"], device="cuda", generator=g) * 2 - 1 for l in convs]
w = [x.clone() for x in w0]
def project():
    for x in w:
        keep = max(1, math.floor(0.5 * x.shape[1] + 0.5))
        norms = x.double().pow(2).sum(dim=(0, 2, 3))
        idx = torch.topk(norms, keep).indices
        mask = torch.zeros(x.shape[1], device="cuda", dtype=x.dtype)
        mask[idx] = 1
        x.mul_(mask.view(1, -1, 1, 1))
times = []
for it in range(25):
    for a, b in zip(w, w0): a.copy_(b)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); project(); e.record(); torch.cuda.synchronize()
    if it >= 5: times.append(s.elapsed_time(e))
ms = statistics.median(times)
json.dump({"projection_ms": ms, "layers": len(convs)}, open(sys.argv[2], "w"))
print(f"torch channel projection: {ms:.3f} ms per model ({len(convs)} conv layers)")
PY

# --- 4. training on the GPU --------------------------------------------------------------
say "train: world size 1, synthetic data, 2 outer iterations"
TRAIN_RC=0
if "$BUILD/bin/prunex" train --help >/dev/null 2>&1; then
  "$BUILD/bin/prunex" train --model resnet20 --dataset synthetic --iterations 2 \
    --gpus-per-node 1 --out "$OUT/train" 2>&1 | tail -20 | tee -a "$LOG" || TRAIN_RC=$?
  TRAIN_S="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["time_per_iteration_s"])' "$OUT/train/metrics.json" 2>/dev/null || echo n/a)"
else
  TRAIN_RC=127
  TRAIN_S="n/a (no train command in this build)"
fi

# --- table -------------------------------------------------------------------------------
read_json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null || echo n/a; }
PU=$(read_json "$OUT/bench_nccl.json" pack_unpack_gbs)
CP=$(read_json "$OUT/bench_nccl.json" memcpy_d2d_gbs)
RATIO=$(read_json "$OUT/bench_nccl.json" ratio)
WRONG=$(read_json "$OUT/bench_nccl.json" wrong)
PROJ=$(read_json "$OUT/bench_nccl.json" projection_ms)
TPROJ=$(read_json "$OUT/torch_projection.json" projection_ms)
DATE="$(date -u +%Y-%m-%dT%H:%MZ)"
TABLE="$OUT/table.md"
cat > "$TABLE" <<EOF

## GPU run $DATE on $GPU (scripts/gpu_check.sh)

| check | result |
|---|---|
| test_nccl | $TESTS_PASSED passed, $TESTS_FAILED failed, $TESTS_SKIPPED skipped (exit $TEST_RC) |
| pack+unpack, ResNet-152 channel keep 0.5 | $PU GB/s |
| device-to-device copy, same bytes | $CP GB/s |
| ratio (target >= 0.80) | $RATIO |
| #wrong vs CPU (pack, unpack, projection) | $WRONG (bench exit $BENCH_RC) |
| projection, CUDA kernels (whole model) | $PROJ ms |
| projection, LibTorch ops (same shapes) | $TPROJ ms |
| prunex train, world size 1, synthetic, 2 iterations | exit $TRAIN_RC, $TRAIN_S s per iteration |
EOF
cat "$TABLE"
if [ "$WRITE" = 1 ]; then cat "$TABLE" >> "$ROOT/BENCHMARKS.md"; echo "appended to BENCHMARKS.md"; fi
[ "$TEST_RC" = 0 ] && [ "$BENCH_RC" = 0 ] && [ "$TESTS_SKIPPED" = 0 ]
