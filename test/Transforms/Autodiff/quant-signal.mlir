// RUN: rlx-opt %s --split-input-file --rlx-autodiff | FileCheck %s

// The quantization, MoE and signal rules. dequant_matmul,
// dequant_grouped_matmul and q_conv2d do not run on the CPU yet, so their
// rules are checked here only; the others also run in
// test/Execution/CPU/autodiff-quant-signal.test.

// dequant_matmul of a block scheme: x through the weight decoded by the op
// itself (applied to the identity); the scale through the block sums of
// `G * (q - zp)` (the op with unit scales), the zero point through
// `-sum(G * s)`; the i8 weight (a quantize result) straight-through, `G * s`,
// then quantize's `/ 0.1` where not saturated.
// CHECK-LABEL: func.func @int8_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x6xf32> {rlx.param = "x"}, %[[WF:[^:]*]]: tensor<6x3xf32> {rlx.param = "wf"}, %[[S:[^:]*]]: tensor<2x3xf32> {rlx.param = "s"}, %[[ZP:[^:]*]]: tensor<2x3xf32> {rlx.param = "zp"}, %[[D:[^:]*]]: tensor<2x3xf32> {rlx.input = "d_loss"})
// CHECK: %[[Q:.*]] = rlx.quantize %[[WF]]
// CHECK: %[[Y:.*]] = rlx.dequant_matmul int8_block block_size = 4 %[[X]], %[[Q]] scale %[[S]]
// CHECK: %[[I:.*]] = rlx.cast %{{.*}} : tensor<6x6xi1> to f32
// CHECK: %[[W:.*]] = rlx.dequant_matmul int8_block block_size = 4 %[[I]], %[[Q]] scale %[[S]] : tensor<2x3xf32> zero_point %[[ZP]] : tensor<2x3xf32> : tensor<6x6xf32>, tensor<6x3xi8>
// CHECK: %[[WT:.*]] = rlx.transpose %[[W]] perm = [1, 0]
// CHECK: %[[DX:.*]] = rlx.matmul %[[D]], %[[WT]] : tensor<2x3xf32>, tensor<3x6xf32>
// CHECK: %[[XT:.*]] = rlx.transpose %[[X]] perm = [1, 0]
// CHECK: %[[G:.*]] = rlx.matmul %[[XT]], %[[D]] : tensor<6x2xf32>, tensor<2x3xf32>
// CHECK: %[[ONES:.*]] = rlx.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: %[[U:.*]] = rlx.dequant_matmul int8_block block_size = 4 %{{.*}}, %[[Q]] scale %[[ONES]] : tensor<2x3xf32> zero_point %[[ZP]]
// CHECK: %[[GU:.*]] = rlx.binary mul %[[G]], %[[U]]
// CHECK: %[[PAD:.*]] = rlx.concat %[[GU]], %{{.*}} axis = 0 : tensor<6x3xf32>, tensor<2x3xf32>
// CHECK: %[[BLK:.*]] = rlx.reshape %[[PAD]] new_shape = [2, 4, 3]
// CHECK: %[[DS:.*]] = rlx.reduce sum %[[BLK]] axes = [1]
// CHECK: %[[S3:.*]] = rlx.reshape %[[S]] new_shape = [2, 1, 3]
// CHECK: %[[SE:.*]] = rlx.expand %[[S3]] target_shape = [2, 4, 3]
// CHECK: %[[SR:.*]] = rlx.reshape %[[SE]] new_shape = [8, 3]
// CHECK: %[[SK:.*]] = rlx.narrow %[[SR]] axis = 0 start = 0 len = 6
// CHECK: %[[DW:.*]] = rlx.binary mul %[[G]], %[[SK]]
// CHECK: %[[DZS:.*]] = rlx.reduce sum %{{.*}} axes = [1]
// CHECK: %[[DZ:.*]] = rlx.activation neg %[[DZS]]
// CHECK: %[[DWQ:.*]] = rlx.binary div %[[DW]], %{{.*}} : tensor<6x3xf32>, tensor<f32>
// CHECK: %[[DWI:.*]] = rlx.where %{{.*}}, %[[DWQ]], %{{.*}}
// CHECK: %[[DWF:.*]] = rlx.where %{{.*}}, %[[DWI]], %{{.*}}
// CHECK: return %[[Y]], %[[DX]], %[[DWF]], %[[DS]], %[[DZ]]
func.func @int8(%x: tensor<2x6xf32> {rlx.param = "x"}, %wf: tensor<6x3xf32> {rlx.param = "wf"},
                %s: tensor<2x3xf32> {rlx.param = "s"}, %zp: tensor<2x3xf32> {rlx.param = "zp"}) -> tensor<2x3xf32> {
  %w = rlx.quantize %wf scales = [0.1] zero_points = [0] : tensor<6x3xf32>
  %y = rlx.dequant_matmul int8_block block_size = 4 %x, %w scale %s : tensor<2x3xf32> zero_point %zp : tensor<2x3xf32> : tensor<2x6xf32>, tensor<6x3xi8>
  return %y : tensor<2x3xf32>
}

// -----

// fp8: the scale through `sum_k G * q`, the fp8 weight `G * s` cast to it.
// CHECK-LABEL: func.func @fp8_grad(
// CHECK: %[[G:.*]] = rlx.matmul %{{.*}}, %{{.*}} : tensor<8x2xf32>, tensor<2x4xf32>
// CHECK: %[[U:.*]] = rlx.dequant_matmul fp8_e4m3 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<4xf32> : tensor<8x8xf32>, tensor<8x4xf8E4M3FN>
// CHECK: %[[GU:.*]] = rlx.binary mul %[[G]], %[[U]]
// CHECK: %[[DS:.*]] = rlx.reduce sum %[[GU]] axes = [0] : tensor<8x4xf32>
// CHECK: %[[GS:.*]] = rlx.binary mul %[[G]], %{{.*}} : tensor<8x4xf32>, tensor<4xf32>
// CHECK: %[[DW:.*]] = rlx.cast %[[GS]] : tensor<8x4xf32> to f8E4M3FN
// CHECK: return %{{.*}}, %{{.*}}, %[[DW]], %[[DS]]
func.func @fp8(%x: tensor<2x8xf32> {rlx.param = "x"}, %w: tensor<8x4xf8E4M3FN> {rlx.param = "w"},
               %s: tensor<4xf32> {rlx.param = "s"}) -> tensor<2x4xf32> {
  %y = rlx.dequant_matmul fp8_e4m3 %x, %w scale %s : tensor<4xf32> : tensor<2x8xf32>, tensor<8x4xf8E4M3FN>
  return %y : tensor<2x4xf32>
}

// -----

// NVFP4: the global scale (operand #3 here: no zero point) through
// `sum(G * D)`, D the weight decoded with a unit global scale.
// CHECK-LABEL: func.func @nvfp4_grad(
// CHECK: %[[ONE:.*]] = rlx.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK: %[[D:.*]] = rlx.dequant_matmul nvfp4_block %{{.*}}, %{{.*}} scale %{{.*}} : tensor<1x4xui8> global_scale %[[ONE]] : tensor<1xf32>
// CHECK: %[[GD:.*]] = rlx.binary mul %{{.*}}, %[[D]]
// CHECK: %[[SUM:.*]] = rlx.reduce sum %[[GD]] axes = [0, 1]
// CHECK: %[[DGS:.*]] = rlx.reshape %[[SUM]] new_shape = [1] : tensor<f32>
// CHECK: return %{{.*}}, %{{.*}}, %[[DGS]]
func.func @nvfp4(%x: tensor<2x16xf32> {rlx.param = "x"}, %w: tensor<16x2xui8> {rlx.input = "w"},
                 %s: tensor<1x4xui8> {rlx.input = "s"}, %gs: tensor<1xf32> {rlx.param = "gs"}) -> tensor<2x4xf32> {
  %y = rlx.dequant_matmul nvfp4_block %x, %w scale %s : tensor<1x4xui8> global_scale %gs : tensor<1xf32> : tensor<2x16xf32>, tensor<16x2xui8>
  return %y : tensor<2x4xf32>
}

// -----

// GGUF bytes: the weight decoded by dequant_moe_weights as one expert.
// CHECK-LABEL: func.func @gguf_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x64xf32> {rlx.param = "x"}, %[[W:[^:]*]]: tensor<204xui8> {rlx.input = "w"}, %[[D:[^:]*]]: tensor<2x3xf32> {rlx.input = "d_loss"})
// CHECK: %[[S:.*]] = rlx.dequant_moe_weights gguf_q8_0 %[[W]] : tensor<204xui8> -> tensor<1x64x3xf32>
// CHECK: %[[R:.*]] = rlx.reshape %[[S]] new_shape = [64, 3]
// CHECK: %[[T:.*]] = rlx.transpose %[[R]] perm = [1, 0]
// CHECK: %[[DX:.*]] = rlx.matmul %[[D]], %[[T]] : tensor<2x3xf32>, tensor<3x64xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @gguf(%x: tensor<2x64xf32> {rlx.param = "x"}, %w: tensor<204xui8> {rlx.input = "w"}) -> tensor<2x3xf32> {
  %y = rlx.dequant_matmul gguf_q8_0 %x, %w : tensor<2x64xf32>, tensor<204xui8>
  return %y : tensor<2x3xf32>
}

// -----

// dequant_grouped_matmul: the stack decoded once (E = 2 from the byte
// count), each row's expert gathered.
// CHECK-LABEL: func.func @moe_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x32xf32> {rlx.param = "x"}, %[[W:[^:]*]]: tensor<136xui8> {rlx.input = "w"}, %[[I:[^:]*]]: tensor<4xi64> {rlx.input = "i"}, %[[D:[^:]*]]: tensor<4x2xf32> {rlx.input = "d_loss"})
// CHECK: %[[S:.*]] = rlx.dequant_moe_weights gguf_q8_0 %[[W]] : tensor<136xui8> -> tensor<2x32x2xf32>
// CHECK: %[[P:.*]] = rlx.gather %[[S]], %[[I]] axis = 0
// CHECK: %[[DR:.*]] = rlx.reshape %[[D]] new_shape = [4, 1, 2]
// CHECK: %[[M:.*]] = rlx.binary mul %[[P]], %[[DR]]
// CHECK: %[[DX:.*]] = rlx.reduce sum %[[M]] axes = [2]
// CHECK: return %{{.*}}, %[[DX]]
func.func @moe(%x: tensor<4x32xf32> {rlx.param = "x"}, %w: tensor<136xui8> {rlx.input = "w"}, %i: tensor<4xi64> {rlx.input = "i"}) -> tensor<4x2xf32> {
  %y = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<4x32xf32>, tensor<136xui8>, tensor<4xi64> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// q_conv2d between quantize and dequantize: the accumulator recomputed in
// f32 with the zero points taken off, `dy * mult` where the output does not
// saturate, through the convolution's backward kernel.
// CHECK-LABEL: func.func @qconv_grad(
// CHECK: %[[XQ:.*]] = rlx.quantize
// CHECK: %[[XF:.*]] = rlx.cast %[[XQ]] : tensor<1x2x5x5xi8> to f32
// CHECK: %[[XR:.*]] = rlx.binary sub %[[XF]]
// CHECK: %[[WF:.*]] = rlx.cast %{{.*}} : tensor<3x2x3x3xi8> to f32
// CHECK: %[[WR:.*]] = rlx.binary sub %[[WF]]
// CHECK: %[[ACC:.*]] = rlx.conv %[[XR]], %[[WR]] kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
// CHECK: %[[IN:.*]] = rlx.where %{{.*}} : tensor<1x3x5x5xi1>, tensor<1x3x5x5xf32>, tensor<f32>
// CHECK: %[[DM:.*]] = rlx.binary mul %{{.*}}, %{{.*}} : tensor<1x3x5x5xf32>, tensor<f32>
// CHECK: %[[DACC:.*]] = rlx.binary mul %[[DM]], %[[IN]]
// CHECK: rlx.conv2d_backward_input %[[DACC]], %[[WR]] kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x5x5xf32>, tensor<3x2x3x3xf32> -> tensor<1x2x5x5xf32>
func.func @qconv(%x: tensor<1x2x5x5xf32> {rlx.param = "x"}, %w: tensor<3x2x3x3xi8> {rlx.input = "w"}, %b: tensor<3xi32> {rlx.input = "b"}) -> tensor<1x3x5x5xf32> {
  %q = rlx.quantize %x scales = [0.05] zero_points = [1] : tensor<1x2x5x5xf32>
  %y = rlx.q_conv2d %q, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 1 : i64, w_zp = 0 : i64, out_zp = -3 : i64, mult = 0.01 : f32} : tensor<1x2x5x5xi8>, tensor<3x2x3x3xi8>, tensor<3xi32>
  %d = rlx.dequantize %y scales = [0.1] zero_points = [-3] : tensor<1x3x5x5xi8>
  return %d : tensor<1x3x5x5xf32>
}

// -----

// log_mel, complex_norm_sq and fft: the dedicated backward ops (the norm
// squared's at 2 g, PyTorch's convention), then the inverse transform with
// the forward norm's scale divided out (N = 16).
// CHECK-LABEL: func.func @signal_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<3x16xf32> {rlx.param = "x"}, %[[FB:[^:]*]]: tensor<4x5xf32> {rlx.input = "fb"}, %[[D:[^:]*]]: tensor<3x4xf32> {rlx.input = "d_loss"})
// CHECK: %[[F:.*]] = rlx.fft %{{.*}} {norm = #rlx.fft_norm<forward>}
// CHECK: %[[N:.*]] = rlx.complex_norm_sq %[[F]]
// CHECK: %[[DN:.*]] = rlx.log_mel_backward %[[N]], %[[FB]], %[[D]]
// CHECK: %[[TWO:.*]] = rlx.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[G2:.*]] = rlx.binary mul %[[DN]], %[[TWO]]
// CHECK: %[[DF:.*]] = rlx.complex_norm_sq_backward %[[F]], %[[G2]]
// CHECK: %[[DI:.*]] = rlx.fft inverse %[[DF]] {norm = #rlx.fft_norm<forward>}
// CHECK: %[[SIXTEEN:.*]] = rlx.constant dense<1.600000e+01> : tensor<f32>
// CHECK: %[[SC:.*]] = rlx.cast %[[SIXTEEN]] : tensor<f32> to complex<f32>
// CHECK: %[[DC:.*]] = rlx.binary mul %[[DI]], %[[SC]]
// CHECK: %[[DX:.*]] = rlx.cast %[[DC]] : tensor<3x16xcomplex<f32>> to f32
// CHECK: return %{{.*}}, %[[DX]]
func.func @signal(%x: tensor<3x16xf32> {rlx.param = "x"}, %fb: tensor<4x5xf32> {rlx.input = "fb"}) -> tensor<3x4xf32> {
  %c = rlx.cast %x : tensor<3x16xf32> to complex<f32>
  %f = rlx.fft %c {norm = #rlx.fft_norm<forward>} : tensor<3x16xcomplex<f32>>
  %n = rlx.complex_norm_sq %f : tensor<3x16xcomplex<f32>>
  %m = rlx.log_mel %n, %fb : tensor<3x16xf32>, tensor<4x5xf32>
  return %m : tensor<3x4xf32>
}

// -----

// fake_quantize with a non-identity estimator and per-batch scales: the
// dedicated backward op with the forward's attributes; LSQ: both dedicated
// backward ops.
// CHECK-LABEL: func.func @fq_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x3xf32> {rlx.param = "x"}, %[[S:[^:]*]]: tensor<3xf32> {rlx.param = "s"}, %[[D:[^:]*]]: tensor<4x3xf32> {rlx.input = "d_loss"})
// CHECK: %[[A:.*]] = rlx.fake_quantize %[[X]]
// CHECK: %[[DA:.*]] = rlx.fake_quantize_lsq_backward_x %[[A]], %[[S]], %[[D]] bits = 2 axis = 1
// CHECK: %[[DS:.*]] = rlx.fake_quantize_lsq_backward_scale %[[A]], %[[S]], %[[D]] bits = 2 axis = 1
// CHECK: %[[DX:.*]] = rlx.fake_quantize_backward %[[X]], %[[DA]] bits = 4 axis = 1 ste = tanh
// CHECK: return %{{.*}}, %[[DX]], %[[DS]]
func.func @fq(%x: tensor<4x3xf32> {rlx.param = "x"}, %s: tensor<3xf32> {rlx.param = "s"}) -> tensor<4x3xf32> {
  %a = rlx.fake_quantize %x bits = 4 axis = 1 {ste = #rlx.ste<tanh>} : tensor<4x3xf32>
  %b = rlx.fake_quantize_lsq %a, %s bits = 2 axis = 1 : tensor<4x3xf32>, tensor<3xf32>
  return %b : tensor<4x3xf32>
}
