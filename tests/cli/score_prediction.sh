#!/usr/bin/env bash
# analysis/score_prediction.py: per-phase error of simulations against live runs, and the live runs'
# own repeatability (--repeat), checked against errors computed here by hand from fixtures
# whose phase times are chosen so the answers are exact; bad input exits 2 with one line and
# writes nothing.
set -u
PY=/usr/bin/python3
VALIDATE=$(cd "$(dirname "$0")/../.." && pwd)/analysis/score_prediction.py
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
tmp=$work

# A run: 3 iterations (the first is skipped as start-up), phase times per iteration.
"$PY" - "$tmp" <<'PYEOF' || err "fixtures"
import json, sys
d = sys.argv[1]

def run(name, executor, mask_sync, broadcast, compute, inter_bytes=1000.0):
    its = []
    for k, (ms, bc, lc) in enumerate(zip(mask_sync, broadcast, compute)):
        phases = {"local_compute": {"critical_path_s": lc, "per_rank_s": [lc, lc]},
                  "broadcast": {"critical_path_s": bc, "per_rank_s": [bc, bc]}}
        if ms is not None:
            phases["mask_sync"] = {"critical_path_s": ms, "per_rank_s": [ms, 0]}
        its.append({"iteration": k + 1, "phases": phases, "wall_seconds": lc + bc + (ms or 0),
                    "bytes": {"intra": 10.0, "inter": inter_bytes, "world": 0.0}})
    cfg = {"strategy": "hsadmm", "nodes": 2, "gpus_per_node": 2, "model": "small_cnn"}
    if executor:
        cfg["executor"] = executor
    json.dump({"config": cfg, "iterations": its}, open(f"{d}/{name}.json", "w"))

# Live A: mask_sync median over iterations 2-3 of (20, 40) us = 30 us; broadcast 100 us.
run("live_a", None, [1.0, 20e-6, 40e-6], [1.0, 100e-6, 100e-6], [9.0, 2.0, 2.0])
# Live B, the repeat: mask_sync 45 us (+50% on A), broadcast 80 us (-20%), compute 2.0 s.
run("live_b", None, [1.0, 45e-6, 45e-6], [1.0, 80e-6, 80e-6], [9.0, 2.0, 2.0])
# Simulation: mask_sync 60 us, broadcast 100 us, compute 2.5 s; iteration 3 sends other bytes.
sim = "simgrid"
run("sim", sim, [1.0, 60e-6, 60e-6], [1.0, 100e-6, 100e-6], [9.0, 2.5, 2.5])
PYEOF

out=$("$PY" "$VALIDATE" "$tmp/live_a.json:$tmp/sim.json" "$tmp/live_b.json:$tmp/sim.json" \
  --repeat "$tmp/live_a.json:$tmp/live_b.json" --stat median --json "$tmp/v.json" \
  --markdown "$tmp/v.md") || err "score_prediction.py exited $?"
echo "$out" | grep -q '| hsadmm 2x2 #2 | mask_sync |' || err "the repeat run is not numbered: $out"
"$PY" - "$tmp/v.json" <<'PYEOF' || err "errors differ from the hand arithmetic"
import json, math, sys
v = json.load(open(sys.argv[1]))
g, r = v["geomean_error"], v["repeat_geomean_error"]
def close(x, want, what):
    assert abs(x - want) < 1e-9, f"{what}: {x} != {want}"
# mask_sync: predicted 60 against 30 (2x) and 45 (4/3): exp(mean(ln 2, ln 4/3)) - 1.
close(g["mask_sync"], math.exp((math.log(2) + math.log(4 / 3)) / 2) - 1, "mask_sync")
# broadcast: 100 against 100 (0) and 80 (5/4).
close(g["broadcast"], math.exp(math.log(1.25) / 2) - 1, "broadcast")
close(g["local_compute"], 0.25, "local_compute")
# Repeats: A predicts B: mask_sync 30 -> 45 is 50%; broadcast 100 -> 80 is 25% (ratio error).
close(r["mask_sync"], 0.5, "repeat mask_sync")
close(r["broadcast"], 0.25, "repeat broadcast")
close(r["local_compute"], 0.0, "repeat local_compute")
assert v["bytes_iterations_checked"] == 6 and not v["bytes_differences"], v
PYEOF
grep -q '| mask_sync | 2 | 63.3% | 50.0% (1) |' "$tmp/v.md" ||
  err "summary row for mask_sync: $(grep '| mask_sync | 2' "$tmp/v.md")"

# Bad input: one line on stderr, exit 2, no output file.
expect_exit2() {
  local what=$1; shift
  "$PY" "$VALIDATE" "$@" --json "$tmp/bad.json" > /dev/null 2> "$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || err "$what: exit $rc, want 2"
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || err "$what: stderr not one line: $(cat "$tmp/err")"
  [ ! -e "$tmp/bad.json" ] || err "$what: wrote output"
}
expect_exit2 "sim first" "$tmp/sim.json:$tmp/live_a.json"
expect_exit2 "repeat of a simulation" "$tmp/live_a.json:$tmp/sim.json" --repeat "$tmp/live_a.json:$tmp/sim.json"
expect_exit2 "missing file" "$tmp/live_a.json:$tmp/nope.json"
expect_exit2 "not a pair" "$tmp/live_a.json"

[ $fail -eq 0 ] && echo "validate.sh: all checks passed"
exit $fail
