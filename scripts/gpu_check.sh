#!/usr/bin/env bash
# The one script for a machine with a GPU (the lent GPU, or a cluster node): builds the
# NCCL/CUDA backend, runs every GPU test, times the kernels, runs a short GPU training, and
# appends the results (date, GPU, numbers) to BENCHMARKS.md.
#
#   scripts/gpu_check.sh [--deps FILE] [--out DIR] [--no-write]
#   scripts/gpu_check.sh --pack-deps FILE     (here, on the Debian 12 development machine)
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
#   4. `prunex train --backend nccl` (CUDA tensors over NCCL) for every strategy, world size 1
#      (and 2 ranks for hsadmm and ddp where there are 2 GPUs), synthetic data, 2 iterations.
#
# Needs: nvcc, CMake >= 3.18, NCCL (CUDA's include/lib, or the nvidia-nccl python package),
# python3 with torch (CUDA build; its TorchConfig.cmake is used), no apt, no internet.
# The lent GPU machines (Ubuntu 24.04, seen 2026-11-26) have Open MPI 4.1, Boost, fmt,
# nlohmann-json, GoogleTest, CLI11 and zlib, but no SimGrid. --pack-deps packs SimGrid (headers,
# pkg-config file, library and the libraries it needs that such a machine lacks) from this
# Debian 12 machine into one tar.xz; --deps FILE unpacks it into the build folder and points
# pkg-config and the loader there.
set -euo pipefail

pack_deps() {  # on the development machine: SimGrid and its runtime closure
  local file stage
  file="$(realpath -m "$1")"
  stage="$(mktemp -d)"
  trap 'rm -rf "$stage"' RETURN
  local lib=/usr/lib/x86_64-linux-gnu
  mkdir -p "$stage/usr/include" "$stage$lib/pkgconfig" "$stage$lib/fallback"
  cp -r /usr/include/simgrid /usr/include/xbt /usr/include/smpi "$stage/usr/include/"
  sed 's|^exec_prefix=.*|exec_prefix=${prefix}|' "$lib/pkgconfig/simgrid.pc" > "$stage$lib/pkgconfig/simgrid.pc"
  cp -L "$lib/libsimgrid.so.3.32" "$stage$lib/"
  ln -s libsimgrid.so.3.32 "$stage$lib/libsimgrid.so"
  # What libsimgrid needs beyond the C and C++ runtimes; libraries such a machine usually has
  # its own newer copy of go to fallback/, used only where the loader does not find them.
  local dep
  for dep in $(ldd "$lib/libsimgrid.so.3.32" | awk '/=>/ {print $3}'); do
    case "$(basename "$dep")" in
      libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libdl.so*|libpthread*|librt.so*) ;;
      libgfortran*|libquadmath*|libsqlite3*) cp -L "$dep" "$stage$lib/fallback/" ;;
      *) cp -L "$dep" "$stage$lib/" ;;
    esac
  done
  tar -C "$stage" -cJf "$file" usr
  echo "packed SimGrid into $file ($(du -h "$file" | cut -f1)); carry it to the GPU machine"
}

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEPS=""
OUT="$ROOT/out/gpu_check"
WRITE=1
BUILD="$ROOT/build-gpu"


while [ $# -gt 0 ]; do
  case "$1" in
    --pack-deps) pack_deps "$2"; exit 0 ;;
    --deps) DEPS="$(realpath "$2")"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-write) WRITE=0; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # lent machines run as root
command -v nvcc >/dev/null || { echo "gpu_check.sh: nvcc not found" >&2; exit 1; }
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; assert torch.cuda.is_available(), "torch has no CUDA"; print("torch", torch.__version__, "cuda", torch.version.cuda)' | tee -a "$LOG"

PREFIX="$TORCH_PREFIX"
CMAKE_EXTRA=()
if [ -n "$DEPS" ]; then
  mkdir -p "$BUILD/deps"
  tar -C "$BUILD/deps" -xJf "$DEPS"
  LIBDIR="$BUILD/deps/usr/lib/x86_64-linux-gnu"
  export PKG_CONFIG_PATH="$LIBDIR/pkgconfig:${PKG_CONFIG_PATH:-}"
  export PKG_CONFIG_SYSROOT_DIR="$BUILD/deps"  # simgrid.pc says prefix=/usr
  # Fallback libraries only where this machine has none of its own: linked one by one into
  # missing/, so the ones it has are not shadowed by the older copies.
  mkdir -p "$BUILD/deps/missing"
  ldconfig -p > "$BUILD/deps/ldconfig.txt"
  for f in "$LIBDIR"/fallback/*; do
    grep -qF "$(basename "$f")" "$BUILD/deps/ldconfig.txt" || ln -sf "$f" "$BUILD/deps/missing/"
  done
  export LD_LIBRARY_PATH="$LIBDIR:$BUILD/deps/missing:${LD_LIBRARY_PATH:-}"
  echo "SimGrid from $DEPS; LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee -a "$LOG"
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
if ! cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PREFIX" -DPRUNEX_WERROR=OFF \
  "${CMAKE_EXTRA[@]}" > "$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"
  echo "gpu_check.sh: configure failed (missing Debian packages? see --deps)" >&2
  exit 1
fi
grep "prunex:" "$OUT/configure.log" | tee -a "$LOG"
grep -q "building backends/nccl" "$OUT/configure.log" ||
  { echo "gpu_check.sh: CMake did not find CUDA + NCCL" >&2; exit 1; }
say "build"
KEEP_GOING=(-k)  # make; ninja wants a count
[ -e "$BUILD/build.ninja" ] && KEEP_GOING=(-k 0)
if ! cmake --build "$BUILD" -j"$(nproc)" --target prunex_nccl test_nccl prunex -- "${KEEP_GOING[@]}" \
  > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40 || true
  echo "gpu_check.sh: build failed (log: $OUT/build.log)" >&2
  exit 1
fi
tail -3 "$OUT/build.log" | tee -a "$LOG"

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
  mpirun -np "$NGPU" \
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
# Every strategy with --backend nccl (CUDA tensors, NCCL), world size 1, then 2 ranks where
# there are 2 GPUs; synthetic data, resnet20, 2 outer iterations each.
STRATEGIES="hsadmm hsadmm-flat hsadmm-rail ddp fp16 topk pactrain cgx"
TRAIN_ROWS="$OUT/train_rows.md"
: > "$TRAIN_ROWS"
TRAIN_RC=0
train_row() {  # name, launcher..., then prunex train arguments
  local name="$1"; shift
  local dir="$OUT/train-$name" rc=0
  timeout 120 "$@" --model resnet20 --dataset synthetic --iterations 2 --out "$dir" \
    > "$OUT/train-$name.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || TRAIN_RC=1
  python3 - "$dir/metrics.json" "$name" "$rc" >> "$TRAIN_ROWS" <<'PY'
import json, sys
path, name, rc = sys.argv[1:4]
try:
    m = json.load(open(path))
    it = m["iterations"][-1]
    s = m["summary"]["time_per_iteration_s"]
    acc = it.get("accuracy")
    print(f"| {name} | exit {rc} | {s:.2f} | {it['loss']:.4f} | "
          f"{100 * acc:.2f}% | {it['bytes']['inter'] / 1e6:.3f} | {m['config'].get('device', '?')} |")
except Exception as e:  # the run failed before writing its record
    print(f"| {name} | exit {rc} | n/a | n/a | n/a | n/a | ({type(e).__name__}) |")
PY
  tail -1 "$TRAIN_ROWS" | tee -a "$LOG"
}
say "train --backend nccl, world size 1: $STRATEGIES"
for st in $STRATEGIES; do
  train_row "$st" "$BUILD/bin/prunex" train --backend nccl --strategy "$st" --gpus-per-node 1
done
if [ "$NGPU" -ge 2 ] && command -v mpirun >/dev/null; then
  say "train --backend nccl, 2 ranks (2 nodes x 1 GPU)"
  for st in hsadmm ddp; do
    train_row "$st-np2" mpirun -np 2 "$BUILD/bin/prunex" train --backend nccl --strategy "$st" \
      --gpus-per-node 1
  done
fi

# --- table -------------------------------------------------------------------------------
# Numbers to 3 significant places after the point; text as it is.
read_json() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(f"{v:.3f}" if isinstance(v, float) else v)' "$1" "$2" 2>/dev/null || echo n/a; }
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

\`prunex train --backend nccl\`, resnet20, synthetic data, 2 outer iterations (last iteration):

| strategy | exit | s per iteration | loss | accuracy | inter MB | device |
|---|---|---|---|---|---|---|
$(cat "$TRAIN_ROWS")
EOF
cat "$TABLE"
if [ "$WRITE" = 1 ]; then cat "$TABLE" >> "$ROOT/BENCHMARKS.md"; echo "appended to BENCHMARKS.md"; fi
# Nothing may skip on a machine with a device, except the multi-rank tests in the one-process
# run (they need 2 ranks); with 2 or more GPUs their mpirun run may skip nothing.
ALLOWED_SKIPS=$(grep -cE '^\[  SKIPPED \] NcclMultiRank\..* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)
if [ "$NGPU" -ge 2 ] && [ -e "$OUT/test_nccl_multirank.log" ] &&
  grep -qE '^\[  (SKIPPED|FAILED) \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl_multirank.log"; then
  TEST_RC=1
fi
[ "$TEST_RC" = 0 ] && [ "$BENCH_RC" = 0 ] && [ "$TRAIN_RC" = 0 ] && [ "$TESTS_SKIPPED" = "$ALLOWED_SKIPS" ]
