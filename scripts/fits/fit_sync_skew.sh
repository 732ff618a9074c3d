#!/usr/bin/env bash
# Fits simulate's --sync-skew on a stated subset of the published suite: runs `prunex
# validate --only SUBSET --set sync-skew=CV` for CV from 0 to --max in steps of --step and
# prints, per CV, the geometric-mean error of the subset's rows with more than one GPU (the
# skew does nothing at one GPU, where the entries fit their GPU speed), then the CV with the
# smallest. The rows fitted on are reported apart from the held-out ones in the suite (their
# points name the fit with "fits"); docs/simulation.md says which subset set the default.
#
#   scripts/fits/fit_sync_skew.sh [--only dle-mxnet-resnet50] [--max 0.05] [--step 0.0005]
#                            [--out out/fit_sync_skew]
#
# Writes OUT/fit.json ({subset, rows, points: [{cv, geomean_error}], best_cv}) and prints the
# table. Needs build/bin/prunex (or the binary named by $PRUNEX).
set -euo pipefail
cd "$(dirname "$0")/../.."
only=dle-mxnet-resnet50 max=0.05 step=0.0005 out=out/fit_sync_skew
while [[ $# -gt 0 ]]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --step) step=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fit_sync_skew.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
PY=/usr/bin/python3
"$PY" -c "import sys; m, s = float(sys.argv[1]), float(sys.argv[2]); assert 0 < s <= m <= 1" \
  "$max" "$step" 2>/dev/null ||
  { echo "fit_sync_skew.sh: --max and --step must satisfy 0 < step <= max <= 1" >&2; exit 2; }
prunex=${PRUNEX:-build/bin/prunex}
[[ -x $prunex ]] || { echo "fit_sync_skew.sh: $prunex is missing (scripts/build.sh)" >&2; exit 2; }
"$prunex" validate --only "$only" --list >/dev/null ||
  { echo "fit_sync_skew.sh: --only $only names no entry" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cv in $("$PY" -c "import sys; m, s = float(sys.argv[1]), float(sys.argv[2]); \
print(' '.join(f'{i * s:.6g}' for i in range(int(round(m / s)) + 1)))" "$max" "$step"); do
  "$prunex" validate --only "$only" --no-figure --jobs 2 --set "sync-skew=$cv" \
    --out "$tmp/$cv" >/dev/null 2>"$out/validate.err" || { cat "$out/validate.err" >&2; exit 1; }
done
"$PY" - "$tmp" "$only" "$out/fit.json" <<'PY'
import json, math, os, sys
tmp, only, dest = sys.argv[1:]
points = []
for cv in sorted(os.listdir(tmp), key=float):
    rows = [r for r in json.load(open(f"{tmp}/{cv}/published.json"))["rows"] if r["gpus"] > 1]
    g = math.exp(sum(abs(math.log(r["predicted"] / r["published"])) for r in rows) / len(rows)) - 1
    points.append({"cv": float(cv), "geomean_error": g})
best = min(points, key=lambda p: p["geomean_error"])
json.dump({"subset": only, "rows": len(rows), "points": points, "best_cv": best["cv"]},
          open(dest, "w"), indent=1)
for p in points:
    print(f"sync-skew {p['cv']:<8g} geometric-mean error {100 * p['geomean_error']:.2f}%")
print(f"{only}: {len(rows)} rows with more than one GPU; best sync-skew {best['cv']:g} "
      f"({100 * best['geomean_error']:.2f}%, against {100 * points[0]['geomean_error']:.2f}% at 0)")
PY
rm -f "$out/validate.err"
echo "wrote $out/fit.json"
