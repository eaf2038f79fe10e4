// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @activation_float_only(%x: tensor<4xi32>) {
  // expected-error @+1 {{activation 'gelu' requires a floating-point element type, got 'i32'}}
  %0 = rlx.activation gelu %x : tensor<4xi32>
  return
}

// -----

func.func @activation_unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown activation kind 'swish', expected one of: gelu, gelu_approx, silu, relu, sigmoid, tanh, exp, log, sqrt, rsqrt, neg, abs, sin, cos, tan, atan, round}}
  %0 = rlx.activation swish %x : tensor<4xf32>
  return
}

// -----

func.func @activation_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "rlx.activation"(%x) {kind = #rlx.activation<tanh>} : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @activation_unsigned(%x: tensor<4xui8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or signless integer values}}
  %0 = "rlx.activation"(%x) {kind = #rlx.activation<relu>} : (tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

func.func @binary_shapes(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{operand shapes [4, 3] and [4, 5] are not broadcast-compatible}}
  %0 = rlx.binary add %a, %b : tensor<4x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{all of {lhs, rhs, result} have same element type}}
  %0 = "rlx.binary"(%a, %b) {kind = #rlx.binary<add>} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_result_shape(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'rlx.binary' op failed to infer returned types}}
  %0 = "rlx.binary"(%a, %b) {kind = #rlx.binary<add>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @binary_pow_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{binary 'pow' requires a floating-point element type, got 'i32'}}
  %0 = rlx.binary pow %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @binary_bool_arith(%a: tensor<4xi1>) {
  // expected-error @+1 {{binary 'add' is not defined on i1 (use max/min for or/and), got 'i1'}}
  %0 = rlx.binary add %a, %a : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @binary_complex_max(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{binary 'max' needs an ordered element type, got 'complex<f32>'}}
  %0 = rlx.binary max %a, %a : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return
}

// -----

func.func @binary_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor}}
  %0 = "rlx.binary"(%a, %a) {kind = #rlx.binary<add>} : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{lhs must have rank >= 2 ([..., M, K]), got [8]}}
  %0 = rlx.matmul %a, %b : tensor<8xf32>, tensor<8x3xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{rhs must have rank >= 2 ([..., K, N]), got [8]}}
  %0 = rlx.matmul %a, %b : tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) {
  // expected-error @+1 {{contraction dims differ: lhs [4, 8] has K = 8 but rhs [7, 3] has K = 7}}
  %0 = rlx.matmul %a, %b : tensor<4x8xf32>, tensor<7x3xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) {
  // expected-error @+1 {{batch dims [2] and [3] are not broadcast-compatible}}
  %0 = rlx.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x3xf32>
  return
}

// -----

func.func @matmul_int(%a: tensor<4x8xi8>, %b: tensor<8x3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.matmul"(%a, %b) : (tensor<4x8xi8>, tensor<8x3xi8>) -> tensor<4x3xi8>
  return
}

// -----

func.func @matmul_mixed(%a: tensor<4x8xf32>, %b: tensor<8x3xf16>) {
  // expected-error @+1 {{all of {lhs, rhs, result} have same element type}}
  %0 = "rlx.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{all of {value, result} have same type}}
  %0 = "rlx.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @constant_element_type() {
  // expected-error @+1 {{result #0 must be ranked tensor of rlx element type values}}
  %0 = "rlx.constant"() {value = dense<1> : tensor<2xi3>} : () -> tensor<2xi3>
  return
}

// -----

func.func @yield_outside_rlx(%x: tensor<2xf32>) {
  // expected-error @+1 {{'rlx.yield' op expects parent op to be one of 'rlx.if, rlx.while, rlx.scan, rlx.scan_backward, rlx.scan_backward_xs, rlx.custom_fn, rlx.elementwise_region, rlx.transform_region, rlx.batch_elementwise_region'}}
  rlx.yield %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'rlx.input' on argument #0 must be a non-empty string naming the input}}
func.func @empty_input_name(%x: tensor<2xf32> {rlx.input = ""}) {
  return
}

// -----

// expected-error @+1 {{'rlx.param' on argument #0 must be a non-empty string naming the parameter}}
func.func @param_not_string(%x: tensor<2xf32> {rlx.param = 3 : i32}) {
  return
}

// -----

// expected-error @+1 {{argument #0 carries both 'rlx.input' and 'rlx.param'}}
func.func @input_and_param(%x: tensor<2xf32> {rlx.input = "x", rlx.param = "x"}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #1 share the graph leaf name "x"}}
func.func @duplicate_leaf(%x: tensor<2xf32> {rlx.input = "x"}, %y: tensor<2xf32> {rlx.param = "x"}) {
  return
}

// -----

// expected-error @+1 {{unknown rlx argument attribute 'rlx.inputs' on argument #0}}
func.func @unknown_arg_attr(%x: tensor<2xf32> {rlx.inputs = "x"}) {
  return
}

// -----

// expected-error @+1 {{'rlx.state' on argument #0 marks a parameter as state: the argument needs 'rlx.param' too}}
func.func @state_without_param(%x: tensor<2xf32> {rlx.input = "x", rlx.state}) {
  return
}

// -----

// expected-error @+1 {{'rlx.state' on argument #0 is a unit attribute}}
func.func @state_with_value(%x: tensor<2xf32> {rlx.param = "x", rlx.state = "yes"}) {
  return
}
