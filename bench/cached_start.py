# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The start of a new process to its first run, without the compile cache,
storing into it (a miss) and loading from it (a hit): each in a fresh
Python process through rlx.compile, timed phase by phase
(docs/perf/compile.md).

  PYTHONPATH=build/python python3 bench/cached_start.py MODEL.mlir \\
      [--params MODEL.safetensors] [--hits 3]

The inputs are random normal f32 of the graph's input shapes; parameters
come from --params, or are random too."""

import argparse
import os
import subprocess
import sys
import tempfile

# Run in each fresh process: one compile and two runs, each phase timed.
CHILD = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
import rlx
rlx.targets()  # maps libRLXCAPI.so and with it libMLIR and libLLVM
t1 = time.perf_counter()
graph = rlx.compile(sys.argv[1], cache=sys.argv[2] != "nocache")
t2 = time.perf_counter()
if sys.argv[3]:
    graph.bind(sys.argv[3])
rng = np.random.default_rng(0)
specs = graph.inputs if sys.argv[3] else graph.arguments
args = {t.name: rng.standard_normal(t.shape).astype(np.float32)
        for t in specs}
t3 = time.perf_counter()
graph(**args)
t4 = time.perf_counter()
graph(**args)
t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
"""

COLUMNS = ["import + library", "compile", "bind + inputs", "first run",
           "second run"]


def run(model, params, mode, cache_dir):
    env = dict(os.environ, RLX_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", CHILD, model, mode,
                          params or ""], env=env, check=True,
                         capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--params")
    parser.add_argument("--hits", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache_dir:
        rows = [("no cache", run(options.model, options.params, "nocache",
                                 cache_dir)),
                ("miss", run(options.model, options.params, "cache",
                             cache_dir))]
        for _ in range(options.hits):
            rows.append(("hit", run(options.model, options.params, "cache",
                                    cache_dir)))
    print("| start | " + " | ".join(COLUMNS) + " | to first run |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for name, times in rows:
        cells = [f"{t:.3f} s" if t < 0.1 else f"{t:.2f} s" for t in times]
        print(f"| {name} | " + " | ".join(cells) +
              f" | {sum(times[:4]):.2f} s |")


if __name__ == "__main__":
    main()
