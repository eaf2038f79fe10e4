"""examples/bert_layer.mlir on the CPU against torch.nn.TransformerEncoderLayer
(BERT-base: hidden 768, 12 heads, FFN 3072, GELU, post-LN, eval mode) with
the same random weights, passed to rlx-run as a .safetensors file.

Tolerance: 1e-4 absolute and relative (f32 through two 768/3072-long GEMM
reductions, attention softmax and two layer norms).
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker  # noqa: E402
from torch_reference import bert_layer_params  # noqa: E402

check = Checker(sys.argv[1])
torch.manual_seed(int(check.rng.integers(1 << 31)))
layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0,
                                         activation="gelu", batch_first=True)
layer.eval()
# Non-trivial LayerNorm affine parameters.
with torch.no_grad():
    for norm in (layer.norm1, layer.norm2):
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
params = bert_layer_params(layer)
x = check.uniform((1, 128, 768), np.float32)
with torch.no_grad():
    want = layer(torch.from_numpy(x)).numpy()

example = os.path.join(__file__.rsplit("/", 4)[0], "examples", "bert_layer.mlir")
with open(example) as f:
    mlir = f.read()
outs = check.run(mlir, {"hidden": x}, params=params)
check.close("bert_layer vs TransformerEncoderLayer", outs[0] if outs else None,
            want, 1e-4, 1e-4)
check.finish()
