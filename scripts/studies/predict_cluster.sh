#!/usr/bin/env bash
# The calibration loop, prediction side: calibrates a topology from the measurements of a live
# cluster (scripts/slurm/calibration_loop.sbatch on a SLURM cluster, or scripts/gpu/gpu_check.sh's
# OUT/calibration-runs on one lent GPU) and predicts the held-out live runs there, per phase
# (analysis/score_prediction.py). Runs where SimGrid is; the cluster needs none.
#
#   scripts/studies/predict_cluster.sh RUNS [--out DIR] [--topology NAME|FILE]
#       [--links absolute|relative] [--host-cores N] [--algo ring|mpi] [--fit piecewise|line]
#
# RUNS holds:
#   bench_*.json        prunex bench --backend nccl|mpi, every op and group (all are fitted)
#   memory.json         prunex bench --op compaction (its memcpy row; optional)
#   steps-*/            calibration runs: their local steps give the compute speed, their
#                       memory phases the consensus kernels' speeds
#   live-*/             held-out runs (other strategies, other shapes), predicted here
# Every run has --sync-phases true (phases time communication alone): the simulations run
# with no synchronisation skew (--sync-skew 0: the phase barriers take it) and no PyTorch DDP
# overhead or interference (prunex's own trainer). Each simulation takes its held-out run's
# settings from its metrics.json config, and hsadmm's masks from it.
# Options (defaults in brackets):
#   --out DIR           where the calibration, simulations and tables go [RUNS/validate]
#   --topology T        the topology calibrated [localhost: every link from the benches]; a
#                       cluster's preset (puhti) keeps its shape and takes the fitted links
#   --links L           absolute [default]: the fitted links replace the topology's (one path
#                       per node); relative: the fit is kept relative to T's links, so rails
#                       and link speeds stay T's (T must be the links the benches ran on: an
#                       emulated cluster's --topology-out file, or the site's own)
#   --host-cores N      cores the ranks of all nodes share [0: none shared, one GPU or host
#                       per rank]; the local SLURM cluster's nodes share this machine's cores
#   --algo, --fit       prunex calibrate's [ring, piecewise: each op interpolated between the
#                       benched sizes, the benches on the runs' own shape]; mpi and line
#                       extrapolate a bench on 2 ranks to more (scripts/studies/predict_emulated.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "predict_cluster.sh: $*" >&2; exit 2; }
runs="" out="" topology=localhost links=absolute host_cores=0 algo=ring fit=piecewise
value() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value (--help)"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --out|--topology|--links|--host-cores|--algo|--fit) value "$@" ;;&
    --out) out=$2; shift 2 ;;
    --topology) topology=$2; shift 2 ;;
    --links) links=$2; shift 2 ;;
    --host-cores) host_cores=$2; shift 2 ;;
    --algo) algo=$2; shift 2 ;;
    --fit) fit=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (--help)" ;;
    *) [[ -z $runs ]] || die "one RUNS folder, got '$runs' and '$1'"; runs=$1; shift ;;
  esac
done
[[ -n $runs ]] || die "missing RUNS (--help)"
[[ -d $runs ]] || die "no folder $runs"
out=${out:-$runs/validate}
prunex=build/bin/prunex
[[ -x $prunex ]] || die "build first (scripts/build.sh)"
shopt -s nullglob
benches=("$runs"/bench_*.json) steps=("$runs"/steps-*/metrics.json) lives=("$runs"/live-*/metrics.json)
shopt -u nullglob
[[ ${#benches[@]} -gt 0 ]] || die "no bench_*.json in $runs"
[[ ${#steps[@]} -gt 0 ]] || die "no calibration run (steps-*/metrics.json) in $runs"
[[ ${#lives[@]} -gt 0 ]] || die "no held-out run (live-*/metrics.json) in $runs"
# Every held-out run's settings first, so a file that is not a run stops before any work.
settings=()
for metrics in "${lives[@]}"; do
  # The simulation's settings from the live run's record: its shape, model and data, and its
  # strategy's own options only (simulate warns about the others).
  mapfile -t one < <(/usr/bin/python3 - "$metrics" <<'PY'
import json, sys
path = sys.argv[1]
try:
    c = json.load(open(path))["config"]
    s = c["strategy"]
    out = ["--nodes", c["nodes"], "--gpus-per-node", c["gpus-per-node"], "--model", c["model"],
           "--input", c["input"], "--input-channels", c["input-channels"], "--strategy", s,
           "--iterations", c["iterations"], "--local-steps", c["local-steps"],
           "--batch", c["batch"], "--samples", c["samples"]]
    def carry(*keys):  # the run's value of each option it recorded
        for k in keys:
            if k in c:
                out.extend(["--" + k, c[k]])
    if s.startswith("hsadmm"):
        out += ["--masks", path]
        carry("t-freeze", "keep")
        if s != "hsadmm-flat":
            carry("bucket-mib", "wire-dtype", "pipeline-buckets")
    if s in ("ddp", "fp16", "pactrain", "cgx", "powersgd"):
        # prunex's own trainer with --sync-phases: buckets after backward, no framework overhead
        out += ["--ddp-overlap", "false", "--ddp-overhead-passes", "0"]
        carry("bucket-cap-mb")
    if s == "topk":
        carry("topk-ratio")
    if s == "pactrain":
        carry("ternary")
    if s == "cgx":
        carry("bits", "bucket-size")
    if s == "powersgd":
        carry("matrix-approximation-rank", "min-compression-rate")
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit(f"predict_cluster.sh: {path}: not a metrics.json of prunex train ({type(e).__name__}: {e})")
for v in out:
    print(str(v).lower() if isinstance(v, bool) else v)
PY
  ) && [[ ${#one[@]} -gt 0 ]] || exit 2
  settings+=("$(printf '%s\n' "${one[@]}")")
done
mkdir -p "$out"
memory=()
[[ -f $runs/memory.json ]] && memory=(--memory "$runs/memory.json")
$prunex calibrate --topology "$topology" --from "$(IFS=,; echo "${benches[*]}")" \
  --steps "$(IFS=,; echo "${steps[*]}")" "${memory[@]}" --host-cores "$host_cores" \
  --links "$links" --algo "$algo" --fit "$fit" --out "$out/calibration.json" > "$out/calibrate.txt"
grep -E "^(intra|inter|compute|memory)" "$out/calibrate.txt" | sed 's/^/  /' || true
pairs=()
for i in "${!lives[@]}"; do
  metrics=${lives[$i]}
  name=$(basename "$(dirname "$metrics")")
  mapfile -t args <<< "${settings[$i]}"
  $prunex simulate --topology "$topology" --calibration "$out/calibration.json" "${args[@]}" \
    --interference 1 --sync-skew 0 --out "$out/sim/$name" > "$out/sim_$name.log"
  pairs+=("$metrics:$out/sim/$name/metrics.json")
done
/usr/bin/python3 analysis/score_prediction.py "${pairs[@]}" --stat mean --markdown "$out/VALIDATION.md" \
  --json "$out/validation.json" | tee "$out/VALIDATION.txt"
echo "wrote $out/VALIDATION.md and $out/validation.json"
