#!/usr/bin/env bash
# The command-line dialect every command shares (apps/cli.cc, CLI11's own rules):
# 1. --name=value reads as --name value, -b1K as -b 1K (sizes in bytes with K/M/G);
# 2. a list option given twice joins its values (--gpus 8 --gpus 16 is --gpus 8,16), any other
#    option keeps its last value;
# 3. a value that looks like a negative number is a value, checked against the option's range;
# 4. an option that takes one of a set of values refuses another, naming the set;
# 5. an unknown option (also as --name=value) or a stray word is named in one line, exit 2;
# 6. a value listed twice is refused, whatever the list (the command line, a --config file, a
#    what-if's NICs); a --config value of the wrong shape or key is refused; an option the
#    command would ignore in its mode is refused, also by emulate before it builds anything.
set -u
prunex=$(realpath "$1")
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"

expect_exit2() {  # expect_exit2 WORDS ARGS...: exit 2, one stderr line containing WORDS
  local words="$1"; shift
  expect_refused "$words" "" "$prunex" "$@"
}

# 1. --name=value
a=$("$prunex" topology show h100 --nodes=4 --json) || fail "--nodes=4 refused"
b=$("$prunex" topology show h100 --nodes 4 --json) || fail "--nodes 4 refused"
nodes() { python3 -c 'import json, sys; print(json.load(sys.stdin)["nodes"]["value"])'; }
[[ $a == "$b" && $(nodes <<<"$a") == 4 ]] || fail "--nodes=4 and --nodes 4 differ"
sim=(bench --backend sim --topology puhti --nodes 2 --gpus-per-node 4 --op allreduce --group world)
a=$("$prunex" "${sim[@]}" -b1K -e4K | grep -E '^ +[0-9]') || fail "-b1K -e4K refused"
b=$("$prunex" "${sim[@]}" -b 1024 -e 4096 | grep -E '^ +[0-9]') || fail "-b 1024 -e 4096 refused"
[[ $a == "$b" && $(wc -l <<<"$a") -eq 3 ]] || fail "sizes 1K..4K: $a against $b"

# 2. lists join, other options keep the last value
sweep=(sweep --topology puhti --model resnet20 --strategy ddp --iterations 1)
"$prunex" "${sweep[@]}" --gpus 8 --gpus=16 --out "$work/twice" >/dev/null || fail "--gpus twice"
"$prunex" "${sweep[@]}" --gpus 8,16 --out "$work/once" >/dev/null || fail "--gpus 8,16"
python3 - "$work/twice/scaling.json" "$work/once/scaling.json" <<'PY' || fail "--gpus 8 --gpus=16 is not --gpus 8,16"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert [r["gpus"] for r in a["ddp"]] == [8, 16], a["ddp"]
assert a["ddp"] == b["ddp"], (a["ddp"], b["ddp"])
PY
a=$("$prunex" topology show h100 --nodes 2 --nodes 4 --json) || fail "--nodes twice refused"
[[ $(nodes <<<"$a") == 4 ]] || fail "--nodes 2 --nodes 4 is not --nodes 4"

# 3. negative numbers are values
expect_exit2 "--nodes must be in [1, " topology show h100 --nodes -3
expect_exit2 "--nodes must be in [1, " topology show h100 --nodes=-3

# 4. choices
expect_exit2 "--stat must be one of mean, median, got 'mode'" bench --stat mode
expect_exit2 "--group must be one of world, intra, inter, all, got 'rack'" bench --group rack
expect_exit2 "--evict must be at most 4294967296 bytes, got '5G'" bench --busy-us 1 --evict 5G

# 5. unknown options and stray words
expect_exit2 "unknown option '--nodez' (see prunex topology --help)" topology show h100 --nodez 2
expect_exit2 "unknown option '--nodez'" topology show h100 --nodez=2
expect_exit2 "unknown option '-q'" topology show h100 -q
expect_exit2 "argument not expected: stray" sweep --topology puhti --gpus 8 stray
expect_exit2 "--nodes" topology show h100 --nodes
# 6. one value once; shapes and keys of --config; options of another mode
expect_exit2 "--gpus lists 8 twice" "${sweep[@]}" --gpus 8,16 --gpus 8 --out "$work/dup"
expect_exit2 "--strategy lists ddp twice" "${sweep[@]}" --strategy ddp,ddp --gpus 8 --out "$work/dup"
one=(simulate --topology puhti --nodes 2 --model resnet20 --iterations 1 --out "$work/dup")
expect_exit2 "--straggler-gpus lists 1 twice" "${one[@]}" --straggler-gpus 1,1
expect_exit2 "--degrade-nic: '0:1=0.5' degrades a rail of node 0 that an earlier item" \
  "${one[@]}" --degrade-nic 0=0.5,0:1=0.5
echo '{"topology": "puhti", "gpus": [8, 8], "strategy": ["ddp"]}' >"$work/dup.json"
expect_exit2 "--gpus lists 8 twice" sweep --config "$work/dup.json" --out "$work/dup"
echo '{"topology": ["puhti"], "gpus": [8], "strategy": ["ddp"]}' >"$work/shape.json"
expect_exit2 "key 'topology' expects one value, got the list [\"puhti\"]" sweep \
  --config "$work/shape.json" --out "$work/dup"
echo '{"topology": "puhti", "gpus": [8], "nodes": 4}' >"$work/nodes.json"
expect_exit2 "'nodes' sets one run's size" sweep --config "$work/nodes.json" --out "$work/dup"
"$prunex" simulate --topology puhti --nodes 2 --model resnet20 --iterations 1 \
  --out "$work/onerun" >/dev/null || fail "simulate for a record"
expect_exit2 "'nodes' sets one run's size" sweep --config "$work/onerun/metrics.json" \
  --gpus 8 --out "$work/dup"
expect_exit2 "--strategy applies to --op iteration" bench --backend sim --topology puhti \
  --nodes 2 --op allreduce --strategy ddp
expect_exit2 "--keep applies to --op compaction and --op iteration" bench --keep 0.3
expect_exit2 "--out applies to a run, not to --list" validate --list --out "$work/dup"
expect_exit2 "--checkpoint-dir applies with --checkpoint-every K" train --dataset synthetic \
  --checkpoint-dir "$work/ck" --check --out "$work/dup"
# emulate: before any namespace, link or privilege check.
expect_exit2 "an emulated link carries at least 100 kbit/s (--slowdown at most 1000)" emulate \
  --topology ethernet-100m --slowdown 1e9 -- bench
expect_exit2 "the command to run: --algo applies to --backend sim" emulate --topology puhti \
  --nodes 2 -- bench --backend mpi --algo ring
expect_exit2 "the command to run: --checkpoint-dir applies with --checkpoint-every" emulate \
  --topology puhti --nodes 2 -- train --dataset synthetic --checkpoint-dir "$work/ck"
echo "options: ok"
