#!/usr/bin/env python3
"""PyTorch's own DistributedDataParallel on the GPU work of `prunex train --strategy ddp
--backend nccl`: the reference of issue 35's parity check (scripts/gpu/gpu_check.sh runs both).

The same work as

  prunex train --backend nccl --strategy ddp --model resnet50 --dataset synthetic \\
      --synthetic-size 224 --batch 64 --local-steps STEPS --iterations ITERS

ResNet-50 (torchvision's, 10 classes), synthetic 224x224 images made as prunex makes them
(workloads/data/dataset.cc: a class prototype, bilinear from 4x4 noise, plus unit noise),
each rank a contiguous shard held in GPU memory (as prunex holds a synthetic shard on a GPU),
batch 64 per rank, SGD (lr 0.001, momentum 0.9, weight decay 1e-4: prunex train's defaults),
NCCL, fp32 tensors with each framework's default math (cuDNN may use TF32 in both: PyTorch's
and LibTorch's default), no cudnn.benchmark (the default of both). Each step: the batch
gathered on the GPU, zero_grad, forward, cross entropy, backward (DDP's buckets of 25 MB,
overlapping), SGD step, loss.item() (prunex syncs on the loss every step too).

Ranks come from Open MPI (OMPI_COMM_WORLD_*); several ranks may share one GPU when each has
its own NCCL_HOSTID (gpu_check.sh sets it). Prints one line per outer iteration (rank 0)
and, with --json FILE, writes {"framework", "world", "batch", "steps_per_iteration",
"iterations": [{"iteration", "wall_seconds", "loss"}], "images_per_second"}: images per
second over every rank, from the iterations after the first (the first holds cuDNN's
start-up), as prunex's metrics.json is read by gpu_check.sh.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision


def synthetic(n, classes, size, seed, stream):
    """workloads/data/dataset.cc's make_synthetic, with PyTorch's CPU generators."""
    gen = torch.Generator().manual_seed(seed)
    coarse = torch.randn(classes, 3, 4, 4, generator=gen)
    protos = F.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=False)
    sample_seed = (seed * 0x9E3779B97F4A7C15 + stream + 1) % (1 << 64)
    sgen = torch.Generator().manual_seed(sample_seed)
    labels = torch.arange(n) % classes
    labels = labels[torch.randperm(n, generator=sgen)]
    images = protos[labels] + torch.randn(n, 3, size, size, generator=sgen)
    return images, labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=1024, help="training samples in all")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--steps", type=int, default=10, help="steps per outer iteration")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    if min(a.samples, a.size, a.batch, a.steps, a.iterations) < 1 or a.iterations < 2:
        print("pytorch_gpu_parity.py: sizes must be >= 1 and --iterations >= 2", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("pytorch_gpu_parity.py: this torch sees no CUDA device", file=sys.stderr)
        return 2

    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29541")
    torch.set_num_threads(1)  # as prunex train's default --threads 1
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)

    x, y = synthetic(a.samples, 10, a.size, a.seed, 0)
    per = a.samples // world  # contiguous equal shards (workloads/data/sharding.h)
    x = x[rank * per:(rank + 1) * per].to(dev)
    y = y[rank * per:(rank + 1) * per].to(dev)

    torch.manual_seed(a.seed)  # the same initial weights on every rank (DDP also broadcasts)
    model = torchvision.models.resnet50(num_classes=10).to(dev)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9, weight_decay=1e-4)
    gen = torch.Generator().manual_seed(a.seed * 1000003 + rank)
    order, cursor = torch.randperm(per, generator=gen), 0
    its = []
    model.train()
    for it in range(1, a.iterations + 1):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        total = 0.0
        for _ in range(a.steps):
            if cursor + a.batch > per:
                order, cursor = torch.randperm(per, generator=gen), 0
            idx = order[cursor:cursor + a.batch].to(dev)
            cursor += a.batch
            opt.zero_grad()
            loss = F.cross_entropy(model(x.index_select(0, idx)), y.index_select(0, idx))
            loss.backward()
            opt.step()
            total += loss.item()
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
        mean = torch.tensor([total / a.steps], device=dev)
        dist.all_reduce(mean)
        its.append({"iteration": it, "wall_seconds": wall, "loss": mean.item() / world})
        if rank == 0:
            print(f"pytorch ddp: iteration {it}/{a.iterations}: {wall:.3f} s, "
                  f"loss {its[-1]['loss']:.4f}", flush=True)
    steady = [i["wall_seconds"] for i in its[1:]]
    ips = a.steps * a.batch * world * len(steady) / sum(steady)
    if rank == 0:
        print(f"pytorch ddp: {ips:.1f} images/s over {world} rank(s) (iterations 2-{a.iterations})")
        if a.json:
            tmp = a.json + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"framework": "pytorch " + torch.__version__, "world": world,
                           "batch": a.batch, "steps_per_iteration": a.steps, "iterations": its,
                           "images_per_second": ips,
                           "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
                           "matmul_precision": torch.get_float32_matmul_precision()}, f, indent=2)
            os.replace(tmp, a.json)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
