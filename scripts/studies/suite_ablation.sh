#!/usr/bin/env bash
# The ablation of docs/simulation.md's "Against published training measurements": `prunex
# validate` on the published suite with each default mechanism switched off in turn (--set),
# the defaults, the defaults without the entries' own step overhead or Horovod cycle (copies
# of the suite without those keys, --suite), and three options on top of the defaults. For
# each: the geometric-mean error of the held-out rows (and of those at a fitted GPU speed, the
# entries not named *-at-preset*), the rows beyond 20%, the held-out entries with several
# sizes whose efficiency trend is right in sign, and the median of how much more the published
# per-GPU cost grows from the fewest to the most GPUs than the predicted one (points).
#
#   scripts/studies/suite_ablation.sh [--out out/validate_ablation]
#
# Writes OUT/<variant>/published.json for every variant, OUT/ablation.json and
# OUT/ablation.md (the table), and prints the table. About 40 s on 2 cores (12 runs of validate). Needs
# build/bin/prunex (or $PRUNEX).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=out/validate_ablation
while [[ $# -gt 0 ]]; do
  case $1 in
    --out)
      [[ $# -ge 2 ]] || { echo "suite_ablation.sh: --out needs a value" >&2; exit 2; }
      out=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "suite_ablation.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3
prunex=${PRUNEX:-build/bin/prunex}
[[ -x $prunex ]] || { echo "suite_ablation.sh: $prunex is missing (scripts/build.sh)" >&2; exit 2; }
[[ ! -e $out || -z $(ls -A "$out") ]] || { echo "suite_ablation.sh: $out is not empty" >&2; exit 2; }
mkdir -p "$out"

# Copies of the suite without one key in every entry and point.
strip_suite() {  # strip_suite KEY DIR
  cp -r validation/published "$2"
  "$PY" - "$1" "$2" <<'PY'
import glob, json, sys
key, folder = sys.argv[1:]
for path in glob.glob(folder + "/*.json"):
    suite = json.load(open(path))
    for e in suite.get("entries", []):
        e.get("simulate", {}).pop(key, None)
        for p in e.get("points", []):
            p.get("simulate", {}).pop(key, None)
    json.dump(suite, open(path, "w"), indent=2)
PY
}
strip_suite step-overhead-ms "$out/suite-no-step-overhead"
strip_suite horovod-cycle-ms "$out/suite-no-horovod-cycle"

# name|validate options|label
variants=(
  "none|--set achieved-bandwidth=false,interference=1,ddp-overhead-passes=0,sync-skew=0,call-latency=false|none (signalling rates, no interference, no DDP overhead, no skew, no call latency)"
  "achieved-only|--set interference=1,ddp-overhead-passes=0,sync-skew=0,call-latency=false|achieved bandwidths only"
  "no-interference|--set interference=1|all but interference"
  "no-ddp-overhead|--set ddp-overhead-passes=0|all but DDP's overhead"
  "no-achieved|--set achieved-bandwidth=false|all but achieved bandwidths"
  "no-skew|--set sync-skew=0|all but the sync skew"
  "no-call-latency|--set call-latency=false|all but NCCL's base latency per call"
  "defaults||**all five (the defaults)**"
  "no-step-overhead|--suite $out/suite-no-step-overhead|the defaults without the MLPerf entries' step overhead"
  "no-horovod-cycle|--suite $out/suite-no-horovod-cycle|the defaults without the entries' Horovod cycle"
  "nccl-protocols|--set nccl-protocols=true|defaults + \`--nccl-protocols true\`"
  "tree|--set algo=tree|defaults + \`--algo tree\`"
  "ring|--set algo=ring|defaults + \`--algo ring\`"
  "layers|--set compute-cost=layers|defaults + \`--compute-cost layers\`"
)
labels=()
for v in "${variants[@]}"; do
  IFS='|' read -r name opts label <<<"$v"
  echo "validate_ablation: $name" >&2
  # shellcheck disable=SC2086  # opts is a list of options
  "$prunex" validate $opts --no-figure --out "$out/$name" >"$out/$name.log" 2>&1 ||
    { echo "suite_ablation.sh: $name failed: $(tail -3 "$out/$name.log")" >&2; exit 1; }
  labels+=("$name|$label")
done

"$PY" - "$out" "${labels[@]}" <<'PY'
import json, math, statistics, sys
out, variants = sys.argv[1], [v.split("|", 1) for v in sys.argv[2:]]
def gm(rows):
    return math.exp(sum(abs(math.log(r["predicted"] / r["published"])) for r in rows) / len(rows)) - 1
table, lines = [], []
for name, label in variants:
    d = json.load(open(f"{out}/{name}/published.json"))
    held = [r for r in d["rows"] if not r["fit"]]
    fitted = [r for r in held if "-at-preset" not in r["entry"]]
    held_entries = {r["entry"] for r in held}
    trends = [e["trend"] for e in d["entries"]
              if e["id"] in held_entries and e.get("trend") and e["trend"].get("published_cost_change") is not None]
    short = [100 * (t["published_cost_change"] - t["predicted_cost_change"]) for t in trends]
    row = {"variant": name, "label": label, "rows": len(held), "geomean": gm(held),
           "fitted_rows": len(fitted), "fitted_geomean": gm(fitted),
           "beyond_20": sum(abs(r["predicted"] / r["published"] - 1) > 0.2 for r in held),
           "trends_right": sum(t["agrees"] for t in trends), "trends": len(trends),
           "scaling_loss_short_points": statistics.median(short)}
    table.append(row)
n = table[0]
lines.append(f"| model | geometric-mean error ({n['rows']} rows; {n['fitted_rows']} at fitted speeds) "
             f"| rows beyond 20% | trend right in sign | scaling loss short by |")
lines.append("|---|---:|---:|---:|---:|")
for r in table:
    lines.append(f"| {r['label']} | {100 * r['geomean']:.1f}% ({100 * r['fitted_geomean']:.1f}%) | "
                 f"{r['beyond_20']} | {r['trends_right']} of {r['trends']} | "
                 f"{r['scaling_loss_short_points']:.1f} points |")
json.dump(table, open(f"{out}/ablation.json", "w"), indent=1)
open(f"{out}/ablation.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
