// RUN: rlx-opt %s --rlx-cpu-pipeline | FileCheck %s

// An attention over S = 2^32 positions: its S x S score products have more
// iterations than int64 counts; the BLAS rewrite's size test takes them as
// large rather than overflowing (found by rlx-fuzz-cpu-pipeline under
// UBSan). The graph compiles (running it would ask for 2^64 scores).
// CHECK-LABEL: llvm.func @huge_scores
func.func @huge_scores(%q: tensor<1x1x4294967296x8xf64>) -> tensor<1x1x4294967296x8xf64> {
  %0 = rlx.attention %q, %q, %q {head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64} : tensor<1x1x4294967296x8xf64>, tensor<1x1x4294967296x8xf64>, tensor<1x1x4294967296x8xf64>
  return %0 : tensor<1x1x4294967296x8xf64>
}
