#!/usr/bin/env bash
# `prunex model-info`: exact parameter counts from the command line (torchvision's published
# 1000-class counts minus the smaller head, see tests/workloads/layer_tables_test.cc), JSON
# shape, and exit code 2 with a one-line message for bad input.
set -u
PRUNEX=${1:?usage: model_info.sh PATH_TO_PRUNEX}
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

# JSON field of `prunex model-info ... --json`, read by python's json module.
json_field() {
  local field=$1; shift
  "$PRUNEX" model-info "$@" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['$field'])"
}

declare -A expected=(
  [resnet18]=11181642 [resnet50]=23528522 [resnet152]=58164298
  [wide_resnet50_2]=66854730 [vgg19]=139611210 [vgg19_bn]=139622218
  [resnet20]=272474 [small_cnn]=66410
)
for m in "${!expected[@]}"; do
  got=$(json_field parameters --model "$m")
  [[ "$got" == "${expected[$m]}" ]] || err "$m: parameters $got, expected ${expected[$m]}"
done

[[ $(json_field parameters --model resnet18 --classes 1000 --input 224) == 11689512 ]] ||
  err "resnet18 with 1000 classes is not torchvision's 11,689,512"
[[ $(json_field fp32_bytes --model resnet152) == $((58164298 * 4)) ]] || err "resnet152 fp32_bytes"

# The per-layer rows add up to the totals, and the first row is the stem conv.
"$PRUNEX" model-info --model resnet152 --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["model"] == "resnet152" and j["classes"] == 10 and j["input"] == 32, j
assert j["input_channels"] == 3
assert sum(l["params"] for l in j["layers"]) == j["parameters"]
assert sum(l["flops"] for l in j["layers"]) == j["forward_flops"]
assert j["layers"][0] == {"name": "conv1.weight", "role": "conv", "shape": [64, 3, 7, 7],
                          "params": 9408, "flops": 2 * 64 * 3 * 49 * 16 * 16}, j["layers"][0]
' || err "resnet152 --json rows do not match the totals"

# Fashion-MNIST small_cnn: 28x28x1 loses 32*2*9 stem weights; FLOPs derived by hand in
# tests/workloads/layer_tables_test.cc.
[[ $(json_field parameters --model small_cnn --input 28 --input-channels 1) == 65834 ]] ||
  err "small_cnn 28x28x1 parameters"
[[ $(json_field forward_flops --model small_cnn --input 28 --input-channels 1) == 36880650 ]] ||
  err "small_cnn 28x28x1 FLOPs"

# Human table: totals with thousands separators.
out=$("$PRUNEX" model-info --model resnet18)
grep -q "11,181,642 parameters" <<<"$out" || err "resnet18 table lacks '11,181,642 parameters'"
grep -q "^layer1.0.downsample" <<<"$out" && err "resnet18 must have no layer1.0.downsample"

# Bad input: exit 2, one line on stderr, nothing on stdout.
expect_usage() {
  local what=$1; shift
  local out errf rc
  errf=$(mktemp)
  out=$("$PRUNEX" model-info "$@" 2>"$errf"); rc=$?
  [[ $rc == 2 ]] || err "$what: exit $rc, expected 2"
  [[ $(wc -l <"$errf") == 1 ]] || err "$what: stderr is not one line: $(cat "$errf")"
  [[ -z "$out" ]] || err "$what: wrote to stdout"
  cat "$errf"
  rm -f "$errf"
}
expect_usage "unknown model" --model nope
expect_usage "missing --model" --json
expect_usage "zero classes" --model resnet18 --classes 0
expect_usage "vgg19 on 28x28" --model vgg19 --input 28
expect_usage "bad number" --model resnet18 --input abc
"$PRUNEX" model-info --model nope 2>&1 | grep -q "resnet152" || err "unknown model: names not listed"
"$PRUNEX" model-info 2>&1 | grep -q "model is required" || err "missing --model message"

exit $fail
