#!/usr/bin/env bash
# `prunex bench --backend mpi` under mpirun: a checked table, JSON rows, and a clean exit 2
# (one error line, no hang) when the world size doesn't divide into nodes.
# Usage: tests/cli/bench_mpi.sh path/to/prunex
set -euo pipefail
prunex=$(realpath "$1")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# -q: no Open MPI banners, so stderr holds only what prunex prints.
mpirun=(mpirun -q --oversubscribe -np 4)
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
tmp=$work
cd "$tmp"

timeout 300 "${mpirun[@]}" "$prunex" bench --backend mpi --gpus-per-node 2 --op all \
  -b 1K -e 64K -n 5 -w 1 --json out.json > table.txt || fail "bench exited $?"
cat table.txt
# 3 ops x 3 groups x 7 sizes (1K..64K), each with #wrong (the last column) 0.
rows=$(grep -v '^#' table.txt | awk 'NF == 9' | wc -l)
[ "$rows" -eq 63 ] || fail "expected 63 rows, got $rows"
bad=$(grep -v '^#' table.txt | awk 'NF == 9 && $9 != 0' | wc -l)
[ "$bad" -eq 0 ] || fail "$bad rows with wrong elements"
grep -q '^# Avg bus bandwidth' table.txt || fail "no average bus bandwidth line"
for g in world intra inter; do
  grep -v '^#' table.txt | awk -v g="$g" '$5 == g' | grep -q . || fail "no $g rows"
done

python3 - out.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
keys = {"op", "group", "algo", "bytes", "count", "dtype", "time_us", "algbw_gbs",
        "busbw_gbs", "wrong", "ranks", "backend", "nodes", "gpus_per_node", "world", "sync",
        "busy_us", "evict_bytes", "stat"}
assert len(rows) == 63, len(rows)
for r in rows:
    assert set(r) == keys, sorted(r)
    assert r["wrong"] == 0 and r["time_us"] > 0 and r["dtype"] == "float", r
    # allgather's size is the gathered total: 4 bytes x count x group size (4 ranks = 2 x 2).
    n = {"world": 4, "intra": 2, "inter": 2}[r["group"]]
    assert (r["ranks"], r["backend"], r["nodes"], r["gpus_per_node"], r["world"]) == \
        (n, "mpi", 2, 2, 4), r
    per = 4 * (n if r["op"] == "allgather" else 1)
    assert r["bytes"] == per * r["count"], r
    # The defaults: back to back, no busy work, means.
    assert (r["sync"], r["busy_us"], r["evict_bytes"], r["stat"]) == (False, 0, 0, "mean"), r
PY

# Training's measurement mode: compute before each call, barriers around it, medians.
timeout 300 "${mpirun[@]}" "$prunex" bench --backend mpi --gpus-per-node 2 --op allreduce \
  --group intra -b 1K -e 4K -f 4 -n 5 -w 1 --sync --busy-us 1000 --evict 2M --stat median \
  > sync.txt || fail "bench --sync --stat median exited $?"
grep -q "between world barriers, time = median over iterations of the slowest rank's" sync.txt ||
  fail "title does not say median"
grep -q 'each after 1000 us busy + 2097152 B written' sync.txt ||
  fail "title does not describe the busy work"
[ "$(grep -v '^#' sync.txt | awk 'NF == 9 && $9 == 0' | wc -l)" -eq 2 ] ||
  fail "expected 2 checked rows with --sync --stat median"
# Bad options: every rank exits 2, rank 0 prints one line naming the problem.
expect_exit2() {  # WORDS ARGS...
  local words="$1"
  shift
  expect_refused "$words" "" timeout 120 "${mpirun[@]}" "$prunex" bench --backend mpi -b 1K -e 4K "$@"
}
expect_exit2 "--stat must be one of mean, median, got 'mode'" --stat mode
expect_exit2 '--evict needs --busy-us' --evict 1M

# 4 ranks don't make nodes of 3: every rank exits 2; mpirun passes on the first nonzero
# exit status it sees, which is then 2; prunex prints one line (from rank 0 only).
set +e
timeout 120 "${mpirun[@]}" "$prunex" bench --backend mpi --gpus-per-node 3 -b 1K -e 4K \
  --json bad.json > bad_out.txt 2> bad_err.txt
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--gpus-per-node 3 on 4 ranks exited $rc, expected 2"
cat bad_err.txt
[ "$(wc -l < bad_err.txt)" -eq 1 ] || fail "expected one error line"
grep -q 'not a multiple of --gpus-per-node 3' bad_err.txt || fail "error does not name the problem"
[ ! -e bad.json ] || fail "bad run wrote a JSON file"
echo "bench_mpi: OK"
