#!/usr/bin/env bash
# A sweep of at least 10,000 simulated points with --jobs, one of them killed
# (--inject-failure: its process dies as a crash would end it). Every other point must
# finish, scaling.json must list the killed one under "missing" with why, and the sweep exit
# 1; `sweep --fill` then simulates only that point, and its record equals the same point
# simulated alone (`--point`).
#
#   scripts/studies/sweep_10000.sh OUT [JOBS]   (default: the cores; PRUNEX= another build)
#
# The points: every strategy at every GPU count from 2 to 1,113, one GPU a node (1,112 sizes x
# 9 strategies = 10,008), ResNet-20 on CIFAR-10 shapes on puhti's links, one iteration each
# (about 11 minutes with --jobs 2 on a 2-core host: results/sweep_10000). Writes
# OUT/REPORT.md (counts, wall times, the missing entry, the comparison).
set -euo pipefail
source "$(dirname "$0")/study_setup.bash"
study_setup sweep_10000.sh "${1:?usage: sweep_10000.sh OUT [JOBS]}"
jobs=${2:-$(nproc)}
# (SWEEP_STRATEGIES, SWEEP_GPUS and MIN_POINTS try the script on a small sweep.)
strategies=${SWEEP_STRATEGIES:-hsadmm,hsadmm-flat,hsadmm-rail,ddp,topk,fp16,pactrain,cgx,powersgd}
gpus=${SWEEP_GPUS:-$(seq -s, 2 1113)}
args=(sweep --topology puhti --gpus-per-node 1 --model resnet20 --iterations 1 --strategy "$strategies"
      --gpus "$gpus" --jobs "$jobs")
n=$("$prunex" "${args[@]}" --count-points --out "$out/count")
(( n >= ${MIN_POINTS:-10000} )) || { echo "sweep_10000.sh: only $n points" >&2; exit 1; }
kill_at=$((n / 2 + (n > 100 ? 17 : 0)))  # a point in the middle, not a strategy's first

SECONDS=0
set +e
"$prunex" "${args[@]}" --inject-failure "$kill_at" --out "$out/killed" >"$out/killed.log" 2>&1
killed_rc=$?
set -e
killed_s=$SECONDS
(( killed_rc == 1 )) || { echo "sweep_10000.sh: the sweep with a killed point exited $killed_rc" >&2; exit 1; }
cp "$out/killed/scaling.json" "$out/killed_before_fill.json"

SECONDS=0
"$prunex" sweep --fill "$out/killed" --jobs "$jobs" >"$out/fill.log" 2>&1
fill_s=$SECONDS
# The same point alone, in a sweep of its own.
"$prunex" "${args[@]}" --point "$kill_at" --out "$out/alone" >"$out/alone.log" 2>&1

python3 - "$out" "$n" "$kill_at" "$killed_s" "$fill_s" "$jobs" <<'PY'
import json, sys
out, n, kill_at, killed_s, fill_s, jobs = sys.argv[1:]
n, kill_at = int(n), int(kill_at)
def load(p):
    return json.load(open(p))
def rows(d):  # strategy -> its points
    return {k: v for k, v in d.items() if k not in ("config", "missing", "point", "points")}
def count(d):
    return sum(len(v) for v in rows(d).values())
before = load(f"{out}/killed_before_fill.json")
filled = load(f"{out}/killed/scaling.json")
alone = load(f"{out}/alone/scaling.json")
missing = before.get("missing", [])
assert len(missing) == 1 and missing[0]["point"] == kill_at, missing
assert count(before) == n - 1, count(before)
assert not filled.get("missing") and count(filled) == n, (filled.get("missing"), count(filled))
s, g = missing[0]["strategy"], missing[0]["gpus"]
got = [r for r in rows(filled)[s] if r["gpus"] == g]
want = [r for r in rows(alone)[s] if r["gpus"] == g]
same = ("gpus", "nodes", "time_per_iteration_s", "time_per_epoch_s", "communication_share")
assert len(got) == 1 and len(want) == 1, (got, want)
assert all(got[0][k] == want[0][k] for k in same), (got, want)
m = missing[0]
with open(f"{out}/REPORT.md", "w") as f:
    f.write(f"""# A sweep of {n:,} simulated points, one of them killed

- **Command:** `scripts/studies/sweep_10000.sh {out} {jobs}` (9 strategies x 1,112 GPU counts,
  2-1,113 of one GPU a node, ResNet-20 on puhti, one iteration a point, `--jobs {jobs}`)

| run | points recorded | missing | wall |
|---|---:|---:|---:|
| point {kill_at} killed (`--inject-failure {kill_at}`, exit 1) | {count(before):,} | 1 | {int(killed_s)} s |
| `sweep --fill` of that folder | {count(filled):,} | 0 | {int(fill_s)} s |

The missing entry as scaling.json recorded it: point {m['point']}, {m['strategy']} on
{m['gpus']} GPUs ({m['nodes']} nodes): "{m['why']}". After `--fill`, its record equals the
same point simulated alone (`--point {kill_at}`): its GPUs, nodes, times per iteration and
epoch and communication share (speedup and efficiency are against a sweep's first size).
""")
print(open(f"{out}/REPORT.md").read())
PY
