// RUN: rlx-opt %s --split-input-file --verify-diagnostics

func.func @f64(%q: tensor<1x1x4x8xf64>) -> tensor<1x1x4x8xf64> {
  // expected-error @+1 {{supports f32, f16 and bf16, not 'f64'}}
  %o = rlx_cuda.flash_attention ins(%q, %q, %q : tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>) outs(%q : tensor<1x1x4x8xf64>) {head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64, score_scale = 1.0 : f32} -> tensor<1x1x4x8xf64>
  return %o : tensor<1x1x4x8xf64>
}

// -----

func.func @wide(%q: tensor<1x1x4x256xf32>) -> tensor<1x1x4x256xf32> {
  // expected-error @+1 {{head_dim 256 exceeds 128}}
  %o = rlx_cuda.flash_attention ins(%q, %q, %q : tensor<1x1x4x256xf32>, tensor<1x1x4x256xf32>, tensor<1x1x4x256xf32>) outs(%q : tensor<1x1x4x256xf32>) {head_dim = 256 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64, score_scale = 1.0 : f32} -> tensor<1x1x4x256xf32>
  return %o : tensor<1x1x4x256xf32>
}

// -----

func.func @mixed(%q: tensor<1x1x4x8xf32>, %b: memref<1x1x4x8xf32>) {
  // expected-error @+1 {{operands are all tensors or all buffers, but init is 'memref<1x1x4x8xf32>'}}
  rlx_cuda.flash_attention ins(%q, %q, %q : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%b : memref<1x1x4x8xf32>) {head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64, score_scale = 1.0 : f32}
  return
}

// -----

func.func @mask_missing(%q: memref<1x1x4x8xf32>) {
  // expected-error @+1 {{mask_kind bias needs mask operand}}
  rlx_cuda.flash_attention ins(%q, %q, %q : memref<1x1x4x8xf32>, memref<1x1x4x8xf32>, memref<1x1x4x8xf32>) outs(%q : memref<1x1x4x8xf32>) {head_dim = 8 : i64, mask_kind = #rlx.mask<bias>, num_heads = 1 : i64, score_scale = 1.0 : f32}
  return
}

// -----

func.func @init_shape(%q: tensor<1x1x4x8xf32>, %i: tensor<1x1x5x8xf32>) -> tensor<1x1x5x8xf32> {
  // expected-error @+1 {{init 'tensor<1x1x5x8xf32>' does not have the shape of query 'tensor<1x1x4x8xf32>'}}
  %o = rlx_cuda.flash_attention ins(%q, %q, %q : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%i : tensor<1x1x5x8xf32>) {head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64, score_scale = 1.0 : f32} -> tensor<1x1x5x8xf32>
  return %o : tensor<1x1x5x8xf32>
}

// -----

func.func @window(%q: memref<1x1x4x8xf32>) {
  // expected-error @+1 {{window is given iff mask_kind is sliding_window}}
  rlx_cuda.flash_attention ins(%q, %q, %q : memref<1x1x4x8xf32>, memref<1x1x4x8xf32>, memref<1x1x4x8xf32>) outs(%q : memref<1x1x4x8xf32>) {head_dim = 8 : i64, mask_kind = #rlx.mask<causal>, num_heads = 1 : i64, score_scale = 1.0 : f32, window = 2 : i64}
  return
}

// -----

func.func @result_on_buffers(%q: memref<1x1x4x8xf32>) {
  // expected-error @+1 {{on buffers has no results}}
  %o = rlx_cuda.flash_attention ins(%q, %q, %q : memref<1x1x4x8xf32>, memref<1x1x4x8xf32>, memref<1x1x4x8xf32>) outs(%q : memref<1x1x4x8xf32>) {head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 1 : i64, score_scale = 1.0 : f32} -> tensor<1x1x4x8xf32>
  return
}

// -----

func.func @matmul_bias_shapes(%x: tensor<4x5xf32>, %w: tensor<6x3xf32>, %b: tensor<3xf32>, %i: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{input 'tensor<4x5xf32>', weight 'tensor<6x3xf32>', bias 'tensor<3xf32>', init 'tensor<4x3xf32>' do not form [.., M, K] x [K, N] with [N] -> [.., M, N]}}
  %o = rlx_cuda.matmul_bias ins(%x, %w, %b : tensor<4x5xf32>, tensor<6x3xf32>, tensor<3xf32>) outs(%i : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// -----

func.func @matmul_bias_activation(%x: memref<4x5xf32>, %w: memref<5x3xf32>, %b: memref<3xf32>, %i: memref<4x3xf32>) {
  // expected-error @+1 {{activation gelu is not a cuBLASLt epilogue (relu, gelu_approx)}}
  rlx_cuda.matmul_bias ins(%x, %w, %b : memref<4x5xf32>, memref<5x3xf32>, memref<3xf32>) outs(%i : memref<4x3xf32>) {activation = #rlx.activation<gelu>}
  return
}

// -----

func.func @matmul_bias_f64(%x: memref<4x5xf64>, %w: memref<5x3xf64>, %b: memref<3xf64>, %i: memref<4x3xf64>) {
  // expected-error @+1 {{supports f32, f16 and bf16, not 'f64'}}
  rlx_cuda.matmul_bias ins(%x, %w, %b : memref<4x5xf64>, memref<5x3xf64>, memref<3xf64>) outs(%i : memref<4x3xf64>)
  return
}

// -----

func.func @norm_vectors(%x: memref<4x8xf32>, %g: memref<7xf32>, %i: memref<4x8xf32>) {
  // expected-error @+1 {{expects [N] scale and shift vectors for rows of N, not 'memref<7xf32>' for 'memref<4x8xf32>'}}
  rlx_cuda.norm ins(%x, %g, %g : memref<4x8xf32>, memref<7xf32>, memref<7xf32>) outs(%i : memref<4x8xf32>) {eps = 1.0e-5 : f32}
  return
}

// -----

func.func @softmax_f64(%x: tensor<4x8xf64>, %i: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{supports f32, f16 and bf16, not 'f64'}}
  %o = rlx_cuda.softmax ins(%x : tensor<4x8xf64>) outs(%i : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %o : tensor<4x8xf64>
}

// -----

func.func @norm_backward_dy_shape(%x: tensor<4x96xf32>, %g: tensor<96xf32>, %dy: tensor<4x95xf32>, %init: tensor<4x96xf32>) -> tensor<4x96xf32> {
  // expected-error @+1 {{'rlx_cuda.norm_backward_input' op dy 'tensor<4x95xf32>' does not have the shape of input 'tensor<4x96xf32>'}}
  %0 = rlx_cuda.norm_backward_input ins(%x, %g, %dy : tensor<4x96xf32>, tensor<96xf32>, tensor<4x95xf32>) outs(%init : tensor<4x96xf32>) {eps = 1.0e-5 : f32} -> tensor<4x96xf32>
  return %0 : tensor<4x96xf32>
}

// -----

func.func @gelu_aux_shapes(%x: tensor<4x5xf32>, %w: tensor<5x8xf32>, %b: tensor<8xf32>, %i: tensor<4x8xf32>, %a: tensor<3x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{input 'tensor<4x5xf32>', weight 'tensor<5x8xf32>', bias 'tensor<8xf32>', init 'tensor<4x8xf32>', aux_init 'tensor<3x8xf32>' do not form [.., M, K] x [K, N] with [N] -> [.., M, N]}}
  %o:2 = rlx_cuda.matmul_bias_gelu_aux ins(%x, %w, %b : tensor<4x5xf32>, tensor<5x8xf32>, tensor<8xf32>) outs(%i, %a : tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x8xf32>, tensor<3x8xf32>
  return %o#0 : tensor<4x8xf32>
}

// -----

func.func @gelu_aux_results(%x: tensor<4x5xf32>, %w: tensor<5x8xf32>, %b: tensor<8xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{on tensors returns one result of each init's type}}
  %o = rlx_cuda.matmul_bias_gelu_aux ins(%x, %w, %b : tensor<4x5xf32>, tensor<5x8xf32>, tensor<8xf32>) outs(%i, %i : tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

func.func @dgelu_bias_gradient(%dy: memref<4x3xf32>, %w: memref<3x8xf32>, %h: memref<4x8xf32>, %i: memref<4x8xf32>, %g: memref<1x8xf32>) {
  // expected-error @+1 {{expects input, pre_activation, init of rank 2 or 3, weight of rank 2 and bias_grad_init of rank 1}}
  rlx_cuda.matmul_dgelu ins(%dy, %w, %h : memref<4x3xf32>, memref<3x8xf32>, memref<4x8xf32>) outs(%i, %g : memref<4x8xf32>, memref<1x8xf32>)
  return
}

// -----

func.func @dgelu_types(%dy: memref<4x3xf32>, %w: memref<3x8xf32>, %h: memref<4x8xf16>, %i: memref<4x8xf32>, %g: memref<8xf32>) {
  // expected-error @+1 {{pre_activation has element type 'f16', input 'f32'}}
  rlx_cuda.matmul_dgelu ins(%dy, %w, %h : memref<4x3xf32>, memref<3x8xf32>, memref<4x8xf16>) outs(%i, %g : memref<4x8xf32>, memref<8xf32>)
  return
}

// -----

func.func @conv_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>,
                       %y: tensor<1x6x6x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{do not form a convolution of 3 group(s)}}
  %o = rlx_cuda.conv2d ins(%x, %w : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) outs(%y : tensor<1x6x6x6xf32>) stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 3 -> tensor<1x6x6x6xf32>
  return %o : tensor<1x6x6x6xf32>
}

// -----

func.func @conv_extent(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>,
                       %y: tensor<1x6x8x6xf32>) -> tensor<1x6x8x6xf32> {
  // expected-error @+1 {{output extent 8 along H is not the convolution's (input 8, kernel 3)}}
  %o = rlx_cuda.conv2d ins(%x, %w : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) outs(%y : tensor<1x6x8x6xf32>) stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 -> tensor<1x6x8x6xf32>
  return %o : tensor<1x6x8x6xf32>
}

// -----

func.func @conv_stride(%dx: memref<1x4x8x8xf32>, %w: memref<6x4x3x3xf32>,
                       %dy: memref<1x6x6x6xf32>) {
  // expected-error @+1 {{stride entries must be at least 1}}
  rlx_cuda.conv2d_backward_data ins(%dy, %w : memref<1x6x6x6xf32>, memref<6x4x3x3xf32>) outs(%dx : memref<1x4x8x8xf32>) stride = [0, 1], padding = [0, 0], dilation = [1, 1], groups = 1
  return
}

// -----

func.func @conv_f64(%x: memref<1x4x8x8xf64>, %dw: memref<6x4x3x3xf64>,
                    %dy: memref<1x6x6x6xf64>) {
  // expected-error @+1 {{supports f32, f16 and bf16, not 'f64'}}
  rlx_cuda.conv2d_backward_filter ins(%x, %dy : memref<1x4x8x8xf64>, memref<1x6x6x6xf64>) outs(%dw : memref<6x4x3x3xf64>) stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1
  return
}

// -----

func.func @kv_heads_not_dividing(%q: tensor<1x4x3x8xf32>, %k: tensor<1x3x5x8xf32>) -> tensor<1x4x3x8xf32> {
  // expected-error @+1 {{kv_heads 3 does not divide num_heads 4}}
  %o = rlx_cuda.flash_attention ins(%q, %k, %k : tensor<1x4x3x8xf32>, tensor<1x3x5x8xf32>, tensor<1x3x5x8xf32>) outs(%q : tensor<1x4x3x8xf32>) {head_dim = 8 : i64, kv_heads = 3 : i64, mask_kind = #rlx.mask<none>, num_heads = 4 : i64, score_scale = 1.0 : f32} -> tensor<1x4x3x8xf32>
  return %o : tensor<1x4x3x8xf32>
}

// -----

func.func @kv_heads_of_key(%q: tensor<1x4x3x8xf32>, %k: tensor<1x4x5x8xf32>) -> tensor<1x4x3x8xf32> {
  // expected-error @+1 {{key and value 'tensor<1x4x5x8xf32>' must hold 2 heads (kv_heads)}}
  %o = rlx_cuda.flash_attention ins(%q, %k, %k : tensor<1x4x3x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>) outs(%q : tensor<1x4x3x8xf32>) {head_dim = 8 : i64, kv_heads = 2 : i64, mask_kind = #rlx.mask<none>, num_heads = 4 : i64, score_scale = 1.0 : f32} -> tensor<1x4x3x8xf32>
  return %o : tensor<1x4x3x8xf32>
}

// -----

func.func @quant_gemv_scheme(%x: tensor<1x256xf32>, %w: tensor<144xi8>, %i: tensor<1x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{supports gguf_q8_0 and gguf_q4_0, not gguf_q4_k}}
  %o = rlx_cuda.quant_gemv <gguf_q4_k> ins(%x, %w : tensor<1x256xf32>, tensor<144xi8>) outs(%i : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %o : tensor<1x1xf32>
}

// -----

func.func @quant_gemv_depth(%x: tensor<1x96xf32>, %w: tensor<54xi8>, %i: tensor<1x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{K = 96 is not a multiple of 64}}
  %o = rlx_cuda.quant_gemv <gguf_q4_0> ins(%x, %w : tensor<1x96xf32>, tensor<54xi8>) outs(%i : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %o : tensor<1x1xf32>
}

// -----

func.func @quant_gemv_bytes(%x: tensor<1x64xf32>, %w: tensor<72xi8>, %i: tensor<1x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{w_q has 72 bytes, not 3 rows of 36}}
  %o = rlx_cuda.quant_gemv <gguf_q4_0> ins(%x, %w : tensor<1x64xf32>, tensor<72xi8>) outs(%i : tensor<1x3xf32>) -> tensor<1x3xf32>
  return %o : tensor<1x3xf32>
}

// -----

func.func @quant_gemv_rows(%x: tensor<9x64xf32>, %w: tensor<36xi8>, %i: tensor<9x1xf32>) -> tensor<9x1xf32> {
  // expected-error @+1 {{need the same rows, at most 8}}
  %o = rlx_cuda.quant_gemv <gguf_q4_0> ins(%x, %w : tensor<9x64xf32>, tensor<36xi8>) outs(%i : tensor<9x1xf32>) -> tensor<9x1xf32>
  return %o : tensor<9x1xf32>
}

// -----

func.func @quant_gemv_unsigned(%x: tensor<1x64xf32>, %w: tensor<36xui8>, %i: tensor<1x1xf32>) -> tensor<1x1xf32> {
  // expected-error @+1 {{w_q has element type 'ui8'; expected the packed bytes as i8}}
  %o = rlx_cuda.quant_gemv <gguf_q4_0> ins(%x, %w : tensor<1x64xf32>, tensor<36xui8>) outs(%i : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %o : tensor<1x1xf32>
}
