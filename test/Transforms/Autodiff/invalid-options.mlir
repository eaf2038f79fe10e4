// The diagnostics of the options, and of rlx-jvp.
// RUN: not rlx-opt %s --rlx-autodiff="func=g" 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not rlx-opt %s --rlx-autodiff 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,zz" 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not rlx-opt %s --rlx-autodiff="func=f wrt=a,a" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not rlx-opt %s --rlx-autodiff="func=f remat=elementwise" 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=adam" 2>&1 | FileCheck %s --check-prefix=OPTIMIZER
// RUN: not rlx-opt %s --rlx-jvp="func=attend wrt=q" 2>&1 | FileCheck %s --check-prefix=JVP
// RUN: not rlx-opt %s --rlx-jvp="func=f wrt=zz" 2>&1 | FileCheck %s --check-prefix=JVPWRT

// NOFUNC: error: rlx-autodiff: no function @g in the module
// WHICH: error: rlx-autodiff: the module has 2 functions; name the one to differentiate with func=
// WRT: error: rlx-autodiff: wrt names 'zz', which is no rlx.input or rlx.param argument of @f
// TWICE: error: rlx-autodiff: wrt names 'a' twice
// REMAT: error: rlx-autodiff: remat=elementwise is not supported yet (only none)
// OPTIMIZER: error: rlx-autodiff: optimizer=adam is not supported yet
// JVPWRT: error: rlx-jvp: wrt names 'zz', which is no rlx.input or rlx.param argument of @f

func.func @f(%a: tensor<3xf32> {rlx.param = "a"}) -> tensor<f32> {
  %l = rlx.reduce sum %a axes = [0] : tensor<3xf32>
  return %l : tensor<f32>
}

// JVP: invalid-options.mlir:[[@LINE+3]]:8: error: rlx-jvp: no forward-mode rule for 'rlx.attention' yet
func.func @attend(%q: tensor<1x1x2x2xf32> {rlx.input = "q"})
    -> tensor<1x1x2x2xf32> {
  %o = rlx.attention %q, %q, %q {head_dim = 2 : i64, num_heads = 1 : i64,
         mask_kind = #rlx.mask<none>}
         : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
  return %o : tensor<1x1x2x2xf32>
}
