# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""python3 -m rlx.torch MODULE_FILE:FACTORY -o model.mlir
                        [--params model.safetensors] [--dtype f16|bf16]
                        [--dynamic | --dynamic-dim INPUT:DIM=NAME ...]

FACTORY is a function of MODULE_FILE returning (module, example_inputs),
example_inputs a tuple of tensors; the module is put in eval mode.
--dtype imports an f32 module in mixed precision (import_module's dtype=);
bf16 parameters are written as bf16. --dynamic makes dim 0 of every input
the symbolic dim `batch`, --dynamic-dim x:1=seq dim 1 of input x the
symbolic dim `seq` (import_module's dynamic=)."""

import argparse
import importlib.util
import os
import re
import sys

from .._capi import RLXError
from ..safetensors import write_safetensors
from ._importer import import_module


def _load_factory(spec):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise RLXError(f"expected MODULE_FILE:FACTORY, got '{spec}'")
    if not os.path.isfile(path):
        raise RLXError(f"no such file '{path}'")
    module_spec = importlib.util.spec_from_file_location(
        os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise RLXError(f"'{path}' has no function '{name}'")
    return factory


def _dynamic_dims(args):
    """import_module's dynamic= of --dynamic and --dynamic-dim."""
    if args.dynamic and args.dynamic_dim:
        raise RLXError("give --dynamic (dim 0 of every input) or "
                       "--dynamic-dim, not both")
    if args.dynamic:
        return True
    dynamic = {}
    for spec in args.dynamic_dim:
        where, _, name = spec.rpartition("=")
        tensor, _, dim = where.rpartition(":")
        if not tensor or not name or not re.fullmatch(r"-?\d+", dim):
            raise RLXError(f"--dynamic-dim expects INPUT:DIM=NAME, got "
                           f"'{spec}'")
        dynamic.setdefault(tensor, {})[int(dim)] = name
    return dynamic


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m rlx.torch",
        description="Import a PyTorch module as an rlx graph.")
    parser.add_argument("factory", metavar="MODULE_FILE:FACTORY",
                        help="a function returning (module, example_inputs)")
    parser.add_argument("-o", "--output", required=True,
                        help="the rlx graph (.mlir)")
    parser.add_argument("--params", help="the parameters (.safetensors)")
    parser.add_argument("--dtype", choices=("f16", "bf16"),
                        help="mixed precision from an f32 module")
    parser.add_argument("--dynamic", action="store_true",
                        help="dim 0 of every input is the symbolic dim "
                        "'batch' (`?`: the graph runs at any batch size)")
    parser.add_argument("--dynamic-dim", action="append", default=[],
                        metavar="INPUT:DIM=NAME",
                        help="dim DIM of input INPUT is the symbolic dim "
                        "NAME (repeatable; dims of one name are one size)")
    args = parser.parse_args(argv)
    try:
        module, example_inputs = _load_factory(args.factory)()
        if not isinstance(example_inputs, (tuple, list)):
            example_inputs = (example_inputs,)
        text, params = import_module(module.eval(), *example_inputs,
                                     dtype=args.dtype,
                                     dynamic=_dynamic_dims(args))
        with open(args.output, "w") as file:
            file.write(text)
        if args.params:
            # bf16 parameters are float32 arrays of bf16 values.
            bf16 = re.findall(r'xbf16> \{rlx\.param = "([^"]*)"', text)
            write_safetensors(args.params, params, bf16=bf16)
        elif params:
            print(f"warning: {len(params)} parameters not written (give "
                  "--params FILE.safetensors)", file=sys.stderr)
    except RLXError as error:
        print(f"rlx.torch: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
