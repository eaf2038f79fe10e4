# -*- Python -*-
# lit configuration of the rlx test suite.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "RLX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CAPI", "install", "lib", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rlx_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# No test reads or fills the user's compile cache: a hit would skip the
# compile diagnostics tests check. The cache's own tests set RLX_CACHE_DIR.
# RLX_LIT_CACHE_DIR=DIR runs the suite through a compile cache in DIR
# instead (run twice: the second run loads what the first stored).
config.environment["RLX_CACHE_DIR"] = os.environ.get("RLX_LIT_CACHE_DIR", "")

tool_dirs = [config.rlx_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["rlx-opt", "rlx-run", "mlir-opt"],
                                   tool_dirs)
# rlx-run-aot is built where LLVM's static Support library exists.
if os.path.exists(os.path.join(config.rlx_tools_dir, "rlx-run-aot")):
    llvm_config.add_tool_substitutions(["rlx-run-aot"], tool_dirs)
    config.available_features.add("rlx-run-aot")

# The numeric oracle (PyTorch + NumPy): the interpreter CMake found with
# both (the python3 first on PATH may be another one without them).
oracle_python = config.oracle_python
# Ahead of lit's own %python (the interpreter running lit).
config.substitutions.insert(0, ("%python", oracle_python or "python3"))
config.substitutions.append(("%rlx_src_root", config.rlx_src_root))
config.substitutions.append(("%rlx_obj_root", config.rlx_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))

# Tests that need the oracle say `REQUIRES: torch`.
if oracle_python:
    config.available_features.add("torch")

# `REQUIRES: cuda-toolkit`: the CUDA runtime library was built (cuda.h found)
# and ptxas exists, so rlx-cuda-pipeline can emit cubins.
import shutil
import subprocess

# `REQUIRES: mpi`: Open MPI's mpirun runs the distributed tests
# (test/Execution/Distributed). `%mpirun` starts N ranks: as root (CI's
# containers) Open MPI needs the two variables, and more ranks than cores
# need --oversubscribe; one OpenMP thread per rank keeps oversubscribed
# ranks from fighting over the cores.
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", "env OMPI_ALLOW_RUN_AS_ROOT=1 "
         "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 "
         "mpirun --oversubscribe -x OMP_NUM_THREADS"))

cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
has_ptxas = shutil.which("ptxas") or os.path.exists(
    os.path.join(cuda_home, "bin", "ptxas"))
if has_ptxas and os.path.exists(
        os.path.join(config.rlx_libs_dir, "librlx_cuda_runtime.so")):
    config.available_features.add("cuda-toolkit")
config.substitutions.append(("%rlx_libs_dir", config.rlx_libs_dir))

# `REQUIRES: cuda-device`: a GPU answers here (never on the build machine;
# scripts/gpu-check.sh runs the GPU checks on a GPU machine).
try:
    if subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                      timeout=20).returncode == 0:
        config.available_features.add("cuda-device")
except (OSError, subprocess.TimeoutExpired):
    pass
