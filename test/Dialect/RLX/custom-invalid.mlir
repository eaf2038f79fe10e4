// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @custom_empty_name(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.custom' op name must be a non-empty string naming the registered op}}
  %0 = rlx.custom ""(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_name_whitespace(%x: tensor<4xf32>) {
  // expected-error @+1 {{name "my op" must not contain whitespace or control characters}}
  %0 = rlx.custom "my op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_pure_no_results(%x: tensor<4xf32>) {
  // expected-error @+1 {{a pure custom op without results computes nothing; drop 'pure' or declare its results}}
  rlx.custom "noop"(%x) pure : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @custom_attrs_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'attrs' failed to satisfy constraint: dictionary of named attribute values}}
  %0 = "rlx.custom"(%x) {name = "op", attrs = array<i8: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_name_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'name' failed to satisfy constraint: string attribute}}
  %0 = "rlx.custom"(%x) {name = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @custom_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of rlx element type values}}
  %0 = "rlx.custom"(%x) {name = "op"} : (tensor<*xf32>) -> tensor<4xf32>
  return
}
