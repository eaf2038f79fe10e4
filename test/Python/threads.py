# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The threading contract through the Python package: threads.py.

y = x @ w, 384x384, x all ones: several threads call the graph while
another binds w as all ones, then all minus ones, in a loop. Every output
must be all 384 or all -384 (a run sees w as bound before a bind or after
it, never a mixture). Then binds of two arguments in one call (w and b,
y = x @ w + b): a run sees both new or both old (rlxGraphBindMany)."""

import threading

import numpy as np

import rlx
from pychecks import check, finish

N = 384
MATMUL = f"""
func.func @mm(%x: tensor<{N}x{N}xf32> {{rlx.input = "x"}},
              %w: tensor<{N}x{N}xf32> {{rlx.param = "w"}})
    -> tensor<{N}x{N}xf32> {{
  %0 = rlx.matmul %x, %w : tensor<{N}x{N}xf32>, tensor<{N}x{N}xf32>
  return %0 : tensor<{N}x{N}xf32>
}}
"""
AFFINE = f"""
func.func @affine(%x: tensor<{N}x{N}xf32> {{rlx.input = "x"}},
                  %w: tensor<{N}x{N}xf32> {{rlx.param = "w"}},
                  %b: tensor<{N}xf32> {{rlx.param = "b"}})
    -> tensor<{N}x{N}xf32> {{
  %0 = rlx.matmul %x, %w : tensor<{N}x{N}xf32>, tensor<{N}x{N}xf32>
  %1 = rlx.binary add %0, %b : tensor<{N}x{N}xf32>, tensor<{N}xf32>
  return %1 : tensor<{N}x{N}xf32>
}}
"""
RUNNERS = 4
RUNS = 15

x = np.ones((N, N), np.float32)
ones = np.ones((N, N), np.float32)
minus = -ones


def hammer(graph, rebind, allowed):
    """RUNNERS threads run `graph` RUNS times each while `rebind(i)` binds
    in a loop; returns (uniform runs per allowed value, mixed runs)."""
    seen = {value: 0 for value in allowed}
    mixed = []
    errors = []
    lock = threading.Lock()
    running = [RUNNERS]

    def runner():
        try:
            for _ in range(RUNS):
                y = graph(x=x)
                first = float(y.flat[0])
                with lock:
                    if first in seen and (y == first).all():
                        seen[first] += 1
                    else:
                        mixed.append((first, float(y.flat[-1])))
        except Exception as error:  # reported as a failed check
            errors.append(error)
        finally:
            with lock:
                running[0] -= 1

    def binder():
        i = 0
        while running[0] > 0:
            rebind(i)
            i += 1

    threads = [threading.Thread(target=runner) for _ in range(RUNNERS)]
    threads.append(threading.Thread(target=binder))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check(not errors, f"no run raised: {errors[:1]}")
    return seen, mixed


graph = rlx.compile(MATMUL, params={"w": ones})
seen, mixed = hammer(graph, lambda i: graph.bind(w=minus if i % 2 else ones),
                     (float(N), -float(N)))
check(not mixed and sum(seen.values()) == RUNNERS * RUNS,
      f"matmul: runs all {N} or all -{N} while w is rebound "
      f"({seen}, mixed {mixed[:3]})")

# Two arguments bound in one call are bound together: w all ones with b 0
# (y = 384) or w all minus ones with b 1000 (y = 616).
zero = np.zeros(N, np.float32)
thousand = np.full(N, 1000.0, np.float32)
affine = rlx.compile(AFFINE, params={"w": ones, "b": zero})
seen, mixed = hammer(
    affine,
    lambda i: affine.bind(w=minus, b=thousand) if i % 2
    else affine.bind({"w": ones, "b": zero}),
    (float(N), 1000.0 - N))
check(not mixed and sum(seen.values()) == RUNNERS * RUNS,
      f"affine: w and b bound together ({seen}, mixed {mixed[:3]})")

# A failed bind of several arrays binds none of them.
try:
    affine.bind(w=minus, b=np.zeros(3, np.float32))
except rlx.RLXError:
    pass
check(float(affine(x=x).flat[0]) in (float(N), 1000.0 - N),
      "a failed bind of w and b left both as they were")
affine.bind(w=ones, b=zero)
try:
    affine.bind(w=minus, nothere=zero)
except rlx.RLXError:
    pass
check(float(affine(x=x).flat[0]) == float(N),
      "a bind naming an unknown argument bound nothing")
finish()
