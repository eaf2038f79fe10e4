# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Failures inside a run are exceptions, and the graph runs again after
them: run-failures.py SCRATCH_DIR.

A run-time shape check (RLXError naming the op, operand and dim), every
allocation of a run made to fail by the test hook (RLXMemoryError, which is
a MemoryError too; the runtime's live buffer bytes back to their value
before), compiled here and loaded from a library, and a custom op whose
kernel fails. Each failed call is followed by a correct one on the same
graph."""

import ctypes
import os
import subprocess
import sys

import numpy as np

import rlx
from rlx import _capi
from pychecks import check, expect_error, finish

scratch = sys.argv[1]
rng = np.random.default_rng(7)

ADD = """
func.func @add(%x: tensor<?x4xf32> {rlx.input = "x"},
               %y: tensor<?x4xf32> {rlx.input = "y"}) -> tensor<?x4xf32> {
  %0 = rlx.binary add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>
  %1 = rlx.activation tanh %0 : tensor<?x4xf32>
  %2 = rlx.binary mul %1, %x : tensor<?x4xf32>, tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
"""

CHAIN = """
func.func @chain(%x: tensor<8x8xf32> {rlx.input = "x"}) -> tensor<8x8xf32> {
  %0 = rlx.matmul %x, %x : tensor<8x8xf32>, tensor<8x8xf32>
  %1 = rlx.activation tanh %0 : tensor<8x8xf32>
  %2 = rlx.matmul %1, %x : tensor<8x8xf32>, tensor<8x8xf32>
  %3 = rlx.binary add %2, %x : tensor<8x8xf32>, tensor<8x8xf32>
  return %3 : tensor<8x8xf32>
}
"""


def close(actual, expected, what):
    ok = actual.shape == expected.shape and np.allclose(
        actual, expected, rtol=1e-5, atol=1e-5)
    check(ok, what)


a3 = rng.standard_normal((3, 4)).astype(np.float32)
b3 = rng.standard_normal((3, 4)).astype(np.float32)
add_expected = np.tanh(a3.astype(np.float64) + b3) * a3
x8 = (rng.standard_normal((8, 8)) * 0.3).astype(np.float32)
x64 = x8.astype(np.float64)
chain_expected = np.tanh(x64 @ x64) @ x64 + x64

# A shape check: `?` rows bound to 3 and to 5.
add = rlx.compile(ADD)
before = add.live_buffer_bytes()
check(before is not None, "the CPU runtime counts its live buffer bytes")
try:
    add(x=a3, y=np.ones((5, 4), np.float32))
    check(False, "shape check: no exception")
except MemoryError as error:
    check(False, f"shape check: a MemoryError: {error}")
except rlx.RLXError as error:
    check("shape mismatch in 'rlx.binary'" in str(error)
          and "operand #1 dim 0 differs from the result's dim 0" in str(error),
          f"shape check: the op, operand and dim in: {error}")
check(add.live_buffer_bytes() == before,
      "shape check: the run's buffers are given back")
close(add(x=a3, y=b3), add_expected, "shape check: the next call is right")


def fail_each_allocation(what, graph, run, expected):
    """Fails allocation k of a run for k = 0, 1, ... until a run makes
    fewer; each failed run raises RLXMemoryError and gives its buffers back,
    and the next run is right."""
    before = graph.live_buffer_bytes()
    k = 0
    while k < 1000:
        graph.debug_fail_allocation(k)
        try:
            result = run()
        except MemoryError as error:
            check(isinstance(error, rlx.RLXError)
                  and "cannot allocate a temporary buffer" in str(error)
                  and "injected by the test hook" in str(error),
                  f"{what}, allocation {k}: RLXMemoryError: {error}")
            check(graph.live_buffer_bytes() == before,
                  f"{what}, allocation {k}: no buffer kept")
            close(run(), expected, f"{what}, allocation {k}: next call right")
            k += 1
            continue
        close(result, expected, f"{what}: a run of {k} allocations is right")
        break
    graph.debug_fail_allocation(None)
    check(k > 0, f"{what}: {k} allocations, each failed once")


fail_each_allocation("dynamic graph", add, lambda: add(x=a3, y=b3),
                     add_expected)
chain = rlx.compile(CHAIN)
fail_each_allocation("static graph", chain, lambda: chain(x=x8),
                     chain_expected)
library = os.path.join(scratch, "chain.so")
chain.save(library)
loaded = rlx.load(library)
fail_each_allocation("static graph from a library", loaded,
                     lambda: loaded(x=x8), chain_expected)
# The same library called directly through its C entry, without the
# runtime's guard (a program using the ABI of docs/abi.md): the failed run
# still returns, its message goes to stderr, its buffers are given back.
DIRECT = r"""
import ctypes, sys
import numpy as np
library = ctypes.CDLL(sys.argv[1])
live = library.rlx_rt_buffer_live_bytes
live.restype = ctypes.c_int64
x = np.ones((8, 8), np.float32)
y = np.zeros((8, 8), np.float32)
def descriptor(array):
    fields = [array.ctypes.data, array.ctypes.data, 0, 8, 8, 8, 1]
    return (ctypes.c_int64 * 7)(*fields)
descriptors = [descriptor(x), descriptor(y)]
pointers = (ctypes.c_void_p * 2)(*[ctypes.addressof(d) for d in descriptors])
before = live()
library.rlx_rt_debug_fail_allocation(ctypes.c_int64(1))
library.rlx_graph_run(pointers)
print("live bytes as before:", live() == before)
library.rlx_graph_run(pointers)
x64 = x.astype(np.float64)
print("next run right:", np.allclose(y, np.tanh(x64 @ x64) @ x64 + x64,
                                      rtol=1e-5, atol=1e-5))
"""
# Under the sanitizers a new interpreter lacks the preloaded ASan runtime
# that the instrumented library needs (sanitized_python.py).
if "ASAN_OPTIONS" in os.environ:
    print("skipped: a direct call from a new interpreter, under ASan")
else:
    direct = subprocess.run([sys.executable, "-c", DIRECT, library],
                            capture_output=True, text=True)
    check(direct.returncode == 0
          and "error: the compiled graph cannot allocate a temporary "
          "buffer" in direct.stderr
          and "live bytes as before: True" in direct.stdout
          and "next run right: True" in direct.stdout,
          f"a direct call: returns, message on stderr: {direct.stdout!r} "
          f"{direct.stderr!r}")
expect_error(lambda: loaded.debug_fail_allocation(-1),
             "after must be an integer from 0", "a negative hook count")


# A custom op whose kernel fails on a negative element, registered here
# through the registry's C interface (include/rlx-c/CustomOps.h).
class TensorType(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * 8)]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("type", TensorType)]


ShapeFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(TensorType),
                           ctypes.c_size_t, ctypes.c_char_p,
                           ctypes.POINTER(TensorType), ctypes.c_size_t,
                           ctypes.c_void_p, ctypes.c_size_t)
KernelFn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Tensor),
                            ctypes.c_size_t, ctypes.POINTER(Tensor),
                            ctypes.c_size_t, ctypes.c_char_p,
                            ctypes.c_void_p, ctypes.c_size_t)


class OpDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("shape", ShapeFn),
                ("cpuKernel", KernelFn)]


@ShapeFn
def copy_shape(inputs, num_inputs, attrs, results, num_results, error, size):
    results[0] = inputs[0]
    return 0


@KernelFn
def fail_on_negative(inputs, num_inputs, outputs, num_outputs, attrs, error,
                     size):
    count = inputs[0].type.dims[0]
    source = (ctypes.c_float * count).from_address(inputs[0].data)
    target = (ctypes.c_float * count).from_address(outputs[0].data)
    for i in range(count):
        if source[i] < 0:
            message = f"element {i} is negative".encode() + b"\0"
            ctypes.memmove(error, message, min(len(message), size))
            return 1
        target[i] = source[i]
    return 0


registry = ctypes.CDLL(os.path.join(os.path.dirname(_capi._library_path()),
                                    "librlx_custom_ops.so"))
op = OpDef(b"python_test.fail_on_negative", copy_shape, fail_on_negative)
check(registry.rlxRegisterCustomOp(ctypes.byref(op)) == 0,
      "custom op registered")
custom = rlx.compile("""
func.func @c(%x: tensor<4xf32> {rlx.input = "x"}) -> tensor<4xf32> {
  %0 = rlx.activation tanh %x : tensor<4xf32>
  %1 = rlx.custom "python_test.fail_on_negative"(%0) pure :
       (tensor<4xf32>) -> tensor<4xf32>
  %2 = rlx.binary add %1, %x : tensor<4xf32>, tensor<4xf32>
  return %2 : tensor<4xf32>
}
""")
before = custom.live_buffer_bytes()
v = np.array([0.5, 1, -2, 3], np.float32)
expect_error(lambda: custom(x=v),
             "custom op 'python_test.fail_on_negative' failed: element 2 is "
             "negative", "a failing custom op kernel")
check(custom.live_buffer_bytes() == before,
      "custom op: the run's buffers are given back")
v[2] = 2
close(custom(x=v), np.tanh(v.astype(np.float64)) + v,
      "custom op: the next call is right")

finish()
