#!/usr/bin/env bash
# prunex topology: presets show and check, bad files exit 2 with one line, nothing is written.
set -u
prunex=$(realpath "$1")
repo=$(pwd)
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
cd "$work"

out=$("$prunex" topology show puhti) || fail "show puhti exited $?"
grep -q "80 x 4 GPUs = 320 GPUs" <<<"$out" || fail "show puhti: no 80 nodes line: $out"
grep -q "bisection *1000 GB/s" <<<"$out" || fail "show puhti: bisection not 1000 GB/s"
grep -q "assumed" <<<"$out" || fail "show puhti: assumptions not shown"

for p in $("$prunex" topology list | awk '{print $1}'); do
  line=$("$prunex" topology check "$p") || fail "check $p exited $?"
  [[ $line == "ok: $p: "* ]] || fail "check $p printed: $line"
done
[[ $("$prunex" topology list | wc -l) -eq $(ls "$repo"/topologies/presets/*.json | wc -l) ]] ||
  fail "list: expected one line per preset file"

# --json round trip: the normalised file checks again.
"$prunex" topology show dgx-a100 --json > "$work/dgx.json" || fail "show --json exited $?"
"$prunex" topology check "$work/dgx.json" | grep -q "^ok: dgx-a100: 128 nodes" || fail "json recheck"

expect_exit2() {  # expect_exit2 WORDS ARGS...: exit 2, one stderr line containing WORDS
  local words="$1"; shift
  expect_refused "$words" "" "$prunex" "$@"
  [[ ! -s "$work/refused.out" ]] || fail "$*: printed to stdout"
}

sed 's/"bandwidth_gbits": {"value": 100, "source": "CSC/"bandwidth_gbits": {"value": 0, "source": "CSC/' \
  "$repo/topologies/presets/puhti.json" > "$work/zero.json"
expect_exit2 "nic.bandwidth_gbits must be > 0" topology check "$work/zero.json"
echo '{"name": "x", "nodes": 2,' > "$work/broken.json"
expect_exit2 "malformed JSON" topology show "$work/broken.json"
expect_exit2 "unknown topology 'nowhere'" topology show nowhere
expect_exit2 "topology list does not take --out" topology list --out "$work/list.txt"
expect_exit2 "topology check does not take --json" topology check puhti --json
[[ ! -e $work/list.txt ]] || fail "topology list --out wrote a file"
# prunex help COMMAND is COMMAND --help.
"$prunex" help topology | cmp - <("$prunex" topology --help) || fail "help topology"
expect_refused "help takes one command" "" "$prunex" help topology list
expect_exit2 "cannot open file" topology check "$work/absent.json"
sed 's/"nodes": {"value": 80,/"nodes": {"value": 5000,/' "$repo/topologies/presets/puhti.json" > "$work/big.json"
expect_exit2 "fabric.radix 40 with 2 levels" topology check "$work/big.json"
expect_exit2 "--nodes must be in [1, 1048576], got '0'" topology show puhti --nodes 0
# 2^32 + 1 nodes once wrapped to a 1-node cluster; now refused like simulate's --nodes.
expect_exit2 "--nodes must be in [1, 1048576], got '4294967297'" topology show puhti --nodes 4294967297
# A number beyond a double, named by its field; an integer beyond int, not "not whole".
sed 's/"bandwidth_gbits": {"value": 100, "source": "CSC/"bandwidth_gbits": {"value": 1e400, "source": "CSC/' \
  "$repo/topologies/presets/puhti.json" > "$work/overflow.json"
expect_exit2 "malformed JSON at nic.bandwidth_gbits.value" topology check "$work/overflow.json"
sed 's/"nodes": {"value": 80,/"nodes": {"value": 1000000000000,/' "$repo/topologies/presets/puhti.json" > "$work/huge.json"
expect_exit2 "nodes must be at most 2147483647 (got 1000000000000)" topology check "$work/huge.json"
expect_exit2 "unknown action" topology frobnicate puhti

# Nothing but the files this script made.
left=$(ls "$work" | sort | tr '\n' ' ')
[[ $left == "big.json broken.json dgx.json huge.json overflow.json refused.err refused.out zero.json " ]] || fail "unexpected files: $left"
echo "topology.sh: ok"
