// The diagnostics of the options, and of rlx-jvp.
// RUN: not rlx-opt %s --rlx-autodiff="func=g" 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not rlx-opt %s --rlx-autodiff 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,zz" 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,a" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not rlx-opt %s --rlx-autodiff="func=f remat=all" 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=lbfgs" 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not rlx-opt %s --rlx-autodiff="func=vector optimizer=sgd" 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not rlx-opt %s --rlx-jvp="func=pool wrt=x" 2>&1 | FileCheck %s --check-prefix=JVP
// RUN: not rlx-opt %s --rlx-jvp="func=patches wrt=x" 2>&1 | FileCheck %s --check-prefix=NORULE
// RUN: not rlx-opt %s --rlx-jvp="func=f wrt=zz" 2>&1 | FileCheck %s --check-prefix=JVPWRT

// NOFUNC: error: rlx-autodiff: no function @g in the module
// WHICH: error: rlx-autodiff: the module has 4 functions; name the one to differentiate with func=
// WRT: error: rlx-autodiff: wrt names 'zz', which is no rlx.input or rlx.param argument of @f
// TWICE: error: rlx-autodiff: wrt names 'a' twice
// REMAT: error: rlx-autodiff: unknown remat=all (expected none or elementwise)
// OPTIMIZER: error: rlx-autodiff: unknown optimizer=lbfgs (expected none, sgd or adam)
// SCALAR: error: rlx-autodiff: optimizer=sgd needs a one-element loss; @vector's is 'tensor<3xf32>'
// JVPWRT: error: rlx-jvp: wrt names 'zz', which is no rlx.input or rlx.param argument of @f

func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

func.func @vector(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<3xf32> {
  %y = rlx.activation exp %a : tensor<3xf32>
  return %y : tensor<3xf32>
}

// JVP: invalid-options.mlir:[[@LINE+3]]:8: error: rlx-jvp: no forward-mode rule for 'rlx.pool' of kind max yet
func.func @pool(%x: tensor<1x1x4x4xf32> {rlx.input = "x"})
    -> tensor<1x1x2x2xf32> {
  %p = rlx.pool max %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<1x1x4x4xf32>
  return %p : tensor<1x1x2x2xf32>
}

// NORULE: invalid-options.mlir:[[@LINE+3]]:8: error: rlx-jvp: no forward-mode rule for 'rlx.im2col'
func.func @patches(%x: tensor<1x1x4x4xf32> {rlx.input = "x"})
    -> tensor<4x4xf32> {
  %c = rlx.im2col %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0],
         dilation = [1, 1] : tensor<1x1x4x4xf32>
  return %c : tensor<4x4xf32>
}
