"""The environment that gives OpenBLAS, wherever a benchmark uses it (rlx's
CPU runtime, PyTorch's BLAS on Debian, the direct sgemm baseline), the same
kernels on this CPU.

OpenBLAS picks its kernels by CPU model when it loads; a release older than
the CPU (Debian 12's 0.3.21 on Emerald Rapids Xeons) falls back to its SSE3
"Prescott" kernels. rlx's runtime names the kernels of the CPU's
instruction set in OPENBLAS_CORETYPE before opening OpenBLAS (see
docs/rlx-run.md); a baseline must get the same, or it is handicapped by its
setup. This mirrors the runtime's choice, and keeps a value the user set.
"""

import os


def _cpu():
    vendor, flags = "", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "vendor_id" and not vendor:
                    vendor = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return vendor, flags


def openblas_core():
    """The OPENBLAS_CORETYPE rlx's runtime uses on this CPU, or None."""
    vendor, flags = _cpu()
    if vendor != "GenuineIntel":
        return None
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"} <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


def openblas_env(env=None):
    """A copy of `env` (default: os.environ) with OPENBLAS_CORETYPE set as
    rlx's runtime sets it, unless already set."""
    env = dict(os.environ if env is None else env)
    core = openblas_core()
    if core and "OPENBLAS_CORETYPE" not in env:
        env["OPENBLAS_CORETYPE"] = core
    return env
