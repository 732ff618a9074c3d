#!/usr/bin/env bash
# prunex winners on a small grid (puhti, resnet20, 8 and 16 GPUs, NICs at 1 and 100 Gbit/s,
# hsadmm, ddp and powersgd), against `prunex simulate` run by hand at the same points: every
# cell's times are simulate's time per epoch (--nic-gbits as the column), its winner the
# fastest, its margin the runner-up's time over the winner's; the crossover is recomputed
# from the times (t_ddp / t_hsadmm crossing 1, interpolated in log bandwidth); --accuracy
# puts the measured cost in the verdict; the map draws; bad input exits 2 with one line and
# writes nothing; the record's config reruns the same grid.
set -euo pipefail
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

grid=(--topology puhti --model resnet20 --gpus 8,16 --bandwidths 1,100 --iterations 2
      --strategy hsadmm,ddp,powersgd --jobs 2)
"$prunex" winners "${grid[@]}" \
  --accuracy results/fashion_mnist/hsadmm/metrics.json,results/fashion_mnist/ddp/metrics.json \
  --out "$work/w" >"$work/w.txt" 2>"$work/w.err" || fail "winners: $(cat "$work/w.err")"
grep -q "GPUs" "$work/w.txt" || fail "no map on stdout: $(cat "$work/w.txt")"

for g in 8 16; do
  for b in 1 100; do
    for s in hsadmm ddp powersgd; do
      "$prunex" simulate --topology puhti --model resnet20 --nodes $((g / 4)) --iterations 2 \
        --strategy $s --nic-gbits $b --out "$work/sim/$g-$b-$s" >/dev/null 2>&1 ||
        fail "simulate $g $b $s"
    done
  done
done

python3 - "$work" <<'PY'
import json, math, sys
work = sys.argv[1]
w = json.load(open(f"{work}/w/winners.json"))
assert w["bandwidths_gbits"] == [1, 100] and w["gpus"] == [8, 16], (w["bandwidths_gbits"], w["gpus"])
assert len(w["cells"]) == 4, len(w["cells"])
ratios = {}
for c in w["cells"]:
    g, b = c["gpus"], c["nic_gbits"]
    sim = {s: json.load(open(f"{work}/sim/{g}-{b:g}-{s}/metrics.json"))["summary"]["time_per_epoch_s"]
           for s in ("hsadmm", "ddp", "powersgd")}
    for s, t in sim.items():
        assert abs(c["epoch_s"][s] / t - 1) < 1e-9, (g, b, s, c["epoch_s"][s], t)
        band = c["bands"][s]
        assert band is None or band["low"] < 0 < band["high"], band
    order = sorted(sim, key=sim.get)
    assert c["winner"] == order[0] and c["runner_up"] == order[1], (c, sim)
    assert abs(c["margin"] - sim[order[1]] / sim[order[0]]) < 1e-9, c
    assert abs(c["ddp_over_winner"] - sim["ddp"] / sim[order[0]]) < 1e-9, c
    ratios.setdefault(g, {})[b] = sim["ddp"] / sim["hsadmm"]
    # The measured cost: hsadmm 89.65%, ddp 91.89% (results/fashion_mnist): -2.2 points.
    if c["winner"] == "hsadmm":
        assert "-2.2 points of accuracy" in c["verdict"], c["verdict"]
for x in w["crossovers"]:
    r1, r2 = ratios[x["gpus"]][1], ratios[x["gpus"]][100]
    if (r1 > 1) == (r2 > 1):
        assert x["hsadmm_pays"] == ("everywhere" if r1 > 1 else "nowhere"), x
        assert x["crossings_gbits"] == [], x
    else:
        want = math.exp(math.log(1) + (math.log(100) - math.log(1)) * (r1 - 1) / (r1 - r2))
        assert x["hsadmm_pays"] == ("below" if r1 > 1 else "above"), x
        assert abs(x["crossings_gbits"][0] / want - 1) < 1e-9, (x, want)
assert abs(w["accuracy"]["hsadmm"]["accuracy"] - 0.8965) < 1e-9, w["accuracy"]
print("winners:", [(c["gpus"], c["nic_gbits"], c["winner"], round(c["margin"], 3)) for c in w["cells"]],
      w["crossovers"])
PY

# The record's config reruns the grid: the same cells.
"$prunex" winners --config "$work/w/winners.json" --out "$work/again" >/dev/null 2>&1 ||
  fail "winners --config its own record: $("$prunex" winners --config "$work/w/winners.json" \
    --out "$work/again2" 2>&1 | tail -1)"
python3 - "$work/w/winners.json" "$work/again/winners.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["bandwidths_gbits"] == b["bandwidths_gbits"] and a["gpus"] == b["gpus"], (a, b)
assert [c["epoch_s"] for c in a["cells"]] == [c["epoch_s"] for c in b["cells"]]
PY

"$prunex" plot winners "$work/w/winners.json" --out "$work/map.png" >/dev/null 2>"$work/plot.err" ||
  fail "plot winners: $(cat "$work/plot.err")"
[ -s "$work/map.png" ] || fail "no map.png"

# Bad input: one line, exit 2, no --out.
expect_refused "--bandwidths takes Gbit/s above 0" "$work/bad" "$prunex" winners \
  --topology puhti --bandwidths 0,10 --out "$work/bad"
expect_refused "--bandwidths names 10 twice" "$work/bad" "$prunex" winners --topology puhti \
  --bandwidths 10,10 --out "$work/bad"
expect_refused "not a metrics.json of prunex train" "$work/bad" "$prunex" winners \
  --topology puhti --accuracy "$work/w/winners.json" --out "$work/bad"
expect_refused "unknown strategy" "$work/bad" "$prunex" winners --topology puhti \
  --strategy gossip --out "$work/bad"
echo "winners: ok"
