#!/usr/bin/env bash
# Nsight Compute profiles of rlx's kernels and of PyTorch's on the GPU machine:
# rlx's f16 attention (D = 64 and 128, no mask) and its row kernels on rows of
# 65536, and PyTorch's scaled_dot_product_attention on the same shapes.
#
#   bench/cuda_ncu.sh BENCH_DIR OUT_DIR
#
# BENCH_DIR is what `bench/cuda_bench.py build` wrote (carried to the GPU
# machine); one text report per kernel lands in OUT_DIR. ncu locks the clocks
# at their base: compare kernels within these reports, not with the
# benchmark's times.
set -euo pipefail
if (($# != 2)); then
  echo "usage: $0 BENCH_DIR OUT_DIR" >&2
  exit 2
fi
bench=$1
out=$2
mkdir -p "$out"
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis
  --section MemoryWorkloadAnalysis --section Occupancy
  --section WarpStateStats --section LaunchStats)
for case in attention_f16_B_8_H_12_S_1024_D_64_none \
  attention_f16_B_8_H_12_S_1024_D_128_none softmax_1024_65536_f32 \
  layer_norm_1024_65536_f32; do
  # Launched op by op (no graph replay), the third launch profiled.
  LD_LIBRARY_PATH=$bench/lib RLX_CUDA_GRAPHS=0 timeout 300 \
    ncu --kernel-name regex:"attention|softmax|norm" --launch-skip 2 \
    --launch-count 1 "${sections[@]}" \
    "$bench/bin/rlx-run-aot" --load "$bench/$case.so" --random-inputs \
    --bench 3 >"$out/ncu-rlx-$case.txt" 2>&1
done
for dim in 64 128; do
  timeout 300 ncu --kernel-name regex:"flash|fmha|attn|sdpa|cudnn" \
    --launch-skip 2 --launch-count 1 "${sections[@]}" python3 -c "
import torch
import torch.nn.functional as F
q, k, v = (torch.rand(8, 12, 1024, $dim, device='cuda', dtype=torch.float16)
           for _ in range(3))
for _ in range(5):
    F.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
" >"$out/ncu-torch-sdpa-d$dim.txt" 2>&1
done
echo "cuda_ncu: reports in $out"
