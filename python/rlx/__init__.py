# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx: compile and run rlx graphs from Python.

    import rlx
    graph = rlx.compile("examples/mlp.mlir", params="mlp.safetensors")
    y = graph(x=np.ones((8, 64), np.float32))

A pure-Python layer (ctypes and NumPy) over the C API, libRLXCAPI.so
(docs/c-api.md, docs/python.md).
"""

import collections
import ctypes
import json
import numbers
import os
import re
import shutil
import signal
import threading
import zipfile

import numpy as np

from . import _capi
from ._capi import RLXError, RLXMemoryError
from .generation import generate
from .safetensors import (bf16_to_f32, f32_to_bf16, read_safetensors,
                          write_atomically, write_safetensors)

__all__ = ["RLXError", "RLXMemoryError", "Graph", "TensorInfo",
           "BenchResult", "OpTime", "compile", "emit_shared_library", "load",
           "load_plugin", "grad", "transform", "targets", "api_version",
           "generate", "read_safetensors", "write_safetensors"]

# RlxDType in enum order; bf16 is exchanged as float32 (NumPy has no bf16).
_DTYPE_NAMES = ["f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8",
                "u32", "bool", "c64"]
_NUMPY_DTYPES = [np.float32, np.float64, np.float16, np.float32, np.int8,
                 np.int16, np.int32, np.int64, np.uint8, np.uint32, np.bool_,
                 np.complex64]
_BF16 = 3
_KINDS = ["input", "param", "argument", "output", "state"]

TensorInfo = collections.namedtuple("TensorInfo", "name dtype shape kind")
TensorInfo.__doc__ = ("An argument or result of a graph: its name, rlx dtype "
                      "name (f32, bf16, ...), shape tuple and kind (input, "
                      "param, state (a parameter training does not update, "
                      "such as batch norm's running statistics), argument "
                      "or output).")

BenchResult = collections.namedtuple(
    "BenchResult", "runs median_ms p90_ms min_ms total_ms peak_bytes")
BenchResult.__doc__ = ("Wall times of Graph.bench's timed runs in "
                       "milliseconds; peak_bytes is None where the runtime "
                       "does not count its buffers.")

OpTime = collections.namedtuple("OpTime", "op total_ms calls")
OpTime.__doc__ = ("One op's time in Graph.profile: its label, the total "
                  "milliseconds over the profiled runs and its calls.")


def api_version():
    """The C API version of the loaded library (RLX_C_API_VERSION)."""
    return _capi.lib().rlxGetAPIVersion()


def targets():
    """The names of the execution targets the library has (["cpu", ...])."""
    return _capi.lib().rlxGetTargetNames().decode().split(",")


def _looks_like_text(source):
    # Module text always holds an op or a brace; a path holds neither newline
    # nor brace.
    return "\n" in source or "{" in source


def _pipeline_options(options):
    """`allow_tf32=True, block_size=128` -> "allow-tf32 block-size=128"."""
    parts = []
    for key, value in options.items():
        name = key.replace("_", "-")
        if value is True:
            parts.append(name)
        elif value is False:
            parts.append(f"{name}=false")
        else:
            parts.append(f"{name}={value}")
    return " ".join(parts)


class _Options:
    """The C options struct and the Python strings it points into (kept alive
    with it)."""

    def __init__(self, target, entry, use_blas, profile, runtime_library,
                 pipeline_options, cache=True, timing=False):
        self.keep = [s.encode() if s is not None else None
                     for s in (target, entry, pipeline_options,
                               runtime_library)]
        self.struct = _capi.CompileOptions()
        _capi.lib().rlxCompileOptionsInit(ctypes.byref(self.struct))
        self.struct.target = self.keep[0]
        self.struct.entry = self.keep[1]
        self.struct.pipelineOptions = self.keep[2]
        self.struct.runtimeLibrary = self.keep[3]
        self.struct.useBlas = int(bool(use_blas))
        self.struct.profile = int(bool(profile))
        self.struct.cache = int(bool(cache))
        self.struct.timing = int(bool(timing))


# rlxGraphBench counts runs in a C unsigned: a larger or negative Python int
# would wrap (-1 became 4294967295 runs).
_MAX_RUNS = 2**32 - 1


def _count(value, name, least):
    """`value` as a run count of at least `least`, else RLXError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not least <= value <= _MAX_RUNS:
        raise RLXError(f"{name} must be an integer from {least} to "
                       f"{_MAX_RUNS}, got {value!r}")
    return int(value)


def _dims(shape):
    """`[?, 4]`: a shape with its `?` dims (None)."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


class _CallJob:
    """One C call handed to a call thread: its status once `done` is set."""

    def __init__(self, call):
        self.call = call
        self.status = None
        self.done = threading.Event()


class _CallThreads:
    """Long-lived daemon threads that make the C calls Ctrl-C may stop
    (Graph._interruptible). They are kept rather than started per call:
    every thread that runs a compiled graph becomes an OpenMP root thread,
    and the LLVM OpenMP runtime tears a root down in the exiting thread's
    TLS destructors, after Python's Thread.join has already returned. A
    thread per call raced that teardown with the next call's root set-up
    and with process exit ("Assertion failure at kmp_runtime.cpp"). A call
    takes an idle thread or starts one, so calls from several Python
    threads still run at once."""

    def __init__(self):
        self._lock = threading.Lock()
        self._idle = []

    def submit(self, call):
        job = _CallJob(call)
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = (collections.deque(), threading.Semaphore(0))
            threading.Thread(target=self._serve, args=(inbox,),
                             name="rlx-call", daemon=True).start()
        inbox[0].append(job)
        inbox[1].release()
        return job

    def _serve(self, inbox):
        # SIGINT for the main thread only: this thread and the threads the
        # runtime starts from it (which inherit the mask) are never
        # interrupted inside compiled code or the runtime's thread pool.
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        jobs, wake = inbox
        while True:
            wake.acquire()
            job = jobs.popleft()
            try:
                job.status = job.call()
            finally:
                job.call = None  # drops the buffers and graph it held
                with self._lock:
                    self._idle.append(inbox)
                job.done.set()


_CALL_THREADS = _CallThreads()


class Graph:
    """A compiled graph: its signature (`inputs`, `params`, `outputs`, lists
    of TensorInfo), bound parameters, and `graph(**arrays)` to run it."""

    def __init__(self, handle, source=None, compile_args=None):
        self._handle = ctypes.c_void_p(handle)
        # What compiled it, for save() and grad(); None for a loaded library.
        self._source = source
        self._compile_args = compile_args
        self._library_path = None
        self._params = {}
        # compile(mesh=...)'s MeshLayout: whole arrays sliced to the rank's.
        self._layout = None
        lib = _capi.lib()
        self.name = lib.rlxGraphGetName(self._handle).decode()
        self.arguments = [self._spec(lib.rlxGraphGetArgument, i)
                          for i in range(lib.rlxGraphGetNumArguments(
                              self._handle))]
        self.results = [self._spec(lib.rlxGraphGetResult, i)
                        for i in range(lib.rlxGraphGetNumResults(
                            self._handle))]
        self._dtype_codes = [self._code(lib.rlxGraphGetArgument, i)
                             for i in range(len(self.arguments))]
        self._result_codes = [self._code(lib.rlxGraphGetResult, i)
                              for i in range(len(self.results))]

    def _spec(self, getter, index):
        spec = _capi.TensorSpec()
        _capi.check(getter(self._handle, index, ctypes.byref(spec)))
        # A `?` dim (-1) is None: its size is the run's.
        shape = tuple(None if spec.shape[d] < 0 else spec.shape[d]
                      for d in range(spec.rank))
        return TensorInfo(spec.name.decode(), _DTYPE_NAMES[spec.dtype], shape,
                          _KINDS[spec.kind])

    def _code(self, getter, index):
        spec = _capi.TensorSpec()
        _capi.check(getter(self._handle, index, ctypes.byref(spec)))
        return spec.dtype

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _capi._lib is not None:
            _capi._lib.rlxGraphDestroy(handle)
            self._handle = None

    @property
    def inputs(self):
        """The arguments marked rlx.input (and unnamed ones), in order."""
        return [a for a in self.arguments
                if a.kind not in ("param", "state")]

    @property
    def params(self):
        """The arguments marked rlx.param, in order: the trained parameters
        (kind "param") and the state (kind "state", also marked rlx.state),
        all bound from a parameter file or mapping."""
        return [a for a in self.arguments if a.kind in ("param", "state")]

    @property
    def state(self):
        """The parameters marked rlx.state: read by the graph, not trained
        (batch norm's running statistics); rlx.grad and rlx-autodiff leave
        them out of the default wrt."""
        return [a for a in self.arguments if a.kind == "state"]

    @property
    def outputs(self):
        """The results, named output_0, output_1, ..."""
        return list(self.results)

    def __repr__(self):
        def show(infos):
            return ", ".join(f"{t.name}: {list(t.shape)} {t.dtype}"
                             for t in infos)
        return (f"<rlx.Graph @{self.name} inputs=({show(self.inputs)}) "
                f"params=({show(self.params)}) "
                f"outputs=({show(self.outputs)})>")

    def _index(self, name):
        for i, info in enumerate(self.arguments):
            if info.name == name:
                return i
        names = ", ".join(a.name for a in self.arguments)
        raise RLXError(f"'{name}' is not an argument of @{self.name} "
                       f"(arguments: {names})")

    def _convert(self, index, array):
        """`array` as a contiguous buffer of argument `index`'s dtype and
        shape; raises RLXError naming the argument otherwise."""
        info = self.arguments[index]
        code = self._dtype_codes[index]
        if self._layout is not None:
            array = self._layout.block(info.name, array)
        array = np.asarray(array)
        if len(array.shape) != len(info.shape) or any(
                want is not None and want != got
                for want, got in zip(info.shape, array.shape)):
            raise RLXError(f"{info.kind} '{info.name}' of @{self.name} is "
                           f"{_dims(info.shape)} {info.dtype}, got an array "
                           f"of shape {list(array.shape)}")
        target = np.dtype(_NUMPY_DTYPES[code])
        if not np.can_cast(array.dtype, target, casting="same_kind"):
            raise RLXError(f"{info.kind} '{info.name}' of @{self.name} is "
                           f"{info.dtype}; an array of {array.dtype} does "
                           "not convert to it")
        array = np.ascontiguousarray(array, dtype=target)
        if code == _BF16:
            array = f32_to_bf16(array)
        return array

    def _read_npz(self, path):
        """The arrays of a .npz archive that name an argument. NumPy reads
        it (stored or compressed entries); errors name the file."""
        names = {a.name for a in self.arguments}
        try:
            with np.load(path, allow_pickle=False) as archive:
                return {name: archive[name] for name in archive.files
                        if name in names}
        except (OSError, ValueError, zipfile.BadZipFile) as error:
            raise RLXError(f"cannot read '{path}' as a .npz archive: "
                           f"{error}") from None

    def bind(self, params=None, **arrays):
        """Binds arguments for every later run: `params` is a .safetensors,
        GGUF or .npz path (tensors naming no argument are ignored) or a
        name -> array mapping (each name must be an argument); `arrays` as
        keywords."""
        lib = _capi.lib()
        if (isinstance(params, (str, os.PathLike))
                and os.fspath(params).endswith(".npz")):
            params = self._read_npz(os.fspath(params))
        if isinstance(params, (str, os.PathLike)) and self._layout is not None:
            # Whole tensors, sliced here (_convert) before binding.
            if not os.fspath(params).endswith(".safetensors"):
                raise RLXError(f"a graph compiled with mesh= binds "
                               f".safetensors and .npz files, not "
                               f"'{os.fspath(params)}'")
            names = {a.name for a in self.arguments}
            params = {name: value for name, value in
                      read_safetensors(os.fspath(params)).items()
                      if name in names}
        if isinstance(params, (str, os.PathLike)):
            count = ctypes.c_size_t()
            _capi.check(lib.rlxGraphBindParams(
                self._handle, os.fspath(params).encode(),
                ctypes.byref(count)))
            self._params["@file"] = os.fspath(params)
            return self
        merged = dict(params or {})
        merged.update(arrays)
        buffers = {name: self._convert(self._index(name), value)
                   for name, value in merged.items()}
        # One C call for all: a run in another thread sees all of them
        # bound or none (the C API's per-graph lock, docs/c-api.md).
        count = len(buffers)
        names = (ctypes.c_char_p * max(1, count))(
            *(name.encode() for name in buffers))
        pointers = (ctypes.c_void_p * max(1, count))(
            *(buffer.ctypes.data for buffer in buffers.values()))
        sizes = (ctypes.c_size_t * max(1, count))(
            *(buffer.nbytes for buffer in buffers.values()))
        _capi.check(lib.rlxGraphBindMany(self._handle, names, pointers, sizes,
                                         count))
        for name, value in merged.items():
            self._params[name] = np.array(value, copy=True)
        return self

    def _buffers(self, args, arrays, fill_random=False):
        """Argument pointers (None where bound), the arrays that keep them
        alive, and output arrays."""
        lib = _capi.lib()
        given = {}
        positional = [i for i in range(len(self.arguments))
                      if not lib.rlxGraphIsBound(self._handle, i)]
        if len(args) > len(positional):
            raise RLXError(f"@{self.name} takes {len(positional)} positional "
                           f"arrays (its unbound arguments), got {len(args)}")
        for i, value in zip(positional, args):
            given[i] = value
        for name, value in arrays.items():
            index = self._index(name)
            if index in given:
                raise RLXError(f"'{name}' is given twice")
            given[index] = value
        keep = []
        pointers = (ctypes.c_void_p * max(1, len(self.arguments)))()
        rng = np.random.default_rng(0)
        for i, info in enumerate(self.arguments):
            if i in given:
                buffer = self._convert(i, given[i])
            elif lib.rlxGraphIsBound(self._handle, i):
                continue
            elif fill_random:
                buffer = self._convert(i, _random(info, rng))
            else:
                raise RLXError(
                    f"no data for {info.kind} '{info.name}' "
                    f"({list(info.shape)} {info.dtype}) of @{self.name}: "
                    "pass it by name or bind it")
            keep.append(buffer)
            pointers[i] = buffer.ctypes.data
        outputs = []
        output_pointers = (ctypes.c_void_p * max(1, len(self.results)))()
        if self.is_dynamic:
            # The run gives the outputs their shapes (_run_shaped).
            return pointers, keep, outputs, output_pointers
        for i, code in enumerate(self._result_codes):
            dtype = np.uint16 if code == _BF16 else _NUMPY_DTYPES[code]
            out = np.empty(self.results[i].shape, dtype=dtype)
            outputs.append(out)
            output_pointers[i] = out.ctypes.data
        return pointers, keep, outputs, output_pointers

    def _finish(self, outputs):
        outputs = [bf16_to_f32(out) if code == _BF16 else out
                   for out, code in zip(outputs, self._result_codes)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __call__(self, *args, **arrays):
        """Runs once. Arrays are given by argument name (or positionally, in
        the order of the unbound arguments); each must have the argument's
        shape and a dtype that converts to its own (same kind). Returns one
        NumPy array for a single-output graph, a tuple otherwise."""
        pointers, keep, outputs, output_pointers = self._buffers(args, arrays)
        if self.is_dynamic:
            outputs = self._run_shaped(pointers, keep)
            del keep
            return self._finish(outputs)
        _capi.check(_capi.lib().rlxGraphRun(
            self._handle, pointers, len(self.arguments), output_pointers,
            len(self.results)))
        del keep
        return self._finish(outputs)

    def live_buffer_bytes(self):
        """The bytes the buffers of this graph's runtime hold now (every
        graph of that runtime together), or None where it does not count
        them. A failed run gives back what it held."""
        count = _capi.lib().rlxGraphGetLiveBufferBytes(self._handle)
        return None if count < 0 else count

    def debug_fail_allocation(self, after):
        """A test hook of the failure paths: `after` more buffer allocations
        of this graph's runtime succeed and the next one fails, once (its
        run raises RLXMemoryError); None turns it off."""
        after = -1 if after is None else _count(after, "after", 0)
        _capi.check(_capi.lib().rlxGraphDebugFailAllocation(self._handle,
                                                            after))

    @property
    def is_dynamic(self):
        """True when an argument or output has a `?` dim (None in its
        shape): each run takes its sizes from the arrays given."""
        return any(None in info.shape
                   for info in self.arguments + self.results)

    def _run_shaped(self, pointers, keep):
        """Runs a graph with `?` dims (rlxGraphRunShaped): the arrays in
        `keep` give the arguments' shapes; returns the outputs, copied into
        NumPy arrays of the shapes the run gave them."""
        lib = _capi.lib()
        shape_type = ctypes.POINTER(ctypes.c_int64)
        shapes = (shape_type * max(1, len(self.arguments)))()
        given = iter(keep)
        shape_arrays = []
        for i in range(len(self.arguments)):
            if not pointers[i]:
                continue
            dims = np.ascontiguousarray(next(given).shape, dtype=np.int64)
            shape_arrays.append(dims)
            shapes[i] = dims.ctypes.data_as(shape_type)
        results = (_capi.Output * max(1, len(self.results)))()
        _capi.check(lib.rlxGraphRunShaped(
            self._handle, pointers, shapes, len(self.arguments), results,
            len(self.results)))
        outputs = []
        for i, code in enumerate(self._result_codes):
            result = results[i]
            shape = tuple(result.shape[d] for d in range(result.rank))
            dtype = np.dtype(np.uint16 if code == _BF16
                             else _NUMPY_DTYPES[code])
            out = np.empty(shape, dtype=dtype)
            if out.nbytes:
                ctypes.memmove(out.ctypes.data, result.data, out.nbytes)
            lib.rlxOutputDestroy(ctypes.byref(result))
            outputs.append(out)
        return outputs

    def bench(self, n=10, warmup=2, *args, **arrays):
        """Times `n` runs after `warmup` untimed ones. Arguments neither
        given nor bound get seeded random data (floats uniform in [-1, 1),
        integers in [0, 8)). Returns a BenchResult. Ctrl-C (KeyboardInterrupt)
        stops it after the current run."""
        n = _count(n, "n", 1)
        warmup = _count(warmup, "warmup", 0)
        if self.is_dynamic:
            raise RLXError(f"@{self.name} has `?` dims: bench runs a graph "
                           "of static shapes (time calls of the graph "
                           "instead)")
        pointers, keep, outputs, output_pointers = self._buffers(
            args, arrays, fill_random=True)
        result = _capi.BenchResult()
        _capi.check(self._interruptible(
            lambda: _capi.lib().rlxGraphBench(
                self._handle, pointers, len(self.arguments), output_pointers,
                len(self.results), warmup, n, ctypes.byref(result)),
            (keep, outputs, output_pointers, result)))
        del keep, outputs
        return BenchResult(result.runs, result.medianMs, result.p90Ms,
                           result.minMs, result.totalMs,
                           None if result.peakBytes < 0 else result.peakBytes)

    def profile(self, n=10, warmup=2, *args, trace=None, **arrays):
        """Times each op of `n` runs after `warmup` untimed ones, as bench
        does (same arguments), for a graph compiled with profile=True.
        Returns a list of OpTime(op, total_ms, calls), largest total first
        (the totals over the `n` runs). With `trace="out.json"`, also writes
        every timed op call as a Chrome trace (chrome://tracing,
        ui.perfetto.dev), as `rlx-run --profile --trace` does."""
        lib = _capi.lib()

        def report(path):
            result = ctypes.c_void_p()
            _capi.check(lib.rlxGraphProfileReport(
                self._handle, path, ctypes.byref(result)))
            try:
                return json.loads(ctypes.string_at(result.value).decode())
            finally:
                lib.rlxStringDestroy(result)

        report(None)  # A graph without timers fails here, before any run.
        if trace is not None:
            _capi.check(lib.rlxGraphStartTrace(self._handle))
        self.bench(n, warmup, *args, **arrays)
        ops = report(None if trace is None else os.fsencode(trace))
        return [OpTime(op["op"], op["total_ms"], op["calls"]) for op in ops]

    def _interruptible(self, call, held):
        """Returns the status of `call()`, a C call that rlxGraphInterrupt
        stops between runs, made on a worker thread. Python runs signal
        handlers on the main thread between bytecodes, never inside a C
        call, so Ctrl-C would wait for the whole call; here the main thread
        only waits (ctypes releases the GIL for the call), takes the
        KeyboardInterrupt, interrupts the call, waits for it to stop and
        raises the KeyboardInterrupt again. The worker holds `held` (the
        buffers the call uses) and the graph until it ends, even when a
        second Ctrl-C abandons it."""
        job = _CALL_THREADS.submit(lambda graph=self, held=held: call())
        lib = _capi.lib()
        try:
            while not job.done.wait(0.1):
                pass
        except KeyboardInterrupt:
            # Sent until the call returns: a call clears requests made
            # before it started.
            while not job.done.wait(0.02):
                lib.rlxGraphInterrupt(self._handle)
            if job.status:
                lib.rlxStatusDestroy(job.status)
            raise
        return job.status

    def save(self, path):
        """Writes the graph ahead of time as a shared library that rlx.load
        (and `rlx-run --load`) runs. Bound parameters are not part of it:
        bind them again after loading."""
        path = os.fspath(path)
        if self._library_path is not None:
            if os.path.abspath(path) != os.path.abspath(self._library_path):
                with open(self._library_path, "rb") as source:
                    write_atomically(
                        path, lambda file: shutil.copyfileobj(source, file))
            return path
        return _emit_text(self._source, self._compile_args, path)


def _emit_text(source, args, path):
    """Writes module text `source` compiled with _Options(**args) as a
    shared library at `path`."""
    options = _Options(**args)
    encoded = source.encode()
    _capi.check(_capi.lib().rlxEmitSharedLibraryFromString(
        encoded, len(encoded), ctypes.byref(options.struct), path.encode()))
    return path


def _random(info, rng):
    dtype = _NUMPY_DTYPES[_DTYPE_NAMES.index(info.dtype)]
    if info.dtype in ("f32", "f64", "f16", "bf16"):
        return rng.uniform(-1, 1, info.shape).astype(dtype)
    if info.dtype == "c64":
        return (rng.uniform(-1, 1, info.shape)
                + 1j * rng.uniform(-1, 1, info.shape)).astype(dtype)
    if info.dtype == "bool":
        return rng.integers(0, 2, info.shape).astype(dtype)
    return rng.integers(0, 8, info.shape).astype(dtype)


def _read_source(path_or_text):
    """Module text of a path or of text."""
    if isinstance(path_or_text, os.PathLike) or not _looks_like_text(
            path_or_text):
        path = os.fspath(path_or_text)
        try:
            with open(path) as file:
                return file.read()
        except OSError as error:
            raise RLXError(f"cannot read '{path}': {error.strerror}") \
                from None
    return path_or_text


def _compile_args(target, entry, use_blas, profile, runtime_library,
                  pipeline_options, options):
    """The keywords of _Options from those of rlx.compile."""
    text_options = " ".join(filter(None, [pipeline_options or "",
                                          _pipeline_options(options)]))
    return dict(target=target, entry=entry, use_blas=use_blas,
                profile=profile, runtime_library=runtime_library,
                pipeline_options=text_options or None)


def _compile_text(source, args):
    """The Graph of module text `source` compiled with _Options(**args)."""
    options = _Options(**args)
    encoded = source.encode()
    handle = ctypes.c_void_p()
    _capi.check(_capi.lib().rlxCompileString(
        encoded, len(encoded), ctypes.byref(options.struct),
        ctypes.byref(handle)))
    return Graph(handle.value, source, args)


def compile(path_or_text, target="cpu", params=None, entry=None,
            use_blas=True, profile=False, runtime_library=None,
            pipeline_options=None, cache=True, timing=False, mesh=None,
            **options):
    """Compiles a module of rlx graphs (a path or the text) for `target`.

    `entry` picks the graph function (default: the only public one);
    `params` (a .safetensors or GGUF path or a name -> array mapping) is
    bound; other keywords are options of the target's pipeline,
    `allow_tf32=True, block_size=128` standing for
    "allow-tf32 block-size=128" (or give the text as `pipeline_options`).

    `cache=False` compiles without the persistent compile cache
    (docs/compile-cache.md), which otherwise loads a graph compiled before
    with the same text, options, target, CPU and compiler; `timing=True`
    prints MLIR's pass timing report and each compile phase's time on
    stderr.

    `mesh` (the mesh's axis sizes, e.g. [2] or [2, 4]) compiles a graph
    annotated for that mesh (rlx.mesh, rlx.split; docs/distributed.md) as
    the program of this process's rank (rlx-shard-partition), the rank
    and world read from the launcher (mpirun, rlx-run --ranks): arrays
    given whole for split arguments, to `params`, `bind` or a run, are
    sliced to the rank's block. Raises RLXError with the diagnostics."""
    source = _read_source(path_or_text)
    args = _compile_args(target, entry, use_blas, profile, runtime_library,
                         pipeline_options, options)
    args.update(cache=cache, timing=timing)
    layout = None
    if mesh is not None:
        from ._mesh import MeshLayout
        layout = MeshLayout(source, entry, mesh)
        source = transform(source, "builtin.module(rlx-shard-partition)")
    graph = _compile_text(source, args)
    graph._layout = layout
    if params is not None:
        graph.bind(params)
    return graph


def emit_shared_library(path_or_text, output_path, target="cpu", entry=None,
                        use_blas=True, profile=False, runtime_library=None,
                        pipeline_options=None, **options):
    """Compiles ahead of time into the shared library `output_path`, without
    compiling for this process: a library for a target this machine cannot
    run (cuda without a GPU) is written all the same. Keywords as
    rlx.compile takes them. Returns `output_path`."""
    args = _compile_args(target, entry, use_blas, profile, runtime_library,
                         pipeline_options, options)
    return _emit_text(_read_source(path_or_text), args,
                      os.fspath(output_path))


def load(path, params=None):
    """Loads a shared library written by Graph.save (or rlx-run
    --emit-shared-lib); binds `params` as Graph.bind does."""
    path = os.fspath(path)
    handle = ctypes.c_void_p()
    _capi.check(_capi.lib().rlxGraphLoad(path.encode(), ctypes.byref(handle)))
    graph = Graph(handle.value)
    graph._library_path = path
    if params is not None:
        graph.bind(params)
    return graph


def load_plugin(path):
    """Loads a custom op plugin (a shared library exporting rlx_plugin_init,
    docs/custom-ops.md): its rlx.custom ops are checked when graphs compile
    and called when they run."""
    _capi.check(_capi.lib().rlxLoadPlugin(os.fspath(path).encode()))


def transform(path_or_text, pipeline):
    """Runs a pass pipeline (rlx-opt's textual form, e.g.
    "rlx-autodiff{func=f}") on module text and returns the new text."""
    source = _read_source(path_or_text).encode()
    result = ctypes.c_void_p()
    _capi.check(_capi.lib().rlxTransformString(
        source, len(source), pipeline.encode(), ctypes.byref(result)))
    try:
        return ctypes.string_at(result.value).decode()
    finally:
        _capi.lib().rlxStringDestroy(result)


def _public_functions(text):
    return re.findall(r"^\s*func\.func\s+@([\w$.-]+)\s*\(", text, re.M)


def grad(graph_or_text, wrt=None, func=None, target=None, params=None,
         **options):
    """The gradient graph of a loss (docs/autodiff.md): `rlx-autodiff`
    adds @F_grad, whose results are F's results followed by d loss / d w
    for each name in `wrt` (default: every rlx.param), where the loss is
    F's first result (one element).

    `graph_or_text` is a Graph from rlx.compile (its source, entry, target,
    options and bound parameters carry over) or module text or a path (then
    `func` names F if the module has several functions). Returns the
    compiled @F_grad."""
    if isinstance(graph_or_text, Graph):
        graph = graph_or_text
        if graph._source is None:
            raise RLXError("rlx.grad needs the graph's rlx IR; a graph loaded "
                           "from a shared library has none")
        source = graph._source
        func = func or graph.name
        args = dict(graph._compile_args)
        if target is not None:
            args["target"] = target
        inherited = {k: v for k, v in graph._params.items() if k != "@file"}
        params_file = graph._params.get("@file")
    else:
        source = _read_source(graph_or_text)
        args = dict(target=target or "cpu", entry=None, use_blas=True,
                    profile=False, runtime_library=None,
                    pipeline_options=None)
        inherited, params_file = {}, None
    if func is None:
        names = _public_functions(source)
        if len(names) != 1:
            raise RLXError("rlx.grad: the module has functions "
                           f"{names}; name the loss function with func=")
        func = names[0]
    extra = _pipeline_options(options)
    if extra:
        args["pipeline_options"] = " ".join(
            filter(None, [args.get("pipeline_options"), extra]))
    pass_options = f"func={func}"
    if wrt:
        pass_options += " wrt=" + ",".join(wrt)
    text = transform(source, f"builtin.module(rlx-autodiff{{{pass_options}}})")
    args["entry"] = f"{func}_grad"
    result = _compile_text(text, args)
    if params_file is not None:
        result.bind(params_file)
    if inherited:
        result.bind(inherited)
    if params is not None:
        result.bind(params)
    return result
