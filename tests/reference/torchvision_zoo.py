#!/usr/bin/env python3
"""The model zoo's layer tables against torchvision, the independent reference.

For every model `prunex model-info --list` names that torchvision builds, at 224x224 with 1000
classes: each parameter tensor's name and shape in named_parameters() order, and its forward
FLOPs per sample, counted here from torchvision's own modules with forward hooks under the
layer tables' rules (prunex model-info --help): a convolution or linear layer 2 per
multiply-add plus 1 per output for its bias, charged to its weight; batch norm 4 per output
element, charged to its weight; biases of BN 0; ReLU and pooling not counted.

usage: torchvision_zoo.py PRUNEX   (Debian's python3-torchvision 0.14: /usr/bin/python3)
Prints one row per model and exits 1 on the first difference it names.
"""
import json
import subprocess
import sys

import torch
import torchvision.models as tvm

CPU_ONLY = {"resnet20", "small_cnn"}  # the toolkit's own CPU models, not torchvision's
# The zoo's inception_v3 leaves out the auxiliary classifier (it runs only in training).
OPTIONS = {"inception_v3": {"aux_logits": False, "init_weights": False}}


def no_init(tensor, *args, **kwargs):
    return tensor


def build(name):
    """torchvision's model on PyTorch's meta device, weights never initialised: names, shapes
    and the forward pass's output sizes do not depend on the values (the meta device runs the
    same modules with PyTorch's shape functions and no data). Initialising and running the zoo's
    ~2 billion parameters on the CPU took most of this test's 83 s."""
    saved = {f: getattr(torch.nn.init, f) for f in dir(torch.nn.init)
             if f.endswith("_") and not f.startswith("_")}
    try:
        for f in saved:
            setattr(torch.nn.init, f, no_init)
        model = getattr(tvm, name)(weights=None, num_classes=1000, **OPTIONS.get(name, {}))
        return model.eval().to("meta")
    finally:
        for f, fn in saved.items():
            setattr(torch.nn.init, f, fn)


def reference(name):
    model = build(name)
    names = {module: n for n, module in model.named_modules()}
    flops = {}

    def hook(module, _inputs, out):
        n = names[module]
        per_sample = out.numel() // out.shape[0]
        if isinstance(module, torch.nn.Conv2d):
            kh, kw = module.kernel_size
            macs = per_sample * module.in_channels // module.groups * kh * kw
        elif isinstance(module, torch.nn.Linear):
            macs = per_sample * module.in_features
        else:  # BatchNorm2d
            flops[n + ".weight"], flops[n + ".bias"] = 4 * per_sample, 0
            return
        bias = module.bias is not None
        flops[n + ".weight"] = 2 * macs + (per_sample if bias else 0)
        if bias:
            flops[n + ".bias"] = 0

    for m in model.modules():
        if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear, torch.nn.BatchNorm2d)):
            m.register_forward_hook(hook)
    with torch.no_grad():
        model(torch.zeros(1, 3, 224, 224, device="meta"))
    return [(n, list(p.shape), flops.get(n)) for n, p in model.named_parameters()]


def prunex_table(prunex, name):
    out = subprocess.run([prunex, "model-info", "--model", name, "--classes", "1000",
                          "--input", "224", "--json"], check=True, capture_output=True, text=True)
    return [(l["name"], l["shape"], l["flops"]) for l in json.loads(out.stdout)["layers"]]


def main():
    prunex = sys.argv[1]
    listed = subprocess.run([prunex, "model-info", "--list"], check=True, capture_output=True,
                            text=True).stdout.split()
    checked = [n for n in listed if n not in CPU_ONLY]
    missing = [n for n in checked if not hasattr(tvm, n)]
    if missing:
        print(f"FAIL: torchvision has no {', '.join(missing)}")
        return 1
    print(f"{'model':<18} {'tensors':>8} {'parameters':>12} {'GFLOPs/sample':>14}  check")
    for name in checked:
        ours, theirs = prunex_table(prunex, name), reference(name)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            if a != b:
                print(f"FAIL {name}: tensor {i}: prunex {a}, torchvision {b}")
                return 1
        if len(ours) != len(theirs):
            print(f"FAIL {name}: prunex has {len(ours)} tensors, torchvision {len(theirs)}")
            return 1
        params = sum(torch.Size(s).numel() for _, s, _ in ours)
        gflops = sum(f for _, _, f in ours) / 1e9
        print(f"{name:<18} {len(ours):>8} {params:>12,} {gflops:>14.3f}  same names, shapes, FLOPs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
