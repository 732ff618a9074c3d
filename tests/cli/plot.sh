#!/usr/bin/env bash
# `prunex plot`: every figure kind renders to a valid PNG and SVG from fixtures written here,
# and the one-line summary each script prints carries numbers that match what this test
# computes from the fixtures by hand (means, shares, sums, norms); bad input exits 2 with one
# line on stderr and leaves no file.
set -u
PRUNEX=${1:?usage: plot.sh PATH_TO_PRUNEX}
PY=/usr/bin/python3  # Debian's, with matplotlib (scripts/setup.sh)
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
tmp=$work

"$PY" -c 'import matplotlib' 2>/dev/null || { echo "FAIL: $PY has no matplotlib" >&2; exit 1; }

# Fixtures and the numbers the summaries must report, computed independently here.
"$PY" - "$tmp" <<'PYEOF' || err "fixtures"
import json, math, random, sys
d = sys.argv[1]
rng = random.Random(7)
expect = {}

# scaling.json: speedup and efficiency from the epoch times, relative to 8 GPUs.
times = {"hsadmm": [100, 52, 27, 14.5], "ddp": [100, 60, 38, 27], "topk": [100, 56, 33, 21]}
gpus = [8, 16, 32, 64]
scaling = {"config": {"model": "resnet152"}}
for s, ts in times.items():
    scaling[s] = [{"gpus": g, "nodes": g // 4, "time_per_epoch_s": t, "speedup": ts[0] / t,
                   "efficiency": ts[0] / t / (g / 8)} for g, t in zip(gpus, ts)]
json.dump(scaling, open(f"{d}/scaling.json", "w"))
expect["scaling"] = {s: (ts[0] / ts[-1], 100 * ts[0] / ts[-1] / 8) for s, ts in times.items()}

PHASES = {"hsadmm": ["intra_allreduce", "mask_sync", "inter_allreduce", "broadcast"],
          "ddp": ["allreduce"], "topk": ["allgather"]}
LAYERS = ["conv1.weight", "conv2.weight", "fc.weight"]
ranks, iters = 4, 5

def run(strategy, keep, model="resnet20"):
    its, comm, shares = [], [], {p: 0.0 for p in PHASES[strategy]}
    t = b = 0.0
    density = 0.0 if strategy != "hsadmm" else None
    for i in range(1, iters + 1):
        phases = {"local_compute": {"critical_path_s": 2.0, "per_rank_s": [2.0] * ranks}}
        c = 0.0
        for p in PHASES[strategy]:
            per = [rng.uniform(0.01, 0.2) for _ in range(ranks)]
            phases[p] = {"critical_path_s": max(per), "per_rank_s": per}
            c += max(per)
            shares[p] += max(per)
        comm.append(c)
        wall = 2.0 + c
        inter = {"hsadmm": 4000 * keep, "ddp": 40000, "topk": 400}[strategy] + i
        res = {}
        if strategy == "hsadmm":
            res = {l: [{"r_intra": rng.uniform(0.1, 1) / i, "s_intra": rng.uniform(0.01, 0.1),
                        "r_inter": rng.uniform(0.1, 1) / i if r % 2 == 0 else 0.0,
                        "s_inter": rng.uniform(0.01, 0.1) if r % 2 == 0 else 0.0}
                       for r in range(ranks)] for l in LAYERS}
        dens = {l: keep + 0.05 * (k - 1) for k, l in enumerate(LAYERS)} if strategy == "hsadmm" else {}
        acc = 0.5 + 0.08 * i * (1 if strategy != "topk" else 0.5)
        t += wall
        b += inter
        its.append({"iteration": i, "phases": phases, "wall_seconds": wall,
                    "bytes": {"intra": 3 * inter if strategy == "hsadmm" else 0, "inter": inter,
                              "world": inter},
                    "dense_inter_bytes": 40000, "density": dens, "residuals": res,
                    "rho": {}, "loss": 1.0 / i, "accuracy": acc, "test_loss": 1.0 / i,
                    "lr": 0.1, "mask_frozen": i > 2})
    m = {"config": {"strategy": strategy, "model": model, "keep": keep}, "ranks": ranks,
         "iterations": its, "summary": {"test_accuracy": its[-1]["accuracy"]}}
    total_comm = sum(comm)
    e = {"label": f"{model} / {strategy}", "comm_mean": total_comm / iters,
         "shares": {p: 100 * v / total_comm for p, v in shares.items()},
         "inter_total": b, "dense_total": 40000 * iters, "final_acc": 100 * its[-1]["accuracy"],
         "time": t, "sparsity": 100 * (1 - sum(dens.values()) / len(dens)) if dens else 0.0}
    if strategy == "hsadmm":
        last = its[-1]["residuals"]
        e["primal"] = [math.sqrt(sum(last[l][r]["r_intra"] ** 2 + last[l][r]["r_inter"] ** 2
                                     for l in LAYERS)) for r in range(ranks)]
        e["primal_conv2"] = [math.hypot(last["conv2.weight"][r]["r_intra"],
                                        last["conv2.weight"][r]["r_inter"]) for r in range(ranks)]
    return m, e

runs = {}
for name, strategy, keep in [("hs", "hsadmm", 0.5), ("ddp", "ddp", 1.0), ("topk", "topk", 1.0),
                             ("hs25", "hsadmm", 0.25), ("hs75", "hsadmm", 0.75)]:
    m, e = run(strategy, keep)
    json.dump(m, open(f"{d}/{name}.json", "w"))
    runs[name] = e
expect["runs"] = runs

# masks.json: exact kept counts -> kept weight share.
masks = {"layers": {
    "conv2.weight": {"shape": [16, 8, 3, 3], "keep_out": [1, 0] * 8, "keep_in": [1, 1, 0, 0] * 2},
    "fc.weight": {"shape": [10, 64], "keep_out": [1] * 10, "keep_in": [1] * 48 + [0] * 16}}}
json.dump(masks, open(f"{d}/masks.json", "w"))
expect["mask"] = {"conv2.weight": (8, 4, 25.0), "fc.weight": (10, 48, 75.0)}
json.dump(expect, open(f"{d}/expect.json", "w"))
PYEOF

# Renders KIND to PNG (and to SVG while exts says so), checks the files, keeps the summary
# line in $tmp/KIND.txt. Every kind saves through common.py's one save(), which picks the
# format from the extension: SVG is checked on the first kind only (each render starts
# Python and matplotlib: about 2 s here).
exts="png svg"
render() {
  local kind=$1; shift
  for ext in $exts; do
    local out="$tmp/out/$kind.$ext"
    "$PRUNEX" plot "$kind" "$@" --out "$out" >"$tmp/$kind.$ext.txt" 2>"$tmp/$kind.err" ||
      { err "$kind $ext: exit $? ($(head -c 300 "$tmp/$kind.err"))"; continue; }
    [[ -s $out ]] || { err "$kind: $out missing or empty"; continue; }
    if [[ $ext == png ]]; then
      [[ $(head -c 8 "$out" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
        err "$kind: $out is not a PNG"
    else
      grep -q '<svg' "$out" || err "$kind: $out has no <svg"
    fi
    [[ $(wc -l <"$tmp/$kind.$ext.txt") -eq 1 ]] || err "$kind: summary is not one line"
  done
  cp "$tmp/$kind.png.txt" "$tmp/$kind.txt" 2>/dev/null
}

render scaling "$tmp/scaling.json"
exts=png
# Two sweeps that differ in a setting: each curve is named by it, not by its file (an unset
# one, null, as "defaults").
python3 -c "import json, sys; s = json.load(open(sys.argv[1])); s['config']['topology'] = 'ethernet-1g'; json.dump(s, open(sys.argv[2], 'w'))" \
  "$tmp/scaling.json" "$tmp/scaling_eth.json"
"$PRUNEX" plot scaling "$tmp/scaling.json" "$tmp/scaling_eth.json" --out "$tmp/out/two.png" \
  >"$tmp/two.txt" 2>&1 || err "scaling of two files: $(cat "$tmp/two.txt")"
grep -qF "hsadmm (defaults)" "$tmp/two.txt" && grep -qF "hsadmm (topology=ethernet-1g)" "$tmp/two.txt" ||
  err "scaling of two files: curves not named by the setting that differs: $(cat "$tmp/two.txt")"
# --reference: published values drawn beside the curves, named in the summary as given.
echo '{"label": "paper", "speedup": {"hsadmm": {"64": 6.75}}, "efficiency": {"hsadmm": {"64": 0.844}}}' \
  >"$tmp/ref.json"
"$PRUNEX" plot scaling "$tmp/scaling.json" --reference "$tmp/ref.json" --out "$tmp/out/ref.png" \
  >"$tmp/ref.txt" 2>&1 || err "scaling --reference: $(cat "$tmp/ref.txt")"
grep -qF "; paper: hsadmm 6.75x at 64 GPUs" "$tmp/ref.txt" || err "scaling --reference: $(cat "$tmp/ref.txt")"
echo '{"label": "paper", "speedup": {"hsadmm": {"sixty-four": 6.75}}}' >"$tmp/badref.json"
# comm-latency: a dashed line per strategy; comm-breakdown: a bar of hsadmm's total split in the
# reference's shares (0.6 x the hsadmm run's mean, to the printed precision).
echo '{"label": "paper", "comm_seconds": {"ddp": 0.5}, "phase_share": {"inter_allreduce": 0.6, "intra_allreduce": 0.4}}' \
  >"$tmp/ref78.json"
"$PRUNEX" plot comm-latency "$tmp/hs.json" "$tmp/ddp.json" --reference "$tmp/ref78.json" \
  --out "$tmp/out/ref7.png" >"$tmp/ref7.txt" 2>&1 || err "comm-latency --reference: $(cat "$tmp/ref7.txt")"
grep -qF "; paper: ddp 500 ms" "$tmp/ref7.txt" || err "comm-latency --reference: $(cat "$tmp/ref7.txt")"
"$PRUNEX" plot comm-breakdown "$tmp/hs.json" "$tmp/ddp.json" --reference "$tmp/ref78.json" \
  --out "$tmp/out/ref8.png" >"$tmp/ref8.txt" 2>&1 || err "comm-breakdown --reference: $(cat "$tmp/ref8.txt")"
grep -qE "hsadmm: paper's shares: [0-9.]+ [mµ]?s \((inter_allreduce 60.0% intra_allreduce 40.0%|intra_allreduce 40.0% inter_allreduce 60.0%)\)" \
  "$tmp/ref8.txt" || err "comm-breakdown --reference: $(cat "$tmp/ref8.txt")"
python3 - "$tmp/ref8.txt" <<'PY' || err "comm-breakdown --reference: the paper's bar is not the hsadmm run's total"
import re, sys
line = open(sys.argv[1]).read()
totals = re.findall(r"(resnet\S* / hsadmm|hsadmm: paper's shares): ([0-9.]+ [mµ]?s)", line)
assert len(totals) == 2 and totals[0][1] == totals[1][1], totals
PY
render comm-latency "$tmp/hs.json" "$tmp/ddp.json" "$tmp/topk.json"
render comm-breakdown "$tmp/hs.json" "$tmp/ddp.json" "$tmp/topk.json"
render message-size "$tmp/hs.json" "$tmp/ddp.json" "$tmp/topk.json"
render residuals "$tmp/hs.json"
render accuracy "$tmp/hs.json" "$tmp/ddp.json" "$tmp/topk.json"
render sparsity-accuracy "$tmp/hs25.json" "$tmp/hs.json" "$tmp/hs75.json" "$tmp/ddp.json"
render mask "$tmp/masks.json"
cat >"$tmp/stragglers.json" <<'JSON'
{"rows": [{"strategy": "ddp", "gpus": 64, "factor": 2, "slowdown": 1.25},
          {"strategy": "hsadmm", "gpus": 64, "factor": 2, "slowdown": 1.875}], "config": {}}
JSON
render stragglers "$tmp/stragglers.json"
grep -q "stragglers: ddp 64 GPUs 1.250x; hsadmm 64 GPUs 1.875x" "$tmp/stragglers.txt" ||
  err "stragglers summary: $(cat "$tmp/stragglers.txt")"
"$PRUNEX" plot residuals "$tmp/hs.json" --layer conv2.weight --out "$tmp/out/res2.png" \
  >"$tmp/residuals-layer.txt" || err "residuals --layer"
"$PRUNEX" plot mask "$tmp/masks.json" --layer fc.weight --out "$tmp/out/fc.png" \
  >"$tmp/mask-layer.txt" || err "mask --layer"

# The summaries against the hand-computed numbers.
"$PY" - "$tmp" <<'PYEOF' || err "summary numbers differ from the fixtures' arithmetic"
import json, re, sys
d = sys.argv[1]
E = json.load(open(f"{d}/expect.json"))
R = E["runs"]
bad = []
def line(kind):
    return open(f"{d}/{kind}.txt").read().strip()
def close(got, want, rel, what):
    if abs(float(got) - want) > rel * max(abs(want), 1e-12):
        bad.append(f"{what}: got {got}, expected {want:.6g}")
def unit_s(num, unit):
    return float(num) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[unit]

s = line("scaling")
if "3 curves, speedup at 64 GPUs" not in s: bad.append(s)
for strat, (sp, eff) in E["scaling"].items():
    m = re.search(rf"\b{strat} ([\d.]+)x \(([\d.]+)%\)", s)
    if not m: bad.append(f"scaling: {strat} missing in {s}"); continue
    close(m[1], sp, 0.005, f"scaling {strat} speedup"); close(m[2], eff, 0.002, f"{strat} efficiency")

s = line("comm-latency")
for k in ("hs", "ddp", "topk"):
    m = re.search(re.escape(R[k]["label"]) + r" ([\d.]+) (s|ms|µs)", s)
    if not m: bad.append(f"comm-latency: {k} missing in {s}"); continue
    close(unit_s(m[1], m[2]), R[k]["comm_mean"], 0.002, f"comm-latency {k}")

s = line("comm-breakdown")
for k in ("hs", "ddp", "topk"):
    part = s.split(R[k]["label"] + ":")[1].split(";")[0]
    for p, share in R[k]["shares"].items():
        m = re.search(rf"\b{p} ([\d.]+)%", part)
        if not m: bad.append(f"comm-breakdown {k}: {p} missing in {part}"); continue
        close(m[1], share, 0.002, f"comm-breakdown {k} {p} share")

s = line("message-size")
for k in ("hs", "ddp", "topk"):
    m = re.search(re.escape(R[k]["label"]) + r" (\d+) B \(dense (\d+) B\)", s)
    if not m: bad.append(f"message-size: {k} missing in {s}"); continue
    close(m[1], R[k]["inter_total"], 1e-9, f"{k} inter total")
    close(m[2], R[k]["dense_total"], 1e-9, f"{k} dense total")

s = line("accuracy")
for k in ("hs", "ddp", "topk"):
    m = re.search(re.escape(R[k]["label"]) + r" ([\d.]+)% after ([\d.]+) s and (\d+) B", s)
    if not m: bad.append(f"accuracy: {k} missing in {s}"); continue
    close(m[1], R[k]["final_acc"], 1e-3, f"{k} accuracy")
    close(m[2], R[k]["time"], 1e-3, f"{k} time")
    close(m[3], R[k]["inter_total"], 1e-9, f"{k} bytes")

s = line("residuals")
got = s.split("(whole model): ")[1].split()
for r, want in enumerate(R["hs"]["primal"]):
    close(got[r], want, 1e-3, f"residual rank {r}")
s = open(f"{d}/residuals-layer.txt").read()
got = s.split("(layer conv2.weight): ")[1].split()
for r, want in enumerate(R["hs"]["primal_conv2"]):
    close(got[r], want, 1e-3, f"conv2 residual rank {r}")

s = line("sparsity-accuracy")
pairs = re.findall(r"([\d.]+)% -> ([\d.]+)%", s)
want = sorted((R[k]["sparsity"], R[k]["final_acc"]) for k in ("hs25", "hs", "hs75")) + \
       [(0.0, R["ddp"]["final_acc"])]
if len(pairs) != len(want): bad.append(f"sparsity-accuracy: {s}")
for (gs, ga), (ws, wa) in zip(pairs, want):
    close(gs, ws, 1e-3, "sparsity"); close(ga, wa, 1e-3, "accuracy at sparsity")

s = line("mask") + " " + open(f"{d}/mask-layer.txt").read()
for name, (o, i, pct) in E["mask"].items():
    m = re.search(re.escape(name) + r" (\d+)/\d+ out (\d+)/\d+ in ([\d.]+)%", s)
    if not m: bad.append(f"mask: {name} missing in {s}"); continue
    if (int(m[1]), int(m[2])) != (o, i): bad.append(f"mask {name}: kept {m[1]}, {m[2]}")
    close(m[3], pct, 1e-3, f"mask {name} share")
if "mask: 1 layers: fc.weight" not in open(f"{d}/mask-layer.txt").read(): bad.append("--layer")
for b in bad: print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PYEOF

# Bad input: exit 2, one line on stderr, no output file (nor temporary left behind).
bad_case() {
  local what=$1; shift
  local out="$tmp/bad/x.png"
  mkdir -p "$tmp/bad"
  "$PRUNEX" plot "$@" --out "$out" >/dev/null 2>"$tmp/bad.err"
  local rc=$?
  [[ $rc -eq 2 ]] || err "$what: exit $rc, expected 2"
  [[ $(wc -l <"$tmp/bad.err") -eq 1 ]] || err "$what: stderr is not one line: $(cat "$tmp/bad.err")"
  [[ -z $(ls -A "$tmp/bad") ]] || err "$what: left $(ls -A "$tmp/bad")"
}
echo '{"config": {}, "ranks": 4}' >"$tmp/noiter.json"
echo '{not json' >"$tmp/broken.json"
echo '{"layers": {"a": {"shape": [4, 2], "keep_out": [1, 0, 1], "keep_in": [1, 1]}}}' >"$tmp/m3.json"
bad_case "missing file" accuracy "$tmp/nope.json"
bad_case "unknown kind" pie "$tmp/hs.json"
bad_case "a reference of no GPU count" scaling "$tmp/scaling.json" --reference "$tmp/badref.json"
bad_case "a reference for another kind" message-size "$tmp/hs.json" --reference "$tmp/ref.json"
bad_case "shares without an hsadmm run" comm-breakdown "$tmp/ddp.json" --reference "$tmp/ref78.json"
bad_case "a missing reference" scaling "$tmp/scaling.json" --reference "$tmp/nope.json"
bad_case "not JSON" comm-latency "$tmp/broken.json"
bad_case "metrics without iterations" comm-breakdown "$tmp/noiter.json"
bad_case "scaling fed a metrics.json" scaling "$tmp/hs.json"
bad_case "residuals of a baseline" residuals "$tmp/ddp.json"
bad_case "unknown layer" residuals "$tmp/hs.json" --layer nope
bad_case "mask length differs from shape" mask "$tmp/m3.json"
bad_case "--layer on a kind without layers" accuracy "$tmp/hs.json" --layer conv2.weight
bad_case "no inputs" accuracy
bad_case "stragglers fed a metrics.json" stragglers "$tmp/hs.json"
"$PRUNEX" plot accuracy "$tmp/hs.json" --out "$tmp/bad/x.pdf" 2>/dev/null
[[ $? -eq 2 && -z $(ls -A "$tmp/bad") ]] || err ".pdf output accepted"
"$PRUNEX" plot --help | grep -q "sparsity-accuracy:" || err "--help does not list the kinds"

[[ $fail -eq 0 ]] && echo "plot: all checks passed"
exit $fail
