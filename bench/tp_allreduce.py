"""The latency of the small all-reduces of a tensor-parallel decode step:
K all-reduces of one token's activations ([1, 1, HIDDEN] bf16 over the
GPUs), each followed by an add that reads it, as a decode step's
row-parallel products and residual adds are (docs/perf/llm.md).

  python3 bench/tp_allreduce.py emit OUT RLX_RUN
      here: the chain as an rlx graph over the mesh [RANKS], compiled
      for the cuda target with the collectives beside the kernels
      (chain.so, the default) and in order on the graph's stream
      (chain-inorder.so).
  python3 bench/tp_allreduce.py run OUT RLX_RUN_AOT
      on the GPUs: each library under `rlx-run-aot --ranks RANKS --bench`
      (each run one replayed CUDA graph), then PyTorch's NCCL all-reduce
      (torch.distributed) of the same chain, eager
      (timed with CUDA events around each chain); the time per all-reduce
      of each (median of RUNS runs).
"""

import os
import re
import subprocess
import sys

HIDDEN, CHAIN, RANKS, RUNS = 2048, 32, 2, 200


def chain_graph():
    lines = [f"func.func @chain(%x: tensor<1x1x{HIDDEN}xbf16> "
             "{rlx.input = \"x\"}) ",
             f"    -> tensor<1x1x{HIDDEN}xbf16> {{"]
    value = "%x"
    kind = f"tensor<1x1x{HIDDEN}xbf16>"
    for i in range(CHAIN):
        lines.append(f"  %r{i} = rlx.all_reduce sum {value} mesh [{RANKS}] "
                     f": {kind}")
        lines.append(f"  %a{i} = rlx.binary add %r{i}, %x : {kind}, {kind}")
        value = f"%a{i}"
    lines += [f"  return {value} : {kind}", "}", ""]
    return "\n".join(lines)


def emit(out, rlx_run):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "chain.mlir")
    with open(path, "w") as file:
        file.write(chain_graph())
    for name, options in (("chain", []), ("chain-inorder", [
            "--pipeline-options=overlap-collectives=false"])):
        subprocess.run([rlx_run, path, "--target", "cuda", "--no-cache",
                        "--emit-shared-lib", os.path.join(out, name + ".so")]
                       + options, check=True)


def torch_worker(rank, port, queue):
    import torch
    import torch.distributed as dist
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=RANKS)
    x = torch.randn(1, 1, HIDDEN, device="cuda", dtype=torch.bfloat16)

    def chain():
        y = x
        for _ in range(CHAIN):
            r = y.clone()
            dist.all_reduce(r)
            y = r + x
        return y

    def median_ms(call):
        for _ in range(10):
            call()
        torch.cuda.synchronize()
        times = []
        for _ in range(RUNS):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        return sorted(times)[len(times) // 2]

    eager = median_ms(chain)
    if rank == 0:
        queue.put((eager, torch.cuda.nccl.version()))
    dist.barrier()
    dist.destroy_process_group()


def run(out, aot):
    for name in ("chain", "chain-inorder"):
        result = subprocess.run(
            [aot, "--ranks", str(RANKS), "--load",
             os.path.join(out, name + ".so"), "--random-inputs", "--bench",
             str(RUNS)], capture_output=True, text=True, timeout=120)
        median = re.search(r"median ([0-9.]+) ms", result.stdout)
        if result.returncode != 0 or not median:
            sys.exit(f"{name} failed:\n{result.stdout}{result.stderr}")
        ms = float(median.group(1))
        print(f"rlx {name}: {CHAIN} all-reduces of {HIDDEN} bf16 (and adds) "
              f"in {ms:.3f} ms, {ms / CHAIN * 1e3:.1f} us each", flush=True)
    import torch.multiprocessing as mp
    context = mp.get_context("spawn")
    queue = context.SimpleQueue()
    mp.start_processes(torch_worker, args=(29517, queue), nprocs=RANKS,
                       start_method="spawn")
    eager, version = queue.get()
    print(f"torch eager (NCCL {version}): {CHAIN} all-reduces in "
          f"{eager:.3f} ms, {eager / CHAIN * 1e3:.1f} us each", flush=True)

if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "emit":
        emit(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
