#!/usr/bin/env bash
# Link what-ifs as platform options (--nic-rails, --nic-gbits, --nic-transport, --intra-gbs):
# a 1 GiB ring all-reduce on 2 ranks moves S each way, so its bus bandwidth is the link's rate
# times the transport's published achieved fraction (arithmetic below, not the code's numbers);
# simulate's header and record name the what-if (unset ones null); every link's load is in the
# record and as counter tracks in trace.json (checked against a ring's arithmetic); plot scaling and plot compare name a what-if's
# run by its settings; bad values are refused up front.
set -euo pipefail
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

busbw() {  # topology nodes gpus-per-node what-if options... -> the 1 GiB row's bus GB/s
  local topology=$1 nodes=$2 gpus=$3
  shift 3
  "$prunex" bench --backend sim --topology "$topology" --nodes "$nodes" --gpus-per-node "$gpus" \
    --op allreduce --group world --algo ring -b 1G -e 1G --json "$work/b.json" "$@" >/dev/null ||
    fail "bench $*"
  python3 -c "import json; print(json.load(open('$work/b.json'))[0]['busbw_gbs'])"
}
near() {  # got expected what: within 0.5% (the hops' latencies are ~0.04% of 1 GiB's time)
  python3 -c "import sys; g, e = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(g / e - 1) > 0.005)" \
    "$1" "$2" || fail "$3: $1 GB/s, expected $2"
}
# Over nodes: Gbit/s / 8 x fraction. TCP: 0.4 at 100 Gbit/s (nccl#450), 0.544 at 25
# (nccl-tests#83); RDMA: 0.976 (nccl-tests#29). One rail: a rank's flow crosses one NIC.
near "$(busbw puhti 2 1 --nic-rails 1 --nic-gbits 100 --nic-transport tcp)" 5.0 "100G TCP"
near "$(busbw puhti 2 1 --nic-rails 1 --nic-gbits 25 --nic-transport tcp)" 1.7 "25G TCP"
near "$(busbw puhti 2 1 --nic-rails 1 --nic-gbits 200 --nic-transport rdma)" 24.4 "200G RDMA"
near "$(busbw cloud-v100-25gbe 2 1 --nic-transport rdma)" 3.05 "the 25G preset on RDMA"
# Inside a node: puhti's pairs have 2 NVLinks at 0.8 achieved (nccl-tests#149): 2 x 10 x 0.8.
near "$(busbw puhti 1 2 --intra-gbs 10)" 16.0 "--intra-gbs 10"

# simulate: the header's what-if and the record; the answer to "one 100 Gbit/s Ethernet NIC".
"$prunex" simulate --topology puhti --nodes 4 --gpus-per-node 4 --model resnet50 --strategy ddp \
  --iterations 1 --nic-rails 1 --nic-gbits 100 --nic-transport tcp --out "$work/tcp" \
  >"$work/tcp.txt" || fail "simulate with the what-if"
"$prunex" simulate --topology puhti --nodes 4 --gpus-per-node 4 --model resnet50 --strategy ddp \
  --iterations 1 --out "$work/base" >"$work/base.txt" || fail "simulate, the baseline"
grep -q "what-if: --nic-rails 1, --nic-gbits 100, --nic-transport tcp$" "$work/tcp.txt" ||
  fail "header: $(sed -n 2p "$work/tcp.txt")"
python3 - "$work" <<'PY' || fail "records"
import json, sys
w = sys.argv[1]
t, b = (json.load(open(f"{w}/{d}/metrics.json")) for d in ("tcp", "base"))
c = t["config"]
assert (c["nic-rails"], c["nic-gbits"], c["nic-transport"], c["intra-gbs"]) == (1, 100, "tcp", None), c
# Unset what-ifs (the topology's own) are null in the record, not 0.
assert all(b["config"][k] is None for k in ("nic-rails", "nic-gbits", "nic-transport", "intra-gbs")), b["config"]
# One 100G TCP NIC (5 GB/s achieved) against two HDR100 rails (24.4): DDP's step grows.
assert t["summary"]["time_per_iteration_s"] > b["summary"]["time_per_iteration_s"], (t["summary"], b["summary"])
PY
"$prunex" simulate --config "$work/tcp/metrics.json" --out "$work/again" >/dev/null ||
  fail "--config of the what-if's record"
cmp <(python3 -c "import json; print(json.load(open('$work/tcp/metrics.json'))['iterations'])") \
  <(python3 -c "import json; print(json.load(open('$work/again/metrics.json'))['iterations'])") ||
  fail "the record's rerun differs"

# Which links bind: on 2 nodes of 1 GPU with one NIC each, a ring all-reduce of S bytes sends S
# each way over each NIC (2 (n - 1) / n S, n = 2), so every NIC link carries the record's
# inter-node bytes per iteration, at bytes / (bandwidth x time per iteration) of its rate; the
# console names the busiest.
"$prunex" simulate --topology puhti --nodes 2 --gpus-per-node 1 --nic-rails 1 --algo ring \
  --nccl-protocols false --model resnet18 --strategy ddp --iterations 2 --out "$work/links" \
  >"$work/links.txt" || fail "simulate for the links"
grep -qE "^busiest links \(of 4; .*\): n[01]_nic0_(UP|DOWN) [0-9.]+ MB [0-9.]+%" "$work/links.txt" ||
  fail "no busiest links line: $(cat "$work/links.txt")"
python3 - "$work/links/metrics.json" <<'PY' || fail "the links' loads"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
links = {l["link"]: l for l in s["links"]}
assert sorted(links) == ["n0_nic0_DOWN", "n0_nic0_UP", "n1_nic0_DOWN", "n1_nic0_UP"], sorted(links)
for l in links.values():
    assert abs(l["bytes_per_iteration"] - s["inter_node_bytes_per_iteration"]) <= 1, (l, s)
    want = l["bytes_per_iteration"] / (l["bandwidth_Bps"] * s["time_per_iteration_s"])
    assert abs(l["utilisation"] - want) <= 1e-9 and 0 < want < 1, (l, want)
# trace.json: a counter track per busy link (Perfetto), each iteration's utilisation from its
# start (both iterations alike here, so the run's), then 0 at the run's end.
t = json.load(open(sys.argv[1].replace("metrics.json", "trace.json")))["traceEvents"]
tracks = {}
for e in t:
    if e["ph"] == "C":
        tracks.setdefault(e["name"], []).append((e["ts"], e["args"]["utilisation %"]))
assert sorted(tracks) == ["link " + n for n in sorted(links)], sorted(tracks)
end = 1e6 * 2 * s["time_per_iteration_s"]
for name, points in tracks.items():
    u = 100 * links[name[5:]]["utilisation"]
    assert len(points) == 3 and points[-1] == (points[-1][0], 0), points
    assert abs(points[-1][0] - end) <= 1e-3 * end, (points, end)
    assert all(abs(v - u) <= 1e-6 * u for _, v in points[:2]), (name, points, u)
PY

# A sweep with the what-if beside its baseline: plot scaling names each curve by the settings
# it changed (none for the baseline: its unset what-ifs are not named).
for w in base tcp; do
  extra=()
  [[ $w == tcp ]] && extra=(--nic-rails 1 --nic-gbits 100 --nic-transport tcp)
  "$prunex" sweep --topology puhti --model resnet50 --gpus 8,16 --strategy ddp --iterations 1 \
    "${extra[@]}" --out "$work/sweep_$w" >/dev/null 2>&1 || fail "sweep $w"
done
if python3 -c "import matplotlib" 2>/dev/null; then
  "$prunex" plot scaling "$work/sweep_base/scaling.json" "$work/sweep_tcp/scaling.json" \
    --out "$work/two.png" >"$work/plot.txt" 2>&1 || fail "plot scaling: $(cat "$work/plot.txt")"
  grep -qF "ddp (defaults)" "$work/plot.txt" &&
    grep -qF "ddp (nic-gbits=100, nic-rails=1, nic-transport=tcp)" "$work/plot.txt" ||
    fail "plot scaling's curve names: $(cat "$work/plot.txt")"
fi

# plot compare: the what-if against its baseline, named by what it changed, its ratio the
# records' time per iteration divided (arithmetic on the records, not on the table).
if python3 -c "import matplotlib" 2>/dev/null; then
  "$prunex" plot compare "$work/base/metrics.json" "$work/tcp/metrics.json" --out "$work/cmp.png" \
    >"$work/cmp.txt" 2>&1 || fail "plot compare: $(cat "$work/cmp.txt")"
  [[ -s $work/cmp.png ]] || fail "plot compare wrote no figure"
  python3 - "$work" <<'PY' || fail "plot compare's table: $(cat "$work/cmp.txt")"
import json, re, sys
w = sys.argv[1]
t = {d: json.load(open(f"{w}/{d}/metrics.json"))["summary"]["time_per_iteration_s"] for d in ("base", "tcp")}
rows = {l.split()[0]: l for l in open(f"{w}/cmp.txt").read().splitlines()[2:]}
assert set(rows) == {"defaults", "nic-gbits=100,"}, rows
assert re.search(r"\b1\.00x", rows["defaults"]), rows["defaults"]
ratio = float(re.search(r"(\d+\.\d\d)x", rows["nic-gbits=100,"]).group(1))
assert "nic-rails=1, nic-transport=tcp" in rows["nic-gbits=100,"], rows
assert abs(ratio - t["tcp"] / t["base"]) <= 0.005, (ratio, t)
PY
  expect_refused "two or more" "$work/one.png" "$prunex" plot compare "$work/base/metrics.json" \
    --out "$work/one.png"
  # The paper's figures of the same two: named by the setting, not by their folders.
  "$prunex" plot comm-breakdown "$work/base/metrics.json" "$work/tcp/metrics.json" \
    --out "$work/bd.png" >"$work/bd.txt" 2>&1 || fail "plot comm-breakdown: $(cat "$work/bd.txt")"
  grep -qF "resnet50 / ddp (defaults): " "$work/bd.txt" &&
    grep -qF "resnet50 / ddp (nic-gbits=100, nic-rails=1, nic-transport=tcp): " "$work/bd.txt" ||
    fail "plot comm-breakdown's names: $(cat "$work/bd.txt")"
fi

expect_refused "unknown NIC transport 'udp'" "$work/bad" \
  "$prunex" simulate --topology puhti --nic-transport udp --out "$work/bad"
expect_refused "connects at most 800 NIC ports, but nodes x nic.rails = 5120" "$work/bad" \
  "$prunex" simulate --topology puhti --nodes 80 --nic-rails 64 --out "$work/bad"
expect_refused "--nic-gbits" "$work/bad" \
  "$prunex" sweep --topology puhti --gpus 8 --nic-gbits -5 --out "$work/bad"
echo "link_what_if: ok"
