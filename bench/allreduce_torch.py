"""PyTorch's NCCL all-reduce, the peer of rlx's (docs/perf/distributed.md).

  python3 bench/allreduce_torch.py RANKS ELEMENTS [RUNS]

Sums an f32 tensor of ELEMENTS elements over RANKS GPUs, one process each
(torch.distributed, NCCL backend), and prints the median time of RUNS
all-reduces after warm-up, timed with CUDA events on rank 0, with the bus
bandwidth as nccl-tests counts it (2 (n - 1) / n bytes per rank).
"""

import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, ranks, elements, runs, port):
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=ranks)
    x = torch.randn(elements, device="cuda")
    for _ in range(5):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        dist.all_reduce(x)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    if rank == 0:
        times.sort()
        ms = times[len(times) // 2]
        bytes_ = elements * 4
        bus = bytes_ * 2 * (ranks - 1) / ranks / (ms * 1e-3) / 1e9
        print(f"torch all_reduce f32 x{elements} on {ranks} GPUs: "
              f"median {ms:.3f} ms, bus bandwidth {bus:.0f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    ranks, elements = int(sys.argv[1]), int(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    mp.spawn(worker, args=(ranks, elements, runs, 29511), nprocs=ranks)
