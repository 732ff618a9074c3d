#!/usr/bin/env bash
# prunex reproduce: a short run (3 iterations, projection to 128 GPUs) writes report.json as a
# list of {figure, quantity, paper, ours, rel_error, note} with rel_error = |ours - paper| /
# |paper|, the paper's printed numbers in the paper column, Fig. 6 volumes equal to the
# byte arithmetic of `prunex model-info --json` x iterations, Fig. 7/8 numbers equal to the
# recorded phases, REPORT.md and the figures; bad input exits 2 and writes nothing.
set -u
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cd "$work"

for m in resnet18 wide_resnet50_2 resnet152; do
  "$prunex" model-info --model "$m" --json > "$work/$m.json" || fail "model-info $m"
done

out="$work/r"
"$prunex" reproduce --out "$out" --iterations 3 --t-freeze 2 --max-gpus 128 --union-growth 0.01 \
  > "$work/log" 2>&1 || fail "reproduce exited $?: $(tail -20 "$work/log")"
grep -q "REPORT.md" "$work/log" || fail "no pointer to REPORT.md on stdout"
# Figs. 7-9 draw the paper's values beside ours (analysis/paper_numbers.h): Fig. 9's speedups
# at 64 GPUs, Fig. 7's 0.10 and 0.50 s, Fig. 8's shares of H-SADMM's phases.
grep -qF "paper: hsadmm 6.75x at 64 GPUs" "$out/logs/plot_fig9_scaling.log" &&
  grep -qF "paper: ddp 5.81x at 64 GPUs" "$out/logs/plot_fig9_scaling.log" ||
  fail "fig9_scaling.png without the paper's values: $(cat "$out/logs/plot_fig9_scaling.log")"
grep -qF "paper: ddp 500 ms; paper: hsadmm 100 ms" "$out/logs/plot_fig7_comm_latency.log" ||
  fail "fig7_comm_latency.png without the paper's values: $(cat "$out/logs/plot_fig7_comm_latency.log")"
grep -qF "inter_allreduce 68.4%" "$out/logs/plot_fig8_comm_breakdown.log" ||
  fail "fig8_comm_breakdown.png without the paper's shares: $(cat "$out/logs/plot_fig8_comm_breakdown.log")"

python3 - "$out" "$work" <<'PY' || fail "report.json check"
import json, math, os, sys
out, work = sys.argv[1], sys.argv[2]
rows = json.load(open(f"{out}/report.json"))
assert isinstance(rows, list) and rows, "report.json is not a non-empty list"
by = {}
for r in rows:
    assert set(r) == {"figure", "quantity", "paper", "ours", "rel_error", "note"}, r
    assert isinstance(r["quantity"], str) and isinstance(r["note"], str) and r["note"], r
    assert isinstance(r["ours"], (int, float)) and math.isfinite(r["ours"]), r
    assert r["quantity"] not in by, "duplicate " + r["quantity"]
    by[r["quantity"]] = r
    if r["paper"] is None:
        assert r["rel_error"] is None, r
    else:
        want = abs(r["ours"] - r["paper"]) / abs(r["paper"])
        assert abs(r["rel_error"] - want) <= 1e-12 * max(1, want), (r, want)

# The paper's numbers as printed (sections 5.3-5.4, captions of Figs. 6-9).
paper = {"speedup_64_hsadmm": 6.75, "speedup_64_ddp": 5.81, "speedup_64_topk": 3.71,
         "efficiency_64_hsadmm": 0.844, "efficiency_64_ddp": 0.727,
         "comm_latency_hsadmm_s": 0.10, "comm_latency_ddp_s": 0.50,
         "share_inter_allreduce": 0.684, "share_intra_allreduce": 0.178,
         "share_broadcast": 0.138, "message_mib_resnet152_dense": 220,
         "message_fraction_resnet152_hsadmm": 0.40,
         "volume_gb_resnet18_dense": 2.53, "volume_gb_resnet18_hsadmm": 1.01,
         "volume_gb_wide_resnet50_2_dense": 14.88, "volume_gb_wide_resnet50_2_hsadmm": 5.97,
         "volume_gb_resnet152_dense": 13.00, "volume_gb_resnet152_hsadmm": 5.21}
for q, v in paper.items():
    assert q in by, "missing " + q
    assert by[q]["paper"] == v, (q, by[q]["paper"], v)
for q in ("speedup_128_hsadmm", "speedup_128_ddp", "speedup_128_topk",
          "speedup_128_hsadmm_g0.01", "message_fraction_128_hsadmm_g0.01"):
    assert q in by and by[q]["paper"] is None and by[q]["figure"] == "projection", q

# Fig. 6 volumes: fp32 bytes x iterations; hsadmm: channel keep 0.5 on every conv but the first
# (kept input channels floor(0.5 in + 0.5)), every other tensor whole, plus the union mask
# (out + in + in*k bits per pruned conv, in bytes) in the iterations before it freezes.
iterations, t_freeze = 3, 2
GiB = 2.0 ** 30
for m in ("resnet18", "wide_resnet50_2", "resnet152"):
    info = json.load(open(f"{work}/{m}.json"))
    dense = compact = bits = 0
    first = True
    for l in info["layers"]:
        dense += l["params"]
        if l["role"] == "conv" and not first:
            o, i = l["shape"][0], l["shape"][1]
            k = l["params"] // (o * i)
            kept = max(1, math.floor(0.5 * i + 0.5))
            compact += o * kept * k
            bits += o + i + i * k
        else:
            compact += l["params"]
        if l["role"] == "conv":
            first = False
    assert dense * 4 == info["fp32_bytes"], m
    want_dense = iterations * dense * 4 / GiB
    want_hs = (iterations * compact * 4 + t_freeze * ((bits + 7) // 8)) / GiB
    got_dense, got_hs = by[f"volume_gb_{m}_dense"]["ours"], by[f"volume_gb_{m}_hsadmm"]["ours"]
    assert abs(got_dense - want_dense) < 1e-12, (m, got_dense, want_dense)
    assert abs(got_hs - want_hs) < 1e-12, (m, got_hs, want_hs)
    red = by[f"volume_reduction_{m}"]["ours"]
    assert abs(red - (1 - want_hs / want_dense)) < 1e-12, (m, red)
    if m == "resnet152":
        assert abs(by["message_mib_resnet152_dense"]["ours"] - dense * 4 / 2**20) < 1e-9
        assert abs(by["message_fraction_resnet152_hsadmm"]["ours"] - compact / dense) < 1e-12

# Fig. 7 / 8 from the recorded phases: sum of the communication phases' critical paths per
# iteration; shares of their sums.
comm = ("intra_allreduce", "mask_sync", "inter_allreduce", "broadcast", "allreduce", "allgather")
def comm_per_phase(path):
    its = json.load(open(path))["iterations"]
    tot = {}
    for it in its:
        for p, v in it["phases"].items():
            if p in comm:
                tot[p] = tot.get(p, 0) + v["critical_path_s"]
    return tot, len(its)
tot, n = comm_per_phase(f"{out}/runs/resnet152_hsadmm/metrics.json")
assert abs(by["comm_latency_hsadmm_s"]["ours"] - sum(tot.values()) / n) < 1e-12
for p in ("inter_allreduce", "intra_allreduce", "broadcast", "mask_sync"):
    assert abs(by["share_" + p]["ours"] - tot[p] / sum(tot.values())) < 1e-12, p
shares = sum(by["share_" + p]["ours"] for p in
             ("inter_allreduce", "intra_allreduce", "broadcast", "mask_sync"))
assert abs(shares - 1) < 1e-12, shares
dtot, dn = comm_per_phase(f"{out}/runs/resnet152_ddp/metrics.json")
assert abs(by["comm_latency_ddp_s"]["ours"] - dtot["allreduce"] / dn) < 1e-12
steps = json.load(open(f"{out}/runs/resnet152_ddp/metrics.json"))["config"]["plan-repeats"]
# Every simulation ran the collectives as NCCL picks them (reproduce's default --algo nccl).
for run in ("resnet152_hsadmm", "resnet152_ddp"):
    assert json.load(open(f"{out}/runs/{run}/metrics.json"))["config"]["algo"] == "nccl", run
assert json.load(open(f"{out}/runs/fig9_sweep/scaling.json"))["config"]["algo"] == "nccl"
assert steps == 7, steps  # ceil(ceil(50000 / 64) / 128)
assert abs(by["comm_latency_ddp_step_s"]["ours"] * steps - by["comm_latency_ddp_s"]["ours"]) < 1e-12

# Fig. 9 from scaling.json: time at 8 GPUs over time at 64, and efficiency = speedup / 8.
sc = json.load(open(f"{out}/runs/fig9_sweep/scaling.json"))
for s in ("hsadmm", "ddp", "topk"):
    t = {p["gpus"]: p["time_per_epoch_s"] for p in sc[s]}
    assert abs(by[f"speedup_64_{s}"]["ours"] - t[8] / t[64]) < 1e-9, s
for s in ("hsadmm", "ddp"):
    assert abs(by[f"efficiency_64_{s}"]["ours"] - by[f"speedup_64_{s}"]["ours"] / 8) < 1e-9, s

# Reading 2: the same sweeps at the paper's rates (runs/paper_rates*.json); its speedups from
# those sweeps' times, beside the paper's numbers.
sc2 = json.load(open(f"{out}/runs/fig9_sweep_paper_rates/scaling.json"))
for s in ("hsadmm", "ddp", "topk"):
    t = {p["gpus"]: p["time_per_epoch_s"] for p in sc2[s]}
    r = by[f"speedup_64_{s}_at_paper_rates"]
    assert abs(r["ours"] - t[8] / t[64]) < 1e-9, s
    assert r["paper"] == paper[f"speedup_64_{s}"], s
assert json.load(open(f"{out}/runs/fig9_sweep_paper_rates/scaling.json"))["config"]["calibration"]

md = open(f"{out}/REPORT.md").read()
for q in paper:
    assert f"`{q}`" in md, "REPORT.md lacks " + q
for words in ("CM02", "Channel keep 0.5 cannot give 40%", "Union assumption", "## Commands",
              "prunex sweep", "source"):
    assert words in md, "REPORT.md lacks " + words
# The two readings lead, then the verdict, its counts from reading 1's headline errors.
assert md.index("## Two readings") < md.index("## Verdict") < md.index("## Headline"), "order"
head = md[md.index("## Headline"):].split("\n\n")[1]
errs = [float(l.split("|")[5].strip().rstrip("%")) for l in head.splitlines()[2:]
        if "paper's rates" not in l.split("|")[1]]
want = (sum(e <= 10 for e in errs), sum(10 < e <= 30 for e in errs), sum(e > 30 for e in errs))
import re
m = re.search(r"Of the (\d+) headline numbers the paper states, (\d+) are within 10% of ours "
              r"\(.*?\), (\d+) within 30% \(.*?\), and (\d+) differ by more", md)
assert m and int(m[1]) == len(errs) and tuple(map(int, m.groups()[1:])) == want, (m and m.groups(), want)
for f in ("fig9_scaling", "fig9_scaling_paper_rates", "fig7_comm_latency", "fig8_comm_breakdown", "fig6_message_size",
          "projection_fig9_scaling", "projection_fig7_comm_latency",
          "projection_fig8_comm_breakdown", "projection_fig6_message_size"):
    with open(f"{out}/{f}.png", "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", f
PY

# Reading 2's calibration prices the paper's phases at the paper's times on the simulated
# Puhti (16 x 4): the leaders' all-reduce of the compact buffers in 0.684 x 0.10 s (Fig. 8's
# share of Fig. 7's time), DDP's dense world all-reduce in 0.50 s.
bytes_of() {  # bytes_of GROUP: the calibration's point of that all-reduce
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))
print([int(p["bytes"]) for p in c["points"] if p["group"] == sys.argv[2] and p["op"] == "allreduce"][0])' \
    "$out/runs/paper_rates.json" "$1"
}
for case in "inter 68400" "world 500000"; do
  set -- $case
  b=$(bytes_of "$1") || fail "no $1 all-reduce among paper_rates.json's points"
  "$prunex" bench --backend sim --topology puhti --nodes 16 --gpus-per-node 4 --op allreduce \
    --group "$1" -b "$b" -e "$b" -n 1 -w 0 --calibration "$out/runs/paper_rates.json" \
    --json "$work/$1.json" > "$work/bench_$1.log" 2>&1 || fail "bench $1: $(tail "$work/bench_$1.log")"
  python3 - "$work/$1.json" "$2" <<'PY' || fail "paper_rates.json: $1 all-reduce not at the paper's time"
import json, sys
rows = json.load(open(sys.argv[1]))
got, want = rows[0]["time_us"], float(sys.argv[2])
assert abs(got / want - 1) < 0.005, (got, want)
PY
done

expect_exit2() {  # expect_exit2 WORDS ARGS...: exit 2, the words on stderr, no output folder
  local words="$1"; shift
  expect_refused "$words" "$work/bad" "$prunex" reproduce "$@" --out "$work/bad"
}
expect_exit2 "nosuchcluster" --topology nosuchcluster
expect_exit2 "--iterations" --iterations 0
expect_exit2 "--iterations" --iterations ten
expect_exit2 "--max-gpus" --max-gpus 100
expect_exit2 "--union-growth" --union-growth 1.5
expect_exit2 "--t-freeze" --t-freeze -1
expect_exit2 "unknown algorithm 'bogus'" --algo bogus
expect_exit2 "reproduce runs nccl" --algo tree
expect_exit2 "not expected: stray" stray
echo "reproduce: ok"
