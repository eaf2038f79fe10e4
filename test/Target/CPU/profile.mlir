// RUN: rlx-opt %s --rlx-tag-op-locations --rlx-tag-op-locations \
// RUN:   --mlir-print-debuginfo | FileCheck %s --check-prefix=TAG
// RUN: rlx-opt %s --rlx-tag-op-locations --rlx-unfuse=target=cpu \
// RUN:   --convert-rlx-to-linalg --rlx-export-graph-functions \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --rlx-cpu-profile | FileCheck %s

// Tagging names each rlx op's location after the op, once.
// TAG: rlx.fused_matmul_bias_act {{.*}} loc(#[[FMM:loc[0-9]*]])
// TAG: rlx.activation {{.*}} loc(#[[ACT:loc[0-9]*]])
// TAG-DAG: #[[FMM]] = loc("rlx.fused_matmul_bias_act"(#{{loc[0-9]*}}))
// TAG-DAG: #[[ACT]] = loc("rlx.activation"(#{{loc[0-9]*}}))

// Every timed op is bracketed by begin/end calls of its own timer; the
// labels name the rlx ops and the source position. The fused op's primitives
// all carry its name, so they share one timer.
// Tagging records the FLOPs of the ops that have a count (2 * 4 * 16 * 8);
// each label's cost per run is [bytes of its distinct buffers, FLOPs]: x,
// w, the matmul's result, b and the biased result (128 + 512 + 256 + 64 +
// 256 bytes), then the tanh's input and output.
// CHECK: module attributes {rlx.op_flops = {"rlx.fused_matmul_bias_act @ profile.mlir:[[L:[0-9]+]]:8" = 1024 : i64}, rlx.profile_costs = [array<i64: 1216, 1024>, array<i64: 512, 0>], rlx.profile_labels = ["rlx.fused_matmul_bias_act @ profile.mlir:[[L]]:8", "rlx.activation @ profile.mlir:{{[0-9]+}}:8"]}
// CHECK-LABEL: func.func @layer(
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @rlx_rt_profile_begin(%[[ID0]])
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: call @rlx_rt_profile_end(%[[ID0]])
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @rlx_rt_profile_begin(%[[ID1]])
// CHECK-NEXT: linalg.generic
// CHECK: call @rlx_rt_profile_end(%[[ID1]])
// CHECK-NOT: rlx_rt_profile_begin
// CHECK: return
// CHECK: func.func private @rlx_rt_profile_begin(i64)
// CHECK: func.func private @rlx_rt_profile_end(i64)
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>,
                 %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = rlx.fused_matmul_bias_act %x, %w, %b : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  %1 = rlx.activation tanh %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
