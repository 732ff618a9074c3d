#!/usr/bin/python3
"""PyTorch's own DistributedDataParallel on the work `prunex train --strategy ddp` does.

The reference for issue 36's side-by-side (scripts/studies/ddp_side_by_side.sh): Fashion-MNIST,
small_cnn, each rank a contiguous shard of the first --train-samples samples, batch 32 per
rank, SGD (momentum 0.9, weight decay 1e-4) with the cosine schedule per epoch, gloo. The
same as workloads/configs/fashion_mnist_small_cnn_ddp.json with one local epoch per outer
iteration; the model is workloads/torch/small_models.cc's small_cnn written with torch.nn.

Run it under Open MPI (ranks from OMPI_COMM_WORLD_*), on shared memory or on an emulated
cluster, where PRUNEX_EMULATION gives the rendezvous address and interface:

  mpirun -np 4 --oversubscribe python3 scripts/studies/pytorch_ddp.py --epochs 1
  prunex emulate --topology puhti --nodes 4 --slowdown 5000 --program -- \\
      python3 scripts/studies/pytorch_ddp.py --epochs 1

--hook fp16 registers PyTorch's fp16_compress_hook, the reference for `--strategy fp16`;
--hook powersgd its powerSGD_hook (PowerSGDState with --matrix-approximation-rank and
--start-powersgd-iter, the rest at PyTorch's defaults), the reference for `--strategy powersgd`.
Prints one line per epoch (rank 0) and, with --json FILE, writes
{"framework", "hook", "world", "epochs": [{"epoch", "train_seconds", "loss", "accuracy"}]}.
"""
import argparse
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

FASHION_DIR = "/usr/share/datasets/fashion-mnist"  # dataset-fashion-mnist (idx_reader.h)
MEAN, STD = 0.2860406, 0.3530242  # workloads/data/normalization.h


def read_idx(path, header):
    with gzip.open(path, "rb") as f:
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8, offset=header)


def load(split, n):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(FASHION_DIR, prefix + "-images-idx3-ubyte.gz"), 16)
    labels = read_idx(os.path.join(FASHION_DIR, prefix + "-labels-idx1-ubyte.gz"), 8)
    images = images.reshape(-1, 1, 28, 28)
    if n > 0:
        images, labels = images[:n], labels[:n]
    x = (torch.from_numpy(images.astype(np.float32)) / 255.0 - MEAN) / STD
    return x, torch.from_numpy(labels.astype(np.int64))


class SmallCnn(nn.Module):
    """workloads/torch/small_models.cc: four 3x3 convolutions (32, 32, 64, 64) with batch
    norm and ReLU, max pooling after the second and fourth, global average pooling, fc."""

    def __init__(self, classes=10, channels=1):
        super().__init__()
        layers, cin = [], channels
        for i in range(4):
            cout = 32 if i < 2 else 64
            layers += [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                       nn.ReLU(inplace=True)]
            if i in (1, 3):
                layers.append(nn.MaxPool2d(2, 2))
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        return self.fc(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train-samples", type=int, default=8000)
    ap.add_argument("--test-samples", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hook", choices=["none", "fp16", "powersgd"], default="none",
                    help="fp16: PyTorch's fp16_compress_hook (what prunex's fp16 strategy does); "
                         "powersgd: its powerSGD_hook (prunex's powersgd strategy)")
    ap.add_argument("--matrix-approximation-rank", type=int, default=1)
    ap.add_argument("--start-powersgd-iter", type=int, default=1000)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    if a.epochs < 1 or a.batch < 1 or a.train_samples < 0 or a.test_samples < 0:
        print("pytorch_ddp.py: --epochs and --batch must be >= 1, sample counts >= 0",
              file=sys.stderr)
        return 2

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("RANK", "0")))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("WORLD_SIZE", "1")))
    emulation = json.loads(os.environ.get("PRUNEX_EMULATION", "{}") or "{}")
    os.environ.setdefault("MASTER_ADDR", emulation.get("addresses", ["127.0.0.1"])[0])
    os.environ.setdefault("MASTER_PORT", "29533")
    os.environ.setdefault("GLOO_SOCKET_IFNAME", emulation.get("interface", "lo"))
    torch.set_num_threads(1)  # as prunex train's default --threads 1
    dist.init_process_group("gloo", rank=rank, world_size=world)

    x, y = load("train", a.train_samples)
    per = x.shape[0] // world  # contiguous equal shards, the rest dropped (sharding.h)
    x, y = x[rank * per:(rank + 1) * per], y[rank * per:(rank + 1) * per]
    tx, ty = load("test", a.test_samples)
    tpart = slice(rank * tx.shape[0] // world, (rank + 1) * tx.shape[0] // world)
    tx, ty = tx[tpart], ty[tpart]

    torch.manual_seed(a.seed)  # the same initial weights on every rank (DDP also broadcasts)
    model = nn.parallel.DistributedDataParallel(SmallCnn())
    if a.hook == "fp16":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
    if a.hook == "powersgd":
        from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powersgd
        state = powersgd.PowerSGDState(process_group=None,
                                       matrix_approximation_rank=a.matrix_approximation_rank,
                                       start_powerSGD_iter=a.start_powersgd_iter)
        model.register_comm_hook(state, powersgd.powerSGD_hook)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(a.seed * 1000 + rank)
    epochs = []
    for epoch in range(1, a.epochs + 1):
        lr = a.lr * (1 + math.cos(math.pi * (epoch - 1) / a.epochs)) / 2
        for g in opt.param_groups:
            g["lr"] = lr
        model.train()
        dist.barrier()
        t0 = time.perf_counter()
        order = torch.randperm(per, generator=gen)
        total, steps = 0.0, 0
        for s in range(0, per, a.batch):
            idx = order[s:s + a.batch]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        dist.barrier()
        train_s = time.perf_counter() - t0
        model.eval()
        with torch.no_grad():
            correct = (model(tx).argmax(1) == ty).sum() if len(ty) else torch.tensor(0)
        counts = torch.tensor([float(correct), float(len(ty)), total / max(steps, 1)])
        dist.all_reduce(counts)
        acc = counts[0].item() / max(counts[1].item(), 1)
        epochs.append({"epoch": epoch, "train_seconds": train_s, "loss": counts[2].item() / world,
                       "accuracy": acc})
        if rank == 0:
            print(f"pytorch ddp: epoch {epoch}/{a.epochs}: {train_s:.2f} s, "
                  f"loss {epochs[-1]['loss']:.4f}, test accuracy {100 * acc:.2f}%", flush=True)
    if rank == 0 and a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"framework": "pytorch " + torch.__version__, "hook": a.hook, "world": world,
                       "epochs": epochs}, f, indent=2)
        os.replace(tmp, a.json)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
