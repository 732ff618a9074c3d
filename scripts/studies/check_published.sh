#!/usr/bin/env bash
# The presets against published all-reduce measurements (issue 18): for each anchor, the
# modeled bus bandwidth of a 1 GiB all-reduce (`prunex bench --backend sim`, ring), NCCL's
# own tuning model for the same shape (--compare nccl-model), the published figure and both
# errors. Anchors and their sources are in the table below (the project's reference notes
# collect them from public nccl-tests reports).
#
#   scripts/studies/check_published.sh [--prunex BINARY] [--out DIR]
#
# Defaults: --prunex build/bin/prunex, --out out/published. Writes DIR/published.md and
# DIR/published.json and prints the table. Takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
prunex=build/bin/prunex out=out/published
while [[ $# -gt 0 ]]; do
  case $1 in
    --prunex) prunex=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check_published.sh: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ -x $prunex ]] || { echo "check_published.sh: $prunex is not an executable (build first)" >&2; exit 2; }
mkdir -p "$out/runs"

# name|topology|nodes|gpus per node|published busbw GB/s|source
anchors=(
  "4 x V100, NVLink pairs (one node)|puhti|1|4|41.5|NVIDIA/nccl-tests issue 251"
  "100 Gbit/s InfiniBand, one NIC per node (2 nodes)|puhti|2|1|12.2|NVIDIA/nccl-tests issue 29"
  "8 x A100, NVSwitch (one node)|dgx-a100|1|8|230|public nccl-tests reports (8-GPU A100 NVSwitch)"
  "8 x H100, NVSwitch, ring (one node)|h100|1|8|370|public nccl-tests reports (8-GPU H100, ring, no NVLink SHARP)"
  "400 Gbit/s InfiniBand (NDR), one NIC per node (2 nodes)|h100|2|1|47|NVIDIA/nccl-tests issue 290 (46-48)"
)
i=0
for a in "${anchors[@]}"; do
  IFS='|' read -r name topo nodes gpn theirs source <<<"$a"
  "$prunex" bench --backend sim --topology "$topo" --nodes "$nodes" --gpus-per-node "$gpn" \
    --op allreduce --group world --algo ring -b 1G -e 1G --compare nccl-model \
    --json "$out/runs/$i.json" >"$out/runs/$i.txt"
  i=$((i + 1))
done

python3 - "$out" "${anchors[@]}" <<'EOF'
import json, sys
out, anchors = sys.argv[1], sys.argv[2:]
rows, lines = [], []
lines.append("| anchor | preset | ours (GB/s) | NCCL model (GB/s) | published (GB/s) | ours vs published | NCCL model vs published | source |")
lines.append("|---|---|---:|---:|---:|---:|---:|---|")
for i, a in enumerate(anchors):
    name, topo, nodes, gpn, theirs, source = a.split("|")
    r = json.load(open(f"{out}/runs/{i}.json"))[0]
    ours, nccl, pub = r["busbw_gbs"], r["nccl_model_busbw_GBps"], float(theirs)
    rows.append({"anchor": name, "topology": topo, "nodes": int(nodes), "gpus_per_node": int(gpn),
                 "bytes": r["bytes"], "ours_busbw_GBps": ours, "nccl_model_busbw_GBps": nccl,
                 "nccl_model_protocol": r["nccl_model_protocol"], "published_busbw_GBps": pub,
                 "ours_rel_err": ours / pub - 1, "nccl_model_rel_err": nccl / pub - 1,
                 "source": source})
    lines.append(f"| {name} | {topo} {nodes} x {gpn} | {ours:.1f} | {nccl:.1f} | {pub:g} | "
                 f"{100 * (ours / pub - 1):+.1f}% | {100 * (nccl / pub - 1):+.1f}% | {source} |")
open(f"{out}/published.json", "w").write(json.dumps(rows, indent=2) + "\n")
open(f"{out}/published.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nwrote {out}/published.md and {out}/published.json (1 GiB all-reduce, ring)")
EOF
