# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""python3 -m rlx.onnx MODEL.onnx -o model.mlir [--params model.safetensors]
                       [--dim NAME=SIZE]...

Imports an ONNX model as an rlx graph; --dim gives a dim_param a size (the
dim is `?` otherwise)."""

import argparse
import sys

from .._capi import RLXError
from ..safetensors import write_safetensors
from ._importer import import_model


def _dims(specs):
    dims = {}
    for spec in specs:
        name, _, size = spec.rpartition("=")
        if not name or not size.isdigit():
            raise RLXError(f"--dim expects NAME=SIZE, got '{spec}'")
        dims[name] = int(size)
    return dims


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m rlx.onnx",
        description="Import an ONNX model as an rlx graph.")
    parser.add_argument("model", help="the ONNX model (.onnx); external "
                        "data files are read from its folder")
    parser.add_argument("-o", "--output", required=True,
                        help="the rlx graph (.mlir)")
    parser.add_argument("--params", help="the initializers (.safetensors)")
    parser.add_argument("--dim", action="append", default=[],
                        metavar="NAME=SIZE",
                        help="the size of a dim_param (repeatable)")
    args = parser.parse_args(argv)
    try:
        text, params = import_model(args.model, dims=_dims(args.dim))
        _write(args.output, text)
        if params and not args.params:
            print(f"warning: {len(params)} parameters not written (give "
                  "--params FILE.safetensors)", file=sys.stderr)
        if args.params:
            # bf16 initializers are float32 arrays of their values: written
            # back as bf16.
            write_safetensors(args.params, params, bf16=[
                name for name in params
                if f'bf16> {{rlx.param = "{name}"' in text])
    except (RLXError, OSError) as error:
        print(f"rlx.onnx: error: {error}", file=sys.stderr)
        return 1
    return 0


def _write(path, text):
    with open(path, "w") as file:
        file.write(text)


if __name__ == "__main__":
    sys.exit(main())
