#!/usr/bin/env bash
# The one script for a machine with a GPU (the lent GPU, or a cluster node): builds the
# NCCL/CUDA backend, runs every GPU test, times the kernels, trains every strategy on the GPU
# against the CPU, compares ddp with PyTorch's DDP, measures for the calibration loop, and
# writes the results (date, GPU, numbers) to the run's own results/gpu/DATE-GPU/README.md
# (DATE in UTC, GPU the device's name in lower case, e.g. 2026-11-27-h200; a second run of
# the same day and GPU appends its section there). About 7 minutes on an H200 with 16 cores,
# build included (the sum of the parts' times in the 2026-11-27 runs; a first full run was
# cut off at 540 s by two bugs' hangs, since fixed).
#
#   scripts/gpu/gpu_check.sh [--deps FILE] [--out DIR] [--no-write] [--only STEPS|repeat]
#   scripts/gpu/gpu_check.sh --pack-deps FILE     (here, on the Debian 12 development machine)
#
# --only STEPS: the build, then only the steps named (comma list): tests (1), kernels (2, 3),
# train (4), parity (5), calibration (6), emulate (7); or repeat: two GPU runs of hsadmm with
# --deterministic true compared record by record (scripts/tools/compare_records.py), nothing else.
#
# What it measures (numbers to OUT/table.md, and to results/gpu/DATE-GPU/README.md unless
# --no-write):
#   1. test_nccl on the GPU: every kernel against its CPU reference, the one-rank
#      NcclCommunicator tests -- no test may skip on a machine with a device.
#   2. With one GPU: NcclMultiRank and the communicator conformance suite (CommunicatorNccl)
#      on 2 and 4 ranks sharing it (scripts/gpu/nccl_one_gpu.sh: a NCCL_HOSTID per rank, NCCL's
#      sockets on loopback); with 2+ GPUs, one rank per GPU.
#   3. `prunex bench --op compaction --device cuda`: fused pack + unpack for ResNet-152 at
#      channel keep 0.5 against a device-to-device cudaMemcpyAsync of the same bytes, and the
#      whole-model GPU projection; every row checked against the CPU (#wrong must be 0); the
#      same projection with LibTorch ops for comparison.
#   4. `prunex train --backend nccl` for every strategy: world size 1, then 2 x 2 and 4 x 1
#      ranks on the GPU, each against the same run with --backend mpi on the CPU cores
#      (scripts/gpu/compare_gpu_cpu.py: losses within 1e-3 relative, TF32 off).
#   5. Parity: ResNet-50 on synthetic 224x224 images, batch 64, PyTorch's DDP
#      (scripts/gpu/pytorch_gpu_parity.py) against `prunex train --strategy ddp`, 1 and 2 ranks.
#   6. Measurements for the calibration loop (NCCL benches, calibration and held-out runs on
#      2 x 2 and 4 x 1, under NVIDIA's MPS with a quarter of the GPU a rank where MPS starts;
#      OUT/calibration-runs), predicted by scripts/studies/predict_cluster.sh.
#   7. Whether network namespaces work (prunex emulate), and emulated 2 x 1 runs of ddp and
#      hsadmm over NCCL's sockets on the shaped links where they do (iproute2 from --deps
#      where the machine has none).
#
# Needs: nvcc, CMake >= 3.18, NCCL (CUDA's include/lib, or the nvidia-nccl python package),
# python3 with torch (CUDA build; its TorchConfig.cmake is used), no apt, no internet.
# The lent GPU machines (Ubuntu 24.04, seen 2026-11-26) have Open MPI 4.1, Boost, fmt,
# nlohmann-json, GoogleTest, CLI11 (2.4) and zlib, but no SimGrid and no iproute2.
# --pack-deps packs SimGrid (headers, pkg-config file, library and the libraries it needs
# that such a machine lacks) and iproute2 (ip and tc with their libraries) from this Debian 12
# machine into one tar.xz; --deps FILE unpacks it into the build folder and points
# pkg-config, the loader and prunex emulate there.
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
  # iproute2 (ip, tc) for prunex emulate, with its libraries, loaded by wrappers that give the
  # libraries to ip and tc alone (not to what `ip netns exec` starts); found through
  # PRUNEX_SYSTEM_PROGRAMS (host/process.h).
  local ipr="$stage/usr/lib/prunex-iproute2" prog
  mkdir -p "$ipr/bin" "$ipr/lib" "$ipr/sbin"
  for prog in ip tc; do
    cp -L "/usr/sbin/$prog" "$ipr/bin/"
    for dep in $(ldd "/usr/sbin/$prog" | awk '/=>/ {print $3}'); do
      case "$(basename "$dep")" in
        libc.so*|libm.so*|ld-linux*|libdl.so*|libpthread*|librt.so*) ;;
        *) cp -L "$dep" "$ipr/lib/" ;;
      esac
    done
    printf '#!/bin/sh\n# %s of Debian 12 with its own libraries (scripts/gpu/gpu_check.sh --pack-deps)\nd="$(dirname "$(readlink -f "$0")")/.."\nexec /lib64/ld-linux-x86-64.so.2 --library-path "$d/lib" "$d/bin/%s" "$@"\n' \
      "$prog" "$prog" > "$ipr/sbin/$prog"
    chmod +x "$ipr/sbin/$prog"
  done
  tar -C "$stage" -cJf "$file" usr
  echo "packed SimGrid and iproute2 into $file ($(du -h "$file" | cut -f1)); carry it to the GPU machine"
}

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DEPS=""
OUT="$ROOT/out/gpu_check"
WRITE=1
ONLY=all
BUILD="$ROOT/build-gpu"


while [ $# -gt 0 ]; do
  case "$1" in
    --pack-deps) pack_deps "$2"; exit 0 ;;
    --deps) DEPS="$(realpath "$2")"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-write) WRITE=0; shift ;;
    --only) ONLY="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "gpu_check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
STEPS="tests kernels train parity calibration emulate"
for step in ${ONLY//,/ }; do
  case " all repeat $STEPS " in *" $step "*) ;; *)
    echo "gpu_check.sh: --only takes all, repeat or a comma list of: ${STEPS// /, } (not $step)" >&2
    exit 2 ;;
  esac
done
want() { [ "$ONLY" = all ] || [[ ",$ONLY," == *",$1,"* ]]; }
# What the table reads, for the steps that do not run.
TEST_RC=0 BENCH_RC=0 TRAIN_RC=0 TESTS_PASSED=n/a TESTS_FAILED=n/a TESTS_SKIPPED=0 ALLOWED_SKIPS=0
TRAIN_ROWS="$OUT/train_rows.md" PARITY_ROWS="$OUT/parity_rows.md"
mkdir -p "$OUT"
LOG="$OUT/gpu_check.log"
: > "$LOG"
: > "$TRAIN_ROWS"
: > "$PARITY_ROWS"
say() { echo "== $*" | tee -a "$LOG"; }

# --- toolchain ---------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null; then nvidia-smi -L | tee -a "$LOG"; fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)  # MIG instances are indented lines
NGPU=${NGPU:-0}
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
  # The packed iproute2 where the machine has none (prunex emulate finds it there).
  if [ -d "$BUILD/deps/usr/lib/prunex-iproute2/sbin" ] && ! [ -x /usr/sbin/ip ] && ! [ -x /sbin/ip ]; then
    export PRUNEX_SYSTEM_PROGRAMS="$BUILD/deps/usr/lib/prunex-iproute2/sbin"
    export PATH="$PRUNEX_SYSTEM_PROGRAMS:$PATH"
    echo "iproute2 from $DEPS ($(ip -V 2>&1 | head -1))" | tee -a "$LOG"
  fi
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
TARGETS=(prunex_nccl test_nccl prunex)
want tests || TARGETS=(prunex)
if ! cmake --build "$BUILD" -j"$(nproc)" --target "${TARGETS[@]}" -- "${KEEP_GOING[@]}" \
  > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40 || true
  echo "gpu_check.sh: build failed (log: $OUT/build.log)" >&2
  exit 1
fi
tail -3 "$OUT/build.log" | tee -a "$LOG"

# --only repeat: two GPU runs of hsadmm with --deterministic true, compared record by record
# (times aside), then stop.
if [ "$ONLY" = repeat ]; then
  export CUBLAS_WORKSPACE_CONFIG=:4096:8  # cuBLAS's deterministic workspace
  for run in a b; do
    timeout 120 "$BUILD/bin/prunex" train --backend nccl --strategy hsadmm --gpus-per-node 1 \
      --deterministic true --model resnet20 --dataset synthetic --synthetic-samples 512 \
      --test-samples 128 --batch 32 --local-steps 2 --iterations 3 --out "$OUT/det-$run" \
      > "$OUT/det-$run.log" 2>&1 || echo "run $run failed: $(tail -2 "$OUT/det-$run.log")"
  done
  REPEAT_RC=0
  python3 "$ROOT/scripts/tools/compare_records.py" "$OUT/det-a/metrics.json" "$OUT/det-b/metrics.json" \
    > "$OUT/det_repeat.txt" 2>&1 || REPEAT_RC=1
  cat "$OUT/det_repeat.txt"
  exit "$REPEAT_RC"
fi

if want tests; then
# --- 1. tests ----------------------------------------------------------------------------
say "tests"
TEST_RC=0
# With one GPU the multi-rank tests run on 2 and 4 ranks sharing it, beside the one-rank run.
# NCCL refuses two ranks of one host on one GPU ("Duplicate GPU detected"), but compares host
# identities first: ranks given distinct NCCL_HOSTID values are different hosts to it, and
# reach each other through its socket transport (here on loopback), even on one GPU.
declare -A MULTI_PIDS=()
if [ "$NGPU" -lt 2 ] && command -v mpirun >/dev/null; then
  for np in 2 4; do
    timeout 240 "$ROOT/scripts/gpu/nccl_one_gpu.sh" "$np" "$BUILD/bin/test_nccl" \
      --gtest_filter='NcclMultiRank.*:CommunicatorNccl.*' --gtest_color=no > "$OUT/test_nccl_np$np.log" 2>&1 &
    MULTI_PIDS[$np]=$!
  done
fi
"$BUILD/bin/test_nccl" 2>&1 | tee "$OUT/test_nccl.log" | tail -15 | tee -a "$LOG" || TEST_RC=$?
TESTS_PASSED=$(grep -cE '^\[       OK \] ' "$OUT/test_nccl.log" || true)
TESTS_FAILED=$(grep -cE '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)
TESTS_SKIPPED=$(grep -cE '^\[  SKIPPED \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)

if [ "$NGPU" -ge 2 ] && command -v mpirun >/dev/null; then
  say "multi-rank NCCL tests on $NGPU GPUs"
  mpirun -np "$NGPU" \
    "$BUILD/bin/test_nccl" --gtest_filter='NcclMultiRank.*:CommunicatorNccl.*' > "$OUT/test_nccl_multirank.log" 2>&1 || TEST_RC=1
  { grep -E '^\[  (PASSED|FAILED) ' "$OUT/test_nccl_multirank.log" || echo "(no summary)"; } |
    sort | uniq -c | tee -a "$LOG"
else
  say "multi-rank NCCL tests skipped: $NGPU GPU(s) (they need 2 or more and mpirun)"
fi

# --- many ranks on one GPU: NCCL's tests (started beside the one-rank run) ----------------
for np in "${!MULTI_PIDS[@]}"; do
  say "multi-rank NCCL tests: $np ranks on one GPU (a NCCL_HOSTID per rank, sockets on lo)"
  log="$OUT/test_nccl_np$np.log"
  wait "${MULTI_PIDS[$np]}" || TEST_RC=1
  { grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" || echo "(no summary: the run ended early)"; } | sort | uniq -c | tee -a "$LOG"
  grep -qE '^\[  (SKIPPED|FAILED) \] [A-Za-z].* \([0-9]+ ms\)' "$log" && TEST_RC=1
  grep -qE '^\[  PASSED  \] ' "$log" || TEST_RC=1
done

fi

if want kernels; then
# --- 2. kernels --------------------------------------------------------------------------
say "bench: prunex bench --op compaction --device cuda --model resnet152 --sparsity channel --keep 0.5"
BENCH_RC=0
"$BUILD/bin/prunex" bench --op compaction --device cuda --model resnet152 --sparsity channel --keep 0.5 \
  -n 20 -w 5 --json "$OUT/bench_nccl.json" 2>&1 | tee "$OUT/bench_nccl.txt" | tee -a "$LOG" || BENCH_RC=$?

# --- 3. the same projection with LibTorch ops --------------------------------------------
say "torch projection on the same shapes"
"$BUILD/bin/prunex" model-info --model resnet152 --json > "$OUT/resnet152.json"
python3 - "$OUT/resnet152.json" "$OUT/torch_projection.json" <<'PY' 2>&1 | tee -a "$LOG" || true
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

fi

if want train; then
# --- 4. training on the GPU --------------------------------------------------------------
# Every strategy with --backend nccl (CUDA tensors, NCCL) at world size 1, then on 2 x 2 and
# 4 x 1 ranks sharing the GPU, each against the same run with --backend mpi on this machine's
# CPU cores. TF32 is off (NVIDIA_TF32_OVERRIDE=0) so the GPU computes in fp32 as the CPU does.
# GPU_CHECK_STRATEGIES / GPU_CHECK_VARIANTS narrow the matrix (a rerun of some strategies).
STRATEGIES="${GPU_CHECK_STRATEGIES:-hsadmm hsadmm-flat hsadmm-rail ddp fp16 topk pactrain cgx powersgd}"
# Beside each strategy's defaults, the peers' other codec paths (on 2 x 2 and 4 x 1 only):
# pactrain's compact buckets from the second step with TernGrad levels, cgx's stochastic
# rounding at 3 bits, and powersgd's factors from the first step at rank 4 (QR).
VARIANTS="${GPU_CHECK_VARIANTS-pactrain-ternary cgx-stochastic powersgd-rank4}"
strategy_args() {  # a name of STRATEGIES or VARIANTS: its prunex train options
  case "$1" in
    pactrain-ternary) echo --strategy pactrain --stable-steps 1 --ternary true ;;
    cgx-stochastic) echo --strategy cgx --stochastic-rounding true --bits 3 ;;
    powersgd-rank4) echo --strategy powersgd --start-powersgd-iter 0 --matrix-approximation-rank 4 ;;
    *) echo --strategy "$1" ;;
  esac
}
SMALL=(--model resnet20 --dataset synthetic --synthetic-samples 512 --test-samples 128
       --batch 32 --local-steps 2 --iterations 2)
train_row() {  # name, launcher..., then prunex train arguments: OUT/row-NAME.md
  local name="$1"; shift
  local dir="$OUT/train-$name" rc=0
  timeout 150 "$@" "${SMALL[@]}" --out "$dir" > "$OUT/train-$name.log" 2>&1 || rc=$?
  python3 - "$dir/metrics.json" "$name" "$rc" > "$OUT/row-$name.md" <<'PY'
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
  cat "$OUT/row-$name.md"
}
limit() { while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do wait -n || true; done; }
# The runs check what they compute, not their speed: they run side by side (the GPU and 16
# cores hold several), GPU runs and their CPU references alike. TF32 off on the GPU.
export NVIDIA_TF32_OVERRIDE=0
say "train: every strategy, --backend nccl at world size 1, 2 x 2 and 4 x 1 on the GPU, and --backend mpi on the CPU"
NAMES=()
for st in $STRATEGIES hsadmm-again; do
  limit 4
  train_row "$st" "$BUILD/bin/prunex" train --backend nccl --strategy "${st%-again}" --gpus-per-node 1 &
  NAMES+=("$st")
done
if command -v mpirun >/dev/null; then
  for shape in 2x2 4x1; do
    for st in $STRATEGIES $VARIANTS; do
      limit 4
      train_row "$st-$shape" "$ROOT/scripts/gpu/nccl_one_gpu.sh" 4 "$BUILD/bin/prunex" train --backend nccl \
        $(strategy_args "$st") --gpus-per-node "${shape#*x}" &
      NAMES+=("$st-$shape")
      limit 4
      ( timeout 180 mpirun -np 4 --oversubscribe --bind-to none "$BUILD/bin/prunex" train --backend mpi \
          $(strategy_args "$st") --gpus-per-node "${shape#*x}" "${SMALL[@]}" --out "$OUT/cpu-$shape-$st" \
          > "$OUT/cpu-$shape-$st.log" 2>&1 ) &
    done
  done
fi
wait
for n in "${NAMES[@]}"; do
  cat "$OUT/row-$n.md" >> "$TRAIN_ROWS"
  grep -q "| exit 0 |" "$OUT/row-$n.md" || TRAIN_RC=1
done
cat "$TRAIN_ROWS" >> "$LOG"
# Two runs of hsadmm on the GPU: the same records but for times? (cuDNN's backward adds with
# atomics; the residual sums do not.)
python3 "$ROOT/scripts/tools/compare_records.py" "$OUT/train-hsadmm/metrics.json" \
  "$OUT/train-hsadmm-again/metrics.json" > "$OUT/gpu_repeat.txt" 2>&1 || true
cat "$OUT/gpu_repeat.txt" | tee -a "$LOG"
if command -v mpirun >/dev/null; then
  say "GPU (nccl) against CPU (mpi), same runs"
  python3 "$ROOT/scripts/gpu/compare_gpu_cpu.py" "$OUT" $STRATEGIES $VARIANTS > "$OUT/gpu_vs_cpu.md" || TRAIN_RC=1
  cat "$OUT/gpu_vs_cpu.md" | tee -a "$LOG"
fi
unset NVIDIA_TF32_OVERRIDE

fi

if want parity; then
# --- 5. parity with PyTorch's DDP ----------------------------------------------------------
# ResNet-50, synthetic 224x224 images, batch 64 per rank, fp32 (each framework's default
# math), 3 outer iterations of 10 steps; 1 rank, then 2 ranks sharing the GPU.
say "parity: PyTorch DistributedDataParallel against prunex train --strategy ddp"
for np in 1 2; do
  launch=("$ROOT/scripts/gpu/nccl_one_gpu.sh" "$np")
  [ "$np" = 1 ] && launch=()
  samples=$((640 * np))
  timeout 150 "${launch[@]}" python3 "$ROOT/scripts/gpu/pytorch_gpu_parity.py" --samples "$samples" \
    --json "$OUT/parity-pytorch-np$np.json" > "$OUT/parity-pytorch-np$np.log" 2>&1 || TRAIN_RC=1
  timeout 150 "${launch[@]}" "$BUILD/bin/prunex" train --backend nccl --strategy ddp --gpus-per-node 1 \
    --model resnet50 --dataset synthetic --synthetic-size 224 --synthetic-samples "$samples" \
    --test-samples 64 --batch 64 --local-steps 10 --iterations 3 \
    --out "$OUT/parity-prunex-np$np" > "$OUT/parity-prunex-np$np.log" 2>&1 || TRAIN_RC=1
  python3 - "$OUT/parity-pytorch-np$np.json" "$OUT/parity-prunex-np$np/metrics.json" "$np" \
    >> "$PARITY_ROWS" <<'PY' || TRAIN_RC=1
import json, sys
pt_path, px_path, np_ = sys.argv[1:4]
try:
    pt = json.load(open(pt_path))
    px = json.load(open(px_path))
    world = px["config"]["world-size"]
    steps, batch = px["config"]["local-steps"], px["config"]["batch"]
    walls = [i["wall_seconds"] for i in px["iterations"][1:]]
    ips = steps * batch * world * len(walls) / sum(walls)
    ratio = ips / pt["images_per_second"]
    losses = " / ".join(f"{a['loss']:.4f} vs {b['loss']:.4f}"
                        for a, b in zip(px["iterations"], pt["iterations"]))
    print(f"| {np_} | {pt['images_per_second']:.1f} | {ips:.1f} | {ratio:.3f} | {losses} |")
except Exception as e:
    print(f"| {np_} | n/a | n/a | n/a | ({type(e).__name__}: {e}) |")
PY
  tail -1 "$PARITY_ROWS" | tee -a "$LOG"
done

fi

if want calibration; then
# --- 6. measurements for the calibration loop ----------------------------------------------
# On 2 x 2 ranks sharing the GPU: NCCL's collectives (every op and group, 64 B - 16 MiB), short
# live runs of ddp, hsadmm and topk (compute and memory phases: Top-K's selection is measured
# only there), and held-out runs to predict (hsadmm-flat on 2 x 2, ddp and topk on 4 x 1), all
# with --sync-phases true so phases time communication alone (the runs of
# scripts/slurm/calibration_loop.sbatch on a cluster). The calibration and predictions run
# where SimGrid is (scripts/studies/predict_cluster.sh on these files).
CAL_RUN=(--model resnet20 --dataset synthetic --synthetic-samples 2048 --test-samples 128
         --batch 32 --sync-phases true --iterations 6 --local-steps 8 --t-freeze 3)
cal_measure() {  # DIR, then nccl_one_gpu.sh's options before NP (--mps-share or none)
  local cal="$1" rc; shift
  mkdir -p "$cal"
  timeout 120 "$ROOT/scripts/gpu/nccl_one_gpu.sh" "$@" 4 "$BUILD/bin/prunex" bench --backend nccl \
    --gpus-per-node 2 --op all --group all -b 64 -e 16M -f 4 -n 20 -w 3 \
    --json "$cal/bench_nccl_2x2.json" > "$cal/bench_nccl_2x2.txt" 2>&1 || TRAIN_RC=1
  "$BUILD/bin/prunex" bench --op compaction --device cuda --model resnet20 --json "$cal/memory.json" \
    > "$cal/memory.txt" 2>&1 || true
  for run in steps:2x2:ddp steps:2x2:hsadmm steps:2x2:topk live:2x2:hsadmm-flat live:4x1:ddp \
    live:4x1:topk; do
    IFS=: read -r kind shape st <<< "$run"
    timeout 120 "$ROOT/scripts/gpu/nccl_one_gpu.sh" "$@" 4 "$BUILD/bin/prunex" train --backend nccl \
      --strategy "$st" --gpus-per-node "${shape#*x}" "${CAL_RUN[@]}" --out "$cal/$kind-$shape-$st" \
      > "$cal/$kind-$shape-$st.log" 2>&1 && rc=0 || rc=$?
    [ "$rc" = 0 ] || TRAIN_RC=1
    echo "$kind $shape $st: exit $rc" | tee -a "$LOG"
  done
}
# With one GPU, under NVIDIA's MPS where it starts: the ranks' kernels run side by side
# instead of taking turns in time slices (without MPS the phases depend on the other
# processes' turns: results/gpu/2026-11-27-h200/README.md), each rank held to a quarter of
# the GPU's threads (scripts/gpu/nccl_one_gpu.sh --mps-share): under plain MPS the same local
# steps took 55-87 ms from run to run (results/gpu/2026-11-27-h200-peers/README.md, 05:19Z),
# the compute of one rank depending on the others' kernels, which a model of one device per
# rank cannot predict.
MPS=()
if [ "$NGPU" -lt 2 ] && command -v nvidia-cuda-mps-control >/dev/null; then MPS=(--mps-share); fi
say "calibration loop: measurements (2 x 2 ranks on one GPU${MPS:+, MPS with a share a rank})"
cal_measure "$OUT/calibration-runs" "${MPS[@]}"
grep -h "nccl_one_gpu.sh: MPS" "$OUT"/calibration-runs/*.txt "$OUT"/calibration-runs/*.log \
  2>/dev/null | sort | uniq -c | tee -a "$LOG" || true

fi

if want emulate; then
# --- 7. the machine: runtime, and network namespaces for prunex emulate ---------------------
say "runtime and namespaces"
{ uname -r; grep -o 'gVisor' /proc/version 2>/dev/null || true; } | tee -a "$LOG"
if ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "network namespaces: not checked (no iproute2: ip and tc)" | tee -a "$LOG"
elif ip netns add prunex-gpucheck 2>/dev/null; then
  ip netns del prunex-gpucheck
  echo "network namespaces: allowed" | tee -a "$LOG"
  # 2 emulated nodes of one rank each (ranks of one node share a host name, and NCCL would
  # refuse two of them on one GPU), links of Puhti's 100 Gbit/s slowed 1000x: NCCL's sockets
  # cross the shaped veth links (NCCL_SOCKET_IFNAME=rail).
  # Where each rank runs and which host NCCL will take it for (the 05:07Z run saw NCCL refuse
  # two emulated nodes as one host), and any NCCL_ variable the machine sets.
  env | grep '^NCCL_' | sed 's/^/machine environment: /' | tee -a "$LOG" || true
  timeout 60 "$BUILD/bin/prunex" emulate --topology puhti --nodes 2 --gpus-per-node 1 --program -- \
    sh -c 'echo "rank $OMPI_COMM_WORLD_RANK: host $(hostname), NCCL_HOSTID ${NCCL_HOSTID:-unset}"' \
    2>&1 | grep '^rank ' | tee -a "$LOG" || true
  for st in ddp hsadmm; do
    timeout 120 "$BUILD/bin/prunex" emulate --topology puhti --nodes 2 --gpus-per-node 1 --slowdown 1000 -- \
      train --backend nccl --strategy "$st" --gpus-per-node 1 "${SMALL[@]}" --out "$OUT/emulated-$st" \
      > "$OUT/emulated-$st.log" 2>&1 && rc=0 || rc=$?
    python3 - "$OUT/emulated-$st/metrics.json" "$st" "$rc" <<'PY' | tee -a "$LOG" || true
import json, sys
path, st, rc = sys.argv[1:4]
try:
    m = json.load(open(path))
    it = m["iterations"][-1]
    emu = m["config"].get("emulation", {})
    print(f"emulated 2 x 1, {st} over NCCL on the shaped links: exit {rc}, "
          f"{m['summary']['time_per_iteration_s']:.2f} s per iteration, loss {it['loss']:.4f}, "
          f"inter {it['bytes']['inter'] / 1e6:.3f} MB, device {m['config'].get('device')}, "
          f"emulation {json.dumps(emu)[:160]}")
except Exception as e:
    print(f"emulated 2 x 1, {st} over NCCL: exit {rc}, no record ({type(e).__name__})")
PY
    [ "$rc" = 0 ] || tail -5 "$OUT/emulated-$st.log" | tee -a "$LOG"
    "$BUILD/bin/prunex" emulate --cleanup > /dev/null 2>&1 || true
  done
else
  echo "network namespaces: not allowed here (ip netns add failed)" | tee -a "$LOG"
fi

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

## GPU run $DATE on $GPU (scripts/gpu/gpu_check.sh)

| check | result |
|---|---|
| test_nccl | $TESTS_PASSED passed, $TESTS_FAILED failed, $TESTS_SKIPPED skipped (exit $TEST_RC) |
| pack+unpack, ResNet-152 channel keep 0.5 | $PU GB/s |
| device-to-device copy, same bytes | $CP GB/s |
| ratio (target >= 0.80) | $RATIO |
| #wrong vs CPU (pack, unpack, projection) | $WRONG (bench exit $BENCH_RC) |
| projection, CUDA kernels (whole model) | $PROJ ms |
| projection, LibTorch ops (same shapes) | $TPROJ ms |
| NcclMultiRank + CommunicatorNccl, 2 ranks on one GPU | $(grep -cE '^\[       OK \] ' "$OUT/test_nccl_np2.log" 2>/dev/null || true) OK lines, $(grep -cE '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl_np2.log" 2>/dev/null || true) failed |
| NcclMultiRank + CommunicatorNccl, 4 ranks on one GPU | $(grep -cE '^\[       OK \] ' "$OUT/test_nccl_np4.log" 2>/dev/null || true) OK lines, $(grep -cE '^\[  FAILED  \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl_np4.log" 2>/dev/null || true) failed |
| hsadmm twice on the GPU | $(tr '\n' ';' < "$OUT/gpu_repeat.txt" 2>/dev/null) |

\`prunex train --backend nccl\`, resnet20, synthetic data, 2 outer iterations of 2 steps (last
iteration; NAME-MxP: M x P ranks sharing the GPU):

| strategy | exit | s per iteration | loss | accuracy | inter MB | device |
|---|---|---|---|---|---|---|
$(cat "$TRAIN_ROWS")

The same runs on the GPU (nccl) and the CPU (mpi):

$(cat "$OUT/gpu_vs_cpu.md" 2>/dev/null)

Parity with PyTorch's DDP (ResNet-50, synthetic 224x224, batch 64 per rank, 3 x 10 steps;
images/s from iterations 2-3; losses per iteration, prunex vs PyTorch):

| ranks | PyTorch images/s | prunex images/s | ratio (target >= 0.95) | losses |
|---|---|---|---|---|
$(cat "$PARITY_ROWS")
EOF
cat "$TABLE"
if [ "$WRITE" = 1 ]; then
  # This run's own dated file: results/gpu/<UTC date>-<GPU name, e.g. h200>/README.md.
  GPU_SLUG="$(printf '%s' "$GPU" | tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' \
    -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//')"
  RUN_README="$ROOT/results/gpu/${DATE%%T*}-${GPU_SLUG:-gpu}/README.md"
  mkdir -p "$(dirname "$RUN_README")"
  [ -e "$RUN_README" ] || printf '# GPU runs on %s, %s\n' "$GPU" "${DATE%%T*}" > "$RUN_README"
  cat "$TABLE" >> "$RUN_README"
  echo "wrote ${RUN_README#"$ROOT"/}"
fi
# Nothing may skip on a machine with a device, except the multi-rank tests in the one-process
# run (they need 2 ranks); with 2 or more GPUs their mpirun run may skip nothing.
want tests && ALLOWED_SKIPS=$(grep -cE '^\[  SKIPPED \] NcclMultiRank\..* \([0-9]+ ms\)' "$OUT/test_nccl.log" || true)
if [ "$NGPU" -ge 2 ] && [ -e "$OUT/test_nccl_multirank.log" ] &&
  grep -qE '^\[  (SKIPPED|FAILED) \] [A-Za-z].* \([0-9]+ ms\)' "$OUT/test_nccl_multirank.log"; then
  TEST_RC=1
fi
[ "$TEST_RC" = 0 ] && [ "$BENCH_RC" = 0 ] && [ "$TRAIN_RC" = 0 ] && [ "$TESTS_SKIPPED" = "$ALLOWED_SKIPS" ]
