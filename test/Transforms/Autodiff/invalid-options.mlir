// The diagnostics of the options, and of rlx-jvp.
// RUN: not rlx-opt %s --rlx-autodiff="func=g" 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not rlx-opt %s --rlx-autodiff 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,zz" 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,a" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not rlx-opt %s --rlx-autodiff="func=f remat=all" 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=lbfgs" 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not rlx-opt %s --rlx-autodiff="func=vector optimizer=sgd" 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=nan" 2>&1 | FileCheck %s --check-prefix=LRNAN
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=-0.1" 2>&1 | FileCheck %s --check-prefix=LRNEG
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=inf" 2>&1 | FileCheck %s --check-prefix=LRINF
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd momentum=-1" 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=adam beta1=1" 2>&1 | FileCheck %s --check-prefix=BETA1
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=adam beta2=-0.5" 2>&1 | FileCheck %s --check-prefix=BETA2
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=adam eps=-1e-8" 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=adam lr=0 beta1=0 beta2=0 eps=0" | FileCheck %s --check-prefix=EDGES
// RUN: not rlx-opt %s --rlx-jvp="func=loop wrt=x" 2>&1 | FileCheck %s --check-prefix=JVP
// RUN: not rlx-opt %s --rlx-jvp="func=second_order wrt=x" 2>&1 | FileCheck %s --check-prefix=NORULE
// RUN: not rlx-opt %s --rlx-jvp="func=f wrt=zz" 2>&1 | FileCheck %s --check-prefix=JVPWRT

// NOFUNC: error: rlx-autodiff: no function @g in the module
// WHICH: error: rlx-autodiff: the module has 4 functions; name the one to differentiate with func=
// WRT: error: rlx-autodiff: wrt names 'zz', which is no rlx.input or rlx.param argument of @f
// TWICE: error: rlx-autodiff: wrt names 'a' twice
// REMAT: error: rlx-autodiff: unknown remat=all (expected none or elementwise)
// OPTIMIZER: error: rlx-autodiff: unknown optimizer=lbfgs (expected none, sgd or adam)
// SCALAR: error: rlx-autodiff: optimizer=sgd needs a one-element loss; @vector's is 'tensor<3xf32>'
// PyTorch's optimizers' ranges; their edges are accepted.
// LRNAN: error: rlx-autodiff: lr=nan is out of range (finite and >= 0)
// LRNEG: error: rlx-autodiff: lr=-0.1 is out of range (finite and >= 0)
// LRINF: error: rlx-autodiff: lr=inf is out of range (finite and >= 0)
// MOMENTUM: error: rlx-autodiff: momentum=-1 is out of range (finite and >= 0)
// BETA1: error: rlx-autodiff: beta1=1 is out of range (in [0, 1))
// BETA2: error: rlx-autodiff: beta2=-0.5 is out of range (in [0, 1))
// EPS: error: rlx-autodiff: eps=-1e-08 is out of range (finite and >= 0)
// EDGES: func.func @f_train_step
// JVPWRT: error: rlx-jvp: wrt names 'zz', which is no rlx.input or rlx.param argument of @f

func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

func.func @vector(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<3xf32> {
  %y = rlx.activation exp %a : tensor<3xf32>
  return %y : tensor<3xf32>
}

// JVP: invalid-options.mlir:[[@LINE+3]]:8: error: rlx-jvp: cannot differentiate 'rlx.while': it has no max_iterations
func.func @loop(%x: tensor<3xf32> {rlx.input = "x"}) -> tensor<3xf32> {
  %p = rlx.constant dense<false> : tensor<i1>
  %r = rlx.while %x : tensor<3xf32> cond {
  ^bb0(%c: tensor<3xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<3xf32>
  } do {
  ^bb0(%c: tensor<3xf32>):
    %t = rlx.activation tanh %c : tensor<3xf32>
    rlx.yield %t : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// NORULE: invalid-options.mlir:[[@LINE+3]]:8: error: rlx-jvp: no forward-mode rule for 'rlx.scan_backward'
func.func @second_order(%x: tensor<3xf32> {rlx.input = "x"},
                        %traj: tensor<2x3xf32> {rlx.input = "traj"}) -> tensor<3xf32> {
  %d = rlx.scan_backward %x, %traj, %x : tensor<3xf32>, tensor<2x3xf32>,
      tensor<3xf32> length = 2 body_vjp {
  ^bb0(%c: tensor<3xf32>, %g: tensor<3xf32>):
    rlx.yield %g : tensor<3xf32>
  }
  return %d : tensor<3xf32>
}
