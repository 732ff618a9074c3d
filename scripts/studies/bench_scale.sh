#!/usr/bin/env bash
# The simulator at scale, before and after (issue 23): wall time and peak memory of one
# ResNet-152 iteration on puhti scaled out, per strategy and GPU count, for the build of
# commit BEFORE and for build/bin/prunex, measured in this one run; the growth exponent
# (log-log slope of time and memory from 16,384 GPUs to the largest size that finished),
# and the speed-up of `prunex sweep --jobs 2` over --jobs 1.
#
#   scripts/studies/bench_scale.sh [--before COMMIT|BINARY] [--gpus LIST] [--strategies LIST]
#                          [--timeout S] [--out DIR]
#
# Defaults: --before 6bbafec (main before the changes; built once into DIR/before/),
# --gpus 64,1024,16384,65536,131072, --strategies hsadmm,ddp, --timeout 600 (a run past it
# is reported as such), --out out/bench_scale. Writes DIR/scale.csv and DIR/scale.md and
# prints the table. Not a test: numbers on a shared machine, read with their noise.
set -euo pipefail
cd "$(dirname "$0")/../.."
before=6bbafec gpus=64,1024,16384,65536,131072 strategies=hsadmm,ddp timeout_s=600 out=out/bench_scale
while [[ $# -gt 0 ]]; do
  case $1 in
    --before) before=$2; shift 2 ;;
    --gpus) gpus=$2; shift 2 ;;
    --strategies) strategies=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_scale.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ $gpus =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "bench_scale.sh: --gpus must be a list of counts" >&2; exit 2; }
[[ $timeout_s =~ ^[0-9]+$ ]] || { echo "bench_scale.sh: --timeout must be seconds" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "bench_scale.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
after=build/bin/prunex
[[ -x $after ]] || scripts/build.sh
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The before binary: a file, or a commit built once into OUT/before/.
if [[ -x $before && -f $before ]]; then
  before_bin=$(realpath "$before")
  before_name=$before
else
  commit=$(git rev-parse --short "$before^{commit}") || { echo "bench_scale.sh: no commit '$before'" >&2; exit 2; }
  before_name=$commit
  before_bin=$out/before/build/bin/prunex
  if [[ ! -x $before_bin || $(cat "$out/before/commit" 2>/dev/null) != "$commit" ]]; then
    echo "building $commit into $out/before (once) ..." >&2
    rm -rf "$out/before"
    git worktree prune
    git worktree add --detach "$out/before/src" "$commit" > /dev/null
    cmake -S "$out/before/src" -B "$out/before/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$out/before/build" -j "$(nproc)" --target prunex > "$out/before/build.log" 2>&1 \
      || { echo "bench_scale.sh: building $commit failed ($out/before/build.log)" >&2; exit 1; }
    echo "$commit" > "$out/before/commit"
  fi
fi

csv=$out/scale.csv
echo "version,strategy,gpus,wall_s,peak_mib,status" > "$csv"
run_one() {  # run_one VERSION BINARY STRATEGY GPUS
  local version=$1 bin=$2 strategy=$3 g=$4 status=ok
  local nodes=$((g / 4)) dir="$out/runs/$version-$strategy-$g"
  rm -rf "$dir"
  set +e
  timeout "$timeout_s" /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" simulate --topology puhti \
    --nodes "$nodes" --gpus-per-node 4 --model resnet152 --strategy "$strategy" --iterations 1 \
    --out "$dir" > "$out/run.log" 2>&1
  local rc=$?
  set -e
  local wall peak
  if [[ $rc -eq 124 ]]; then
    status="timeout"; wall=$timeout_s; peak=""
  else
    read -r wall peak < <(tail -1 "$out/time.txt")
    peak=$((peak / 1024))
    if [[ $rc -ne 0 ]]; then status="exit-$rc"
    elif [[ ! -s $dir/metrics.json ]]; then status="no-metrics"; fi
  fi
  echo "$version,$strategy,$g,$wall,$peak,$status" >> "$csv"
  printf '%-7s %-7s %7d GPUs  %8.2f s  %6s MiB  %s\n' "$version" "$strategy" "$g" "$wall" "$peak" "$status" >&2
  rm -rf "$dir"
}
IFS=, read -r -a gpu_list <<< "$gpus"
IFS=, read -r -a strategy_list <<< "$strategies"
for s in "${strategy_list[@]}"; do
  for g in "${gpu_list[@]}"; do
    run_one before "$before_bin" "$s" "$g"
    run_one after "$after" "$s" "$g"
  done
done

# Sweep speed-up: the same sweep with --jobs 1 and --jobs 2 (after), outputs compared.
sweep=(--topology puhti --model resnet152 --gpus 1024,2048,4096,8192 --strategy hsadmm,hsadmm-flat,ddp,topk --iterations 1)
sweep_time() {  # sweep_time JOBS -> wall seconds
  /usr/bin/time -f "%e" -o "$out/time.txt" "$after" sweep "${sweep[@]}" --jobs "$1" --out "$out/sweep" > /dev/null 2>&1
  mv "$out/sweep/scaling.json" "$out/sweep-jobs$1.json"
  tail -1 "$out/time.txt"
}
j1=$(sweep_time 1)
j2=$(sweep_time 2)
same=$(cmp -s "$out/sweep-jobs1.json" "$out/sweep-jobs2.json" && echo identical || echo DIFFERENT)

python3 - "$csv" "$out/scale.md" "$before_name" "$j1" "$j2" "$same" "$(nproc)" "${sweep[*]}" <<'PY'
import csv, math, sys, datetime
rows = list(csv.DictReader(open(sys.argv[1])))
before, j1, j2, same, cores, sweep = sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]
def cell(r):
    if r["status"] == "timeout":
        return f"> {float(r['wall_s']):.0f} s (timed out)", "—"
    if r["status"] != "ok":
        return f"{r['status']} after {float(r['wall_s']):.1f} s", "—"
    return f"{float(r['wall_s']):.2f} s", f"{int(r['peak_mib']):,} MiB"
lines = [f"Measured {datetime.date.today()} by scripts/studies/bench_scale.sh on {cores} cores: one ResNet-152 "
         f"iteration (`prunex simulate --topology puhti --nodes G/4 --gpus-per-node 4 --model resnet152 "
         f"--iterations 1`), before = {before}, after = this checkout.", "",
         "| strategy | GPUs | before: wall | before: peak | after: wall | after: peak |",
         "|---|---:|---:|---:|---:|---:|"]
key = {(r["version"], r["strategy"], int(r["gpus"])): r for r in rows}
strategies = list(dict.fromkeys(r["strategy"] for r in rows))
sizes = sorted({int(r["gpus"]) for r in rows})
for s in strategies:
    for g in sizes:
        b, a = key.get(("before", s, g)), key.get(("after", s, g))
        bw, bm = cell(b) if b else ("", "")
        aw, am = cell(a) if a else ("", "")
        lines.append(f"| {s} | {g:,} | {bw} | {bm} | {aw} | {am} |")
lines += ["", "Growth exponents (log-log slope of time and peak memory between two sizes that finished, "
          "from 16,384 GPUs where there, below which the fixed start-up cost dominates):", ""]
for v in ("before", "after"):
    for s in strategies:
        ok = sorted((int(r["gpus"]), float(r["wall_s"]), float(r["peak_mib"])) for r in rows
                    if r["version"] == v and r["strategy"] == s and r["status"] == "ok")
        # From 16,384 GPUs on when two sizes are there: below, the start-up cost dominates.
        big = [p for p in ok if p[0] >= 16384]
        big = big if len(big) >= 2 else ok
        if len(big) >= 2:
            (g0, t0, m0), (g1, t1, m1) = big[0], big[-1]
            et = math.log(t1 / t0) / math.log(g1 / g0)
            em = math.log(m1 / m0) / math.log(g1 / g0)
            lines.append(f"- {v} {s}: time ~ GPUs^{et:.2f}, memory ~ GPUs^{em:.2f} ({g0:,} to {g1:,} GPUs)")
lines += ["", f"Sweep `prunex sweep {sweep}`: --jobs 1 {j1:.2f} s, --jobs 2 {j2:.2f} s, "
          f"speed-up {j1 / j2:.2f}x; scaling.json {same}."]
text = "\n".join(lines) + "\n"
open(sys.argv[2], "w").write(text)
print(text)
PY
