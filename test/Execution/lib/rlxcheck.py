"""Helpers of the execution tests: run rlx graphs with rlx-run and compare
their outputs with a NumPy / PyTorch oracle.

Inputs are fresh random data on every run; the seed is printed so a failure
can be replayed with RLX_TEST_SEED=<seed>.

With RLX_CUDA_ARTIFACTS=DIR, every graph that runs on the CPU is also
compiled for the cuda target into DIR/cases/<test>-<n>/ (the library, its
inputs, and the CPU's outputs as the expected ones), for
`scripts/gpu-check.sh run` on a GPU machine; a graph the cuda target cannot
compile is listed in DIR/compile-failures.txt.
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

MLIR_TYPES = {
    np.dtype("float32"): "f32",
    np.dtype("float64"): "f64",
    np.dtype("float16"): "f16",
    np.dtype("int8"): "i8",
    np.dtype("int16"): "i16",
    np.dtype("int32"): "i32",
    np.dtype("int64"): "i64",
    np.dtype("uint8"): "ui8",
    np.dtype("uint32"): "ui32",
    np.dtype("bool"): "i1",
    np.dtype("complex64"): "complex<f32>",
}


def tensor_type(shape, dtype):
    """`tensor<2x3xf32>` for a shape and a NumPy dtype."""
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{MLIR_TYPES[np.dtype(dtype)]}>"


SAFETENSORS_DTYPES = {"float32": "F32", "float64": "F64", "float16": "F16",
                      "int64": "I64", "int32": "I32", "int8": "I8",
                      "uint8": "U8", "bool": "BOOL"}


def write_safetensors(path, tensors, dtypes=None):
    """Writes name -> array as a .safetensors file. `dtypes` names the
    safetensors dtype of arrays NumPy has no type for: name -> "BF16" for a
    uint16 array of bf16 bit patterns."""
    header, blobs, offset = {}, [], 0
    for name, value in tensors.items():
        raw = np.require(value, requirements="C").tobytes()
        dtype = (dtypes or {}).get(name) or SAFETENSORS_DTYPES[str(value.dtype)]
        header[name] = {"dtype": dtype,
                        "shape": list(value.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    """Reads a .safetensors file as name -> array."""
    dtypes = {v: k for k, v in SAFETENSORS_DTYPES.items()}
    with open(path, "rb") as f:
        data = f.read()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[8 + size + begin:8 + size + end]
        tensors[name] = np.frombuffer(raw, dtypes[entry["dtype"]]).reshape(
            entry["shape"]).copy()
    return tensors


# The GPU's outputs against the CPU's, per dtype (the loosest among a case's
# floating-point inputs and outputs applies to all outputs; integer tensors
# do not loosen it): f32 math differs in its last bits
# between the CPU's polynomial approximations and libdevice, and parallel
# sums associate differently; f16 results may differ by one unit in the
# last place (2^-10 relative).
GPU_TOLERANCE = {"float64": (1e-9, 1e-12), "float32": (1e-4, 1e-5),
                 "complex64": (1e-4, 1e-5), "float16": (2e-3, 1e-3)}


def _loosest(rtol, atol, dtype):
    """The looser of (rtol, atol) and the GPU tolerance of `dtype`."""
    if np.dtype(dtype).kind not in "fc":
        return max(rtol, GPU_TOLERANCE["float64"][0]), max(
            atol, GPU_TOLERANCE["float64"][1])
    got = GPU_TOLERANCE.get(np.dtype(dtype).name, GPU_TOLERANCE["float32"])
    return max(rtol, got[0]), max(atol, got[1])


# An rlx op in a graph's text: its name where an operation starts.
OP_NAME = re.compile(r'(?:^|=|")\s*(rlx\.[a-z0-9_]+)(?=[\s"(<{])', re.M)


class Checker:
    """Runs graphs and accumulates comparison results."""

    def __init__(self, rlx_run):
        self.rlx_run = rlx_run
        seed = int(os.environ.get("RLX_TEST_SEED", "0")) or int.from_bytes(
            os.urandom(4), "little")
        print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
        self.rng = np.random.default_rng(seed)
        self.workdir = tempfile.mkdtemp(prefix="rlx-exec-")
        self.cases = 0
        self.passed = 0
        self.failed = 0

    def uniform(self, shape, dtype, low=-1.0, high=1.0):
        """Random floats in [low, high), never all zeros."""
        dtype = np.dtype(dtype)
        if dtype.kind == "c":
            re = self.rng.uniform(low, high, shape)
            im = self.rng.uniform(low, high, shape)
            return (re + 1j * im).astype(dtype)
        return self.rng.uniform(low, high, shape).astype(dtype)

    def integers(self, shape, dtype, low, high):
        return self.rng.integers(low, high, shape).astype(dtype)

    def run(self, mlir, inputs, entry=None, params=None, gpu_tolerance=None,
            cuda_options=None, cpu_options=None, gpu_check=True):
        """Runs the graph in `mlir` with `inputs` (name -> array, as .npy)
        and `params` (name -> array, as one .safetensors) and returns its
        outputs in order. `gpu_tolerance`, an (rtol, atol) pair, loosens the
        GPU check against the CPU's outputs for graphs that compute in a
        narrower type than their inputs and outputs (bf16 between casts, or
        TF32). `cuda_options` are rlx-cuda-pipeline options for the CUDA
        artifact (`--pipeline-options`), such as "allow-tf32";
        `cpu_options` are rlx-cpu-pipeline options for this run, such as
        "matmul-precision=bf16". `gpu_check=False` leaves the case out of
        scripts/gpu-check.sh: for a CPU option that changes the result
        (matmul-precision=bf16 rounds f32 operands), which the cuda target
        does not compute."""
        self.cases += 1
        case = os.path.join(self.workdir, f"case{self.cases}")
        os.makedirs(case)
        with open(os.path.join(case, "graph.mlir"), "w") as f:
            f.write(mlir)
        coverage = os.environ.get("RLX_OP_COVERAGE")
        if coverage:
            # scripts/op-coverage.py: which test runs which ops.
            test = os.path.splitext(os.path.basename(sys.argv[0]))[0]
            ops = sorted(set(OP_NAME.findall(mlir)))
            with open(coverage, "a") as f:
                f.write(f"{test}\t{' '.join(ops)}\n")
        cmd = [self.rlx_run, os.path.join(case, "graph.mlir"), "--output",
               os.path.join(case, "out")]
        if entry:
            cmd += ["--entry", entry]
        if cpu_options:
            cmd += [f"--pipeline-options={cpu_options}"]
        if params:
            path = os.path.join(case, "params.safetensors")
            write_safetensors(path, params)
            cmd += ["--params", path]
        for name, value in inputs.items():
            path = os.path.join(case, f"in_{name}.npy")
            np.save(path, np.require(value, requirements="C"))
            cmd += ["--input", f"{name}={path}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL: rlx-run exited {proc.returncode} on {case}:\n"
                  f"{proc.stderr}")
            self.failed += 1
            return None
        outputs = []
        i = 0
        while os.path.exists(os.path.join(case, "out", f"output_{i}.npy")):
            outputs.append(np.load(os.path.join(case, "out",
                                                f"output_{i}.npy")))
            i += 1
        artifacts = os.environ.get("RLX_CUDA_ARTIFACTS")
        if artifacts and gpu_check:
            self._cuda_artifact(artifacts, case, cmd, len(outputs),
                                gpu_tolerance or (0.0, 0.0), cuda_options)
        return outputs

    def _cuda_artifact(self, root, case, cpu_cmd, num_outputs, tolerance,
                       cuda_options=None):
        """Compiles the case for the cuda target, with the CPU run's inputs
        and outputs, as one case of scripts/gpu-check.sh."""
        import shutil
        test = os.path.splitext(os.path.basename(sys.argv[0]))[0]
        name = f"{test}-{self.cases}"
        dest = os.path.join(root, "cases", name)
        os.makedirs(dest, exist_ok=True)
        cmd = [self.rlx_run, os.path.join(case, "graph.mlir"), "--target",
               "cuda", "--emit-shared-lib", os.path.join(dest, "graph.so")]
        if "--entry" in cpu_cmd:
            cmd += ["--entry", cpu_cmd[cpu_cmd.index("--entry") + 1]]
        if cuda_options:
            cmd += [f"--pipeline-options={cuda_options}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        shutil.copy(os.path.join(case, "graph.mlir"), dest)
        if proc.returncode != 0:
            with open(os.path.join(root, "compile-failures.txt"), "a") as f:
                first = proc.stderr.strip().splitlines()[:3]
                f.write(f"{name}: " + " | ".join(first) + "\n")
            return
        args = ["--load", "./graph.so"]
        rtol, atol = tolerance
        for i, arg in enumerate(cpu_cmd):
            if cpu_cmd[i - 1] in ("--input", "--params"):
                value = arg.split("=", 1)
                path = value[-1]
                shutil.copy(path, dest)
                value[-1] = os.path.basename(path)
                args += [cpu_cmd[i - 1], "=".join(value)]
                if path.endswith(".npy"):
                    # An f64 output computed from f32 inputs carries f32
                    # rounding: inputs count for the tolerance too.
                    rtol, atol = _loosest(rtol, atol, np.load(path).dtype)
        os.makedirs(os.path.join(dest, "expected"), exist_ok=True)
        for i in range(num_outputs):
            path = os.path.join(case, "out", f"output_{i}.npy")
            shutil.copy(path, os.path.join(dest, "expected"))
            args += ["--check", f"output_{i}=expected/output_{i}.npy"]
            expected = np.load(path)
            rtol, atol = _loosest(rtol, atol, expected.dtype)
            if expected.dtype.kind in "fc" and expected.size:
                # The GPU sums in another order, and the rounding of a sum
                # scales with its magnitude: the absolute part is relative
                # to the output's largest |value| (cuDNN's f32 convolutions
                # over 4608-term windows differ from the CPU's by 3e-6 of
                # an output of magnitude 80).
                scale = float(np.max(np.abs(expected[np.isfinite(expected)]),
                                     initial=0.0))
                atol = max(atol, _loosest(0, 0, expected.dtype)[1] * scale)
        args += ["--rtol", str(rtol), "--atol", str(atol)]
        with open(os.path.join(dest, "args"), "w") as f:
            f.write("\n".join(args) + "\n")

    def close(self, what, got, want, rtol, atol):
        """Records whether `got` matches `want` within atol + rtol*|want|."""
        want = np.asarray(want)
        ok = got is not None and got.shape == want.shape and \
            got.dtype == want.dtype
        if ok:
            if want.dtype.kind in "biu":
                ok = np.array_equal(got, want)
            else:
                ok = np.allclose(got, want, rtol=rtol, atol=atol,
                                 equal_nan=True)
        if ok:
            self.passed += 1
            return
        self.failed += 1
        if got is None:
            print(f"FAIL {what}: no output")
        elif got.shape != want.shape or got.dtype != want.dtype:
            print(f"FAIL {what}: got {got.shape} {got.dtype}, want "
                  f"{want.shape} {want.dtype}")
        else:
            diff = np.abs(got.astype(np.complex128) - want.astype(
                np.complex128))
            print(f"FAIL {what}: max abs err {diff.max():.3g} "
                  f"(rtol {rtol}, atol {atol})")

    def within_ulp(self, what, got, want, max_ulp):
        """Records whether the f32 `got` is within `max_ulp` units in the last
        place of `want` (the exact value rounded to f32), NaN where `want` is
        NaN, and with `want`'s sign on zeros and infinities."""
        want = np.asarray(want, np.float32)
        if got is None or got.shape != want.shape or got.dtype != want.dtype:
            return self.close(what, got, want, 0, 0)

        def ordered(v):
            # The bit patterns as integers that count ulps across zero.
            i = v.view(np.int32).astype(np.int64)
            return np.where(i < 0, -(i & 0x7FFFFFFF), i)

        nan = np.isnan(want)
        ulps = np.abs(ordered(got) - ordered(want))
        ulps[nan] = 0
        bad = (np.isnan(got) != nan) | (ulps > max_ulp) | \
            (np.signbit(got) != np.signbit(want)) & ~nan
        if not bad.any():
            self.passed += 1
            return
        self.failed += 1
        j = int(np.argmax(bad))
        print(f"FAIL {what}: {int(bad.sum())} outside {max_ulp} ulp, e.g. "
              f"got {got.flat[j]!r} want {want.flat[j]!r} "
              f"({int(ulps.flat[j])} ulp)")

    def succeeded(self, what, proc):
        """True if the finished process `proc` exited with 0; else records a
        failed case with its stderr."""
        if proc.returncode == 0:
            return True
        self.cases += 1
        self.failed += 1
        print(f"FAIL {what}: exited {proc.returncode}: {proc.stderr}")
        return False

    def failed_with(self, what, proc, needles, one_line=True):
        """Records whether the finished process `proc` exited with 1 and
        wrote every needle to stderr: all in one line starting with
        "rlx-run: error: " (the tool's one error line), or, with
        `one_line=False`, each in some line (diagnostics, run-time
        errors)."""
        self.cases += 1
        lines = proc.stderr.strip().splitlines()
        if one_line:
            ok = (len(lines) == 1 and lines[0].startswith("rlx-run: error: ")
                  and all(n in lines[0] for n in needles))
        else:
            ok = all(any(n in line for line in lines) for n in needles)
        if proc.returncode == 1 and ok:
            self.passed += 1
            return
        self.failed += 1
        print(f"FAIL {what}: exit {proc.returncode}, stderr {proc.stderr!r}, "
              f"wanted {tuple(needles)}")

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed or not self.passed else 0)
