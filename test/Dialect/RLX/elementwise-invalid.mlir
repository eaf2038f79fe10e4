// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @cast_target_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'to' failed to satisfy constraint: type attribute of rlx element type}}
  %0 = "rlx.cast"(%x) {to = i3} : (tensor<4xf32>) -> tensor<4xi3>
  return
}

// -----

func.func @cast_target_tensor(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'to' failed to satisfy constraint: type attribute of rlx element type}}
  %0 = "rlx.cast"(%x) {to = tensor<4xf16>} : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @cast_target_none(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'to' failed to satisfy constraint: type attribute of rlx element type}}
  %0 = rlx.cast %x : tensor<4xf32> to none
  return
}

// -----

func.func @cast_target_not_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'to' failed to satisfy constraint: type attribute of rlx element type}}
  %0 = "rlx.cast"(%x) {to = 3 : i32} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @cast_missing_to(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires attribute 'to'}}
  %0 = "rlx.cast"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @cast_result_element_type(%x: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf16>' are incompatible with return type(s) of operation 'tensor<4xbf16>'}}
  // expected-error @+1 {{'rlx.cast' op failed to infer returned types}}
  %0 = "rlx.cast"(%x) {to = f16} : (tensor<4xf32>) -> tensor<4xbf16>
  return
}

// -----

func.func @cast_result_shape(%x: tensor<4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi32>' are incompatible with return type(s) of operation 'tensor<2x2xi32>'}}
  // expected-error @+1 {{'rlx.cast' op failed to infer returned types}}
  %0 = "rlx.cast"(%x) {to = i32} : (tensor<4xf32>) -> tensor<2x2xi32>
  return
}

// -----

func.func @cast_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of rlx element type values}}
  %0 = "rlx.cast"(%x) {to = f16} : (tensor<*xf32>) -> tensor<*xf16>
  return
}

// -----

func.func @stop_gradient_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "rlx.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @stop_gradient_element_type(%x: tensor<4xi4>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of rlx element type values}}
  %0 = "rlx.stop_gradient"(%x) : (tensor<4xi4>) -> tensor<4xi4>
  return
}

// -----

func.func @compare_shapes(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{operand shapes [4, 3] and [4, 5] are not broadcast-compatible}}
  %0 = rlx.compare eq %a, %b : tensor<4x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @compare_element_types(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{all of {lhs, rhs} have same element type}}
  %0 = rlx.compare lt %a, %b : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @compare_result_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = "rlx.compare"(%a, %a) {kind = #rlx.compare<eq>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_result_shape(%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xi1>' are incompatible with return type(s) of operation 'tensor<4x1xi1>'}}
  // expected-error @+1 {{'rlx.compare' op failed to infer returned types}}
  %0 = "rlx.compare"(%a, %b) {kind = #rlx.compare<eq>} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xi1>
  return
}

// -----

func.func @compare_complex_order(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{compare 'lt' needs an ordered element type, got 'complex<f32>' (only eq and ne apply)}}
  %0 = rlx.compare lt %a, %a : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return
}

// -----

func.func @compare_complex_ge(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{compare 'ge' needs an ordered element type}}
  %0 = rlx.compare ge %a, %a : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return
}

// -----

func.func @compare_unknown_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown compare kind 'lq', expected one of: eq, ne, lt, le, gt, ge}}
  %0 = rlx.compare lq %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @compare_missing_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{requires attribute 'kind'}}
  %0 = "rlx.compare"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @where_cond_type(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = rlx.where %c, %a, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @where_value_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{all of {on_true, on_false, result} have same element type}}
  %0 = "rlx.where"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @where_value_shapes(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{on_true shape [4] and on_false shape [5] are not broadcast-compatible}}
  %0 = rlx.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @where_cond_shape(%c: tensor<3x4xi1>, %a: tensor<2x1x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{cond shape [3, 4] is not broadcast-compatible with the values' broadcast shape [2, 1, 8] (on_true [2, 1, 8], on_false [8])}}
  %0 = rlx.where %c, %a, %b : tensor<3x4xi1>, tensor<2x1x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @where_result_shape(%c: tensor<4x1xi1>, %a: tensor<8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'rlx.where' op failed to infer returned types}}
  %0 = "rlx.where"(%c, %a, %a) : (tensor<4x1xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @binary_unknown_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown binary kind 'plus', expected one of: add, sub, mul, div, max, min, pow}}
  %0 = rlx.binary plus %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_bool_div(%a: tensor<4xi1>) {
  // expected-error @+1 {{binary 'div' is not defined on i1 (use max/min for or/and), got 'i1'}}
  %0 = rlx.binary div %a, %a : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @binary_f8(%a: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or integer or 1-bit signless integer or complex type with 32-bit float elements values}}
  %0 = rlx.binary add %a, %a : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>
  return
}

// -----

func.func @activation_sigmoid_int(%x: tensor<4xi64>) {
  // expected-error @+1 {{activation 'sigmoid' requires a floating-point element type, got 'i64'}}
  %0 = rlx.activation sigmoid %x : tensor<4xi64>
  return
}

// -----

func.func @binary_floor_div_complex(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{binary 'floor_div' needs an ordered element type, got 'complex<f32>'}}
  %0 = rlx.binary floor_div %a, %a : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return
}

// -----

func.func @binary_remainder_i1(%a: tensor<4xi1>) {
  // expected-error @+1 {{binary 'remainder' is not defined on i1, got 'i1'}}
  %0 = rlx.binary remainder %a, %a : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @activation_floor_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{activation 'floor' requires a floating-point element type, got 'i32'}}
  %0 = rlx.activation floor %x : tensor<4xi32>
  return
}
