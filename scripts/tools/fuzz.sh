#!/usr/bin/env bash
# Fuzzes the project's parsers with libFuzzer (clang), AddressSanitizer and UBSan: the topology
# parser, the config readers of train and of simulate / sweep / validate --set (as a
# hand-written file and as a run's record), validate's suite files, metrics.json as resume and
# simulate --masks read it, the checkpoint rank files, the IDX (Fashion-MNIST) and CIFAR-10
# readers (tests/fuzz/fuzz_*.cc).
# A benchmark, not part of scripts/test.sh: ctest only replays the stored corpus.
#
#   scripts/tools/fuzz.sh [--seconds N] [--out DIR] [TARGET ...]     (default: 60 s each, all)
#
# Builds build-fuzz/ (PRUNEX_FUZZ=ON), runs each target for N seconds from
# tests/fuzz/corpus/TARGET, keeps there the seeds, the regression inputs and a minimal set of
# inputs covering what the run reached (the corpus kept under tests/), and writes
# OUT/TARGET/log and any finding as OUT/TARGET/crash-* (a finding, once fixed, goes into
# tests/fuzz/corpus/TARGET/ as regress-WHAT, a regression input). Prints per target:
# executions, executions per second, corpus size, findings.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=60 out=out/fuzz targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --seconds must be a positive integer, got '$seconds'" >&2; exit 2; }
all=$(ls tests/fuzz/fuzz_*.cc | sed 's|.*/fuzz_||; s|\.cc$||')
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<<"$(echo $all)"
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$all" || { echo "fuzz.sh: no target '$t' (have: $(echo $all))" >&2; exit 2; }
done

scripts/setup.sh
if ! command -v clang++ >/dev/null || [ -z "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then
  echo "fuzz.sh: installing clang and its fuzzer runtime"
  apt-get install -y -qq --no-install-recommends clang libclang-rt-dev >/dev/null
fi
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRUNEX_FUZZ=ON >/dev/null
fi
cmake --build build-fuzz -j "$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") | grep -E 'error|Linking' || true

# Inputs up to 64 KiB (a CIFAR record is 3073 bytes, a topology a few hundred).
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1
printf '%-14s %12s %10s %8s %9s\n' target executions exec/s corpus findings
for t in "${targets[@]}"; do
  dir=$out/$t
  rm -rf "$dir" && mkdir -p "$dir/new"
  set +e
  build-fuzz/bin/fuzz_$t -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 \
    -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$dir/" "$dir/new" "tests/fuzz/corpus/$t" \
    >"$dir/log" 2>&1
  set -e
  # The corpus kept: the seeds and regression inputs (seed-*, regress-*) and a small set of
  # the rest that covers the same edges (greedy set cover on edges alone: with hit counts a
  # 60 s run keeps ~1000 files a target).
  mkdir -p "$dir/min"
  build-fuzz/bin/fuzz_$t -set_cover_merge=1 -use_counters=0 "$dir/min" "tests/fuzz/corpus/$t" \
    "$dir/new" >>"$dir/log" 2>&1 || true
  find "tests/fuzz/corpus/$t" -type f ! -name 'seed-*' ! -name 'regress-*' -delete
  for f in "$dir"/min/*; do
    [ -e "$f" ] || continue
    cp "$f" "tests/fuzz/corpus/$t/"
  done
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*$' || echo 0)
  findings=$(ls "$dir" | grep -cE '^(crash|leak|timeout|oom)-' || true)
  printf '%-14s %12s %10s %8s %9s\n' "$t" "${execs:-0}" "${rate:-0}" \
    "$(ls "tests/fuzz/corpus/$t" | wc -l)" "$findings"
done
echo "logs and findings: $out/TARGET/"
