# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""ctypes declarations of the C API (include/rlx-c/RLX.h)."""

import ctypes
import os

# The C API version these declarations follow (RLX_C_API_VERSION).
API_VERSION = 2


class RLXError(Exception):
    """A failure reported by rlx; the message carries the diagnostics."""


class RLXMemoryError(RLXError, MemoryError):
    """A failure to allocate memory (a buffer of a run): both an RLXError
    and a MemoryError, so either handler catches it."""


# RlxStatusCode.
STATUS_OUT_OF_MEMORY = 2


class TensorSpec(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("param", ctypes.c_char_p),
    ]


class Output(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("rank", ctypes.c_size_t),
    ]


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("target", ctypes.c_char_p),
        ("entry", ctypes.c_char_p),
        ("pipelineOptions", ctypes.c_char_p),
        ("useBlas", ctypes.c_int),
        ("profile", ctypes.c_int),
        ("runtimeLibrary", ctypes.c_char_p),
        ("cache", ctypes.c_int),
        ("timing", ctypes.c_int),
    ]


class BenchResult(ctypes.Structure):
    _fields_ = [
        ("runs", ctypes.c_uint),
        ("medianMs", ctypes.c_double),
        ("p90Ms", ctypes.c_double),
        ("minMs", ctypes.c_double),
        ("totalMs", ctypes.c_double),
        ("peakBytes", ctypes.c_int64),
    ]


def _library_path():
    """Where libRLXCAPI.so is: $RLX_CAPI_LIBRARY, else the library folder
    relative to this package (the build tree's lib/, or the installed one
    that cmake --install wrote into _install.py)."""
    explicit = os.environ.get("RLX_CAPI_LIBRARY")
    if explicit:
        return explicit
    try:
        from ._install import LIBRARY_DIR
    except ImportError:
        # The build tree: build/python/rlx/ beside build/lib/.
        LIBRARY_DIR = os.path.join("..", "..", "lib")
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, LIBRARY_DIR, "libRLXCAPI.so"))


def _declare(lib):
    c = ctypes
    status = c.c_void_p
    graph = c.c_void_p
    signatures = {
        "rlxGetAPIVersion": (c.c_int, []),
        "rlxStatusGetMessage": (c.c_char_p, [status]),
        "rlxStatusDestroy": (None, [status]),
        "rlxStatusGetCode": (c.c_int, [status]),
        "rlxGetLastErrorMessage": (c.c_char_p, []),
        "rlxDTypeGetSize": (c.c_size_t, [c.c_int]),
        "rlxDTypeGetName": (c.c_char_p, [c.c_int]),
        "rlxCompileOptionsInit": (None, [c.POINTER(CompileOptions)]),
        "rlxGetTargetNames": (c.c_char_p, []),
        "rlxCompileFile": (status, [c.c_char_p, c.POINTER(CompileOptions),
                                    c.POINTER(graph)]),
        "rlxCompileString": (status, [c.c_char_p, c.c_size_t,
                                      c.POINTER(CompileOptions),
                                      c.POINTER(graph)]),
        "rlxEmitSharedLibraryFromFile": (
            status, [c.c_char_p, c.POINTER(CompileOptions), c.c_char_p]),
        "rlxEmitSharedLibraryFromString": (
            status, [c.c_char_p, c.c_size_t, c.POINTER(CompileOptions),
                     c.c_char_p]),
        "rlxGraphLoad": (status, [c.c_char_p, c.POINTER(graph)]),
        "rlxTransformString": (status, [c.c_char_p, c.c_size_t, c.c_char_p,
                                        c.POINTER(c.c_void_p)]),
        "rlxStringDestroy": (None, [c.c_void_p]),
        "rlxGraphDestroy": (None, [graph]),
        "rlxGraphGetName": (c.c_char_p, [graph]),
        "rlxGraphGetNumArguments": (c.c_size_t, [graph]),
        "rlxGraphGetNumResults": (c.c_size_t, [graph]),
        "rlxGraphGetArgument": (status, [graph, c.c_size_t,
                                         c.POINTER(TensorSpec)]),
        "rlxGraphGetResult": (status, [graph, c.c_size_t,
                                       c.POINTER(TensorSpec)]),
        "rlxGraphFindArgument": (status, [graph, c.c_char_p,
                                          c.POINTER(c.c_size_t)]),
        "rlxGraphBind": (status, [graph, c.c_char_p, c.c_void_p,
                                  c.c_size_t]),
        "rlxGraphBindMany": (status, [graph, c.POINTER(c.c_char_p),
                                      c.POINTER(c.c_void_p),
                                      c.POINTER(c.c_size_t), c.c_size_t]),
        "rlxGraphBindSafetensors": (status, [graph, c.c_char_p,
                                             c.POINTER(c.c_size_t)]),
        "rlxLoadPlugin": (status, [c.c_char_p]),
        "rlxGraphBindParams": (status, [graph, c.c_char_p,
                                        c.POINTER(c.c_size_t)]),
        "rlxGraphIsBound": (c.c_int, [graph, c.c_size_t]),
        "rlxGraphRun": (status, [graph, c.POINTER(c.c_void_p), c.c_size_t,
                                 c.POINTER(c.c_void_p), c.c_size_t]),
        "rlxGraphRunShaped": (status, [graph, c.POINTER(c.c_void_p),
                                       c.POINTER(c.POINTER(c.c_int64)),
                                       c.c_size_t, c.POINTER(Output),
                                       c.c_size_t]),
        "rlxOutputDestroy": (None, [c.POINTER(Output)]),
        "rlxGraphBench": (status, [graph, c.POINTER(c.c_void_p), c.c_size_t,
                                   c.POINTER(c.c_void_p), c.c_size_t,
                                   c.c_uint, c.c_uint,
                                   c.POINTER(BenchResult)]),
        "rlxGraphInterrupt": (None, [graph]),
        "rlxGraphGetLiveBufferBytes": (c.c_int64, [graph]),
        "rlxGraphStartTrace": (status, [graph]),
        "rlxGraphProfileReport": (status, [graph, c.c_char_p,
                                           c.POINTER(c.c_void_p)]),
        "rlxGraphDebugFailAllocation": (status, [graph, c.c_int64]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


_lib = None


def lib():
    """The loaded C API library, declared; loads it on first use."""
    global _lib
    if _lib is None:
        path = _library_path()
        try:
            loaded = ctypes.CDLL(path)
        except OSError as error:
            raise RLXError(
                f"cannot load the rlx C API library '{path}': {error} (set "
                "RLX_CAPI_LIBRARY to its path)") from None
        _declare(loaded)
        version = loaded.rlxGetAPIVersion()
        if version != API_VERSION:
            raise RLXError(
                f"'{path}' has C API version {version}; this package needs "
                f"{API_VERSION}")
        _lib = loaded
    return _lib


def check(status):
    """Raises RLXError with the message of a failed status
    (RLXMemoryError, also a MemoryError, when memory ran out)."""
    if status:
        message = lib().rlxStatusGetMessage(status).decode(errors="replace")
        code = lib().rlxStatusGetCode(status)
        lib().rlxStatusDestroy(status)
        if code == STATUS_OUT_OF_MEMORY:
            raise RLXMemoryError(message)
        raise RLXError(message)
