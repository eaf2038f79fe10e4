# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""`rlx.compile(..., mesh=[...])`: a graph annotated for a mesh of ranks
(`rlx.mesh`, `rlx.split`; docs/distributed.md, "Sharding and tensor
parallelism") compiled as this process's rank's program, whose arguments
take the whole tensors and slice them to the rank's block.

The rank and the world come from the launcher's environment, as the
runtime reads them (lib/Runtime/Comm): `rlx-run --ranks`, an MPI launcher
(Open MPI, PMI) or srun; a process no launcher started is rank 0 of 1."""

import os
import re

import numpy as np

from ._capi import RLXError

# (size, rank) variables of each launcher, in the runtime's order.
_LAUNCHERS = (("RLX_WORLD_SIZE", "RLX_RANK"),
              ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
              ("PMI_SIZE", "PMI_RANK"),
              ("SLURM_NTASKS", "SLURM_PROCID"))


def world():
    """(rank, size) of this process in its launcher's world."""
    for size_name, rank_name in _LAUNCHERS:
        size, rank = os.environ.get(size_name), os.environ.get(rank_name)
        if size and rank and size.isdigit() and rank.isdigit() \
                and int(rank) < int(size):
            return int(rank), int(size)
    return 0, 1


def _function_text(source, entry):
    """The signature of the graph function `entry` (None: the only public
    one): its name, argument list text and the attributes after it."""
    starts = [(m.group(1), m.end()) for m in re.finditer(
        r"^\s*func\.func\s+@([\w$.-]+)\s*\(", source, re.M)]
    if entry is not None:
        starts = [s for s in starts if s[0] == entry]
    if len(starts) != 1:
        names = ", ".join(name for name, _ in starts) or "none"
        raise RLXError(f"mesh=: name the graph function with entry= (the "
                       f"module's functions: {names})")
    name, start = starts[0]
    depth, index = 1, start
    while depth and index < len(source):
        depth += {"(": 1, ")": -1}.get(source[index], 0)
        index += 1
    # The function's attribute dictionary, before its body (and before the
    # next function).
    rest = source[index:]
    following = re.search(r"^\s*func\.func\b", rest, re.M)
    attributes = re.search(r"\)?\s*attributes\s*\{([^{}]*)\}",
                           rest[:following.start()] if following else rest)
    return name, source[start:index - 1], attributes.group(1) \
        if attributes else ""


def _split_top_level(text):
    """`text` split at the commas outside brackets of any kind."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "<[{(":
            depth += 1
        elif char in ">]})":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        parts.append("".join(current))
    return parts


def _ints(text):
    return [int(v) for v in re.findall(r"-?\d+", text)]


class MeshLayout:
    """The mesh and argument splits of a graph function, and this rank's
    block of each split argument."""

    def __init__(self, source, entry, mesh):
        name, arguments, attributes = _function_text(source, entry)
        declared = re.search(r"rlx\.mesh\s*=\s*\[([^\]]*)\]", attributes)
        if not declared:
            raise RLXError(f"mesh={list(mesh)}: @{name} has no rlx.mesh "
                           "attribute (docs/distributed.md, Annotations)")
        self.mesh = _ints(declared.group(1))
        if list(mesh) != self.mesh:
            raise RLXError(f"mesh={list(mesh)}, but @{name} is annotated "
                           f"for the mesh {self.mesh}")
        self.rank, size = world()
        ranks = int(np.prod(self.mesh))
        if size != ranks:
            raise RLXError(
                f"@{name} runs over the mesh {self.mesh} of {ranks} ranks, "
                f"but this process is one of {size} (launch it with mpirun "
                f"-np {ranks} or rlx-run --ranks {ranks})")
        self.coords = np.unravel_index(self.rank, self.mesh)
        # argument name -> (whole shape, split axes per dim).
        self.splits = {}
        for argument in _split_top_level(arguments):
            named = re.search(r'rlx\.(?:input|param)\s*=\s*"([^"]*)"',
                              argument)
            split = re.search(r"rlx\.split\s*=\s*(\[.*\])", argument)
            shape = re.search(r"tensor<([^>]*)>", argument)
            if not (named and split and shape):
                continue
            dims = shape.group(1).split("x")[:-1]
            axes = [_ints(group) for group in
                    re.findall(r"\[([^\[\]]*)\]", split.group(1))]
            self.splits[named.group(1)] = (
                tuple(None if d == "?" else int(d) for d in dims), axes)

    def block(self, name, array):
        """This rank's block of argument `name` given whole (`array` as it
        is when it is already the block, or the argument is not split)."""
        if name not in self.splits:
            return array
        whole, axes = self.splits[name]
        array = np.asarray(array)
        if array.shape != whole:
            return array  # A block already, or wrong: the graph checks.
        for dim, dim_axes in enumerate(axes):
            if not dim_axes:
                continue
            sizes = [self.mesh[a] for a in dim_axes]
            index = int(np.ravel_multi_index(
                [self.coords[a] for a in dim_axes], sizes))
            array = np.split(array, int(np.prod(sizes)), axis=dim)[index]
        return np.ascontiguousarray(array)
