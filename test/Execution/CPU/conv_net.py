"""examples/conv_net.mlir on the CPU against the same network in PyTorch
(torch.nn modules in float64, the same random weights passed to rlx-run as a
.safetensors file).

Tolerance: rtol 1e-5, atol 1e-6 on the softmax probabilities. The logits go
through two 3x3 convolutions (K = 27 and 144), a mean over 256 positions and
a 32-long dot product of unit-scale values, so their f32 error stays around
1e-6; the classifier weights are scaled up so the probabilities spread over
[0, 1] and a logit error shows.
"""

import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker  # noqa: E402

check = Checker(sys.argv[1])
torch.manual_seed(int(check.rng.integers(1 << 31)))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.relu(self.conv2(x))
        x = x.mean(dim=(2, 3))
        return torch.softmax(self.fc(x), dim=-1)


net = ConvNet().double().eval()
with torch.no_grad():
    # Spread the biases and sharpen the classifier.
    net.conv1.bias.uniform_(-0.5, 0.5)
    net.conv2.bias.uniform_(-0.5, 0.5)
    net.fc.weight.mul_(20.0)
    net.fc.bias.uniform_(-1.0, 1.0)


def t(tensor):
    return np.ascontiguousarray(tensor.detach().numpy().astype(np.float32))


params = {
    "conv1_w": t(net.conv1.weight), "conv1_b": t(net.conv1.bias),
    "conv2_w": t(net.conv2.weight), "conv2_b": t(net.conv2.bias),
    "fc_w": t(net.fc.weight.T), "fc_b": t(net.fc.bias),
}
# The oracle runs in float64 on the float32 weights.
with torch.no_grad():
    net.conv1.weight.copy_(torch.from_numpy(params["conv1_w"]))
    net.conv1.bias.copy_(torch.from_numpy(params["conv1_b"]))
    net.conv2.weight.copy_(torch.from_numpy(params["conv2_w"]))
    net.conv2.bias.copy_(torch.from_numpy(params["conv2_b"]))
    net.fc.weight.copy_(torch.from_numpy(params["fc_w"].T))
    net.fc.bias.copy_(torch.from_numpy(params["fc_b"]))

example = os.path.join(__file__.rsplit("/", 4)[0], "examples", "conv_net.mlir")
with open(example) as f:
    mlir = f.read()
for trial in range(2):
    x = check.uniform((2, 3, 32, 32), np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x.astype(np.float64))).numpy()
    outs = check.run(mlir, {"image": x}, params=params)
    check.close(f"conv_net vs PyTorch #{trial}", outs[0] if outs else None,
                want.astype(np.float32), 1e-5, 1e-6)

# Batch norm's running statistics are `rlx.state` arguments (what the
# importer makes of registered buffers), here between two parameters: every
# runtime must bind them as buffers in order (the CUDA runtime once skipped
# the `state` kind of the signature, shifting the later parameters).
state_mlir = """
func.func @main(%x: tensor<2x3x8x8xf32> {rlx.input = "x"},
                %w: tensor<4x3x3x3xf32> {rlx.param = "conv.weight"},
                %mean: tensor<1x4x1x1xf32> {rlx.param = "bn.running_mean", rlx.state},
                %scale: tensor<1x4x1x1xf32> {rlx.param = "bn.scale"}) -> tensor<2x4x8x8xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 1 : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>
  %c = rlx.binary sub %y, %mean : tensor<2x4x8x8xf32>, tensor<1x4x1x1xf32>
  %n = rlx.binary mul %c, %scale : tensor<2x4x8x8xf32>, tensor<1x4x1x1xf32>
  return %n : tensor<2x4x8x8xf32>
}
"""
x = check.uniform((2, 3, 8, 8), np.float32)
state_params = {"conv.weight": check.uniform((4, 3, 3, 3), np.float32),
                "bn.running_mean": check.uniform((1, 4, 1, 1), np.float32),
                "bn.scale": check.uniform((1, 4, 1, 1), np.float32) + 1.5}
with torch.no_grad():
    conv = torch.nn.functional.conv2d(
        torch.from_numpy(x).double(),
        torch.from_numpy(state_params["conv.weight"]).double(), padding=1)
    want = ((conv - torch.from_numpy(state_params["bn.running_mean"]))
            * torch.from_numpy(state_params["bn.scale"])).numpy()
outs = check.run(state_mlir, {"x": x}, params=state_params)
check.close("conv with an rlx.state argument vs PyTorch",
            outs[0] if outs else None, want.astype(np.float32), 1e-5, 1e-6)
check.finish()
