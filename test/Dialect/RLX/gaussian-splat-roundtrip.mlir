// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// N = 10 Gaussians with one SH coefficient triple each (C = 1).
// CHECK-LABEL: func.func @render
func.func @render(%pos: tensor<30xf32>, %scl: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>,
                  %col: tensor<30xf32>, %sh: tensor<30xf32>, %meta: tensor<23xf32>) -> tensor<8192xf32> {
  // CHECK: rlx.gaussian_splat_render %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {alpha_cutoff = 0.00392156886 : f32, height = 32 : i64, max_list_entries = 65536 : i64, max_splat_steps = 256 : i64, radius_scale = 3.000000e+00 : f32, tile_size = 16 : i64, transmittance_threshold = 9.99999974E-5 : f32, width = 64 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  %0 = rlx.gaussian_splat_render %pos, %scl, %rot, %opa, %col, %sh, %meta {width = 64 : i64, height = 32 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.00392156886 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0001 : f32, max_list_entries = 65536 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return %0 : tensor<8192xf32>
}

// CHECK-LABEL: func.func @render_backward
func.func @render_backward(%pos: tensor<30xf32>, %scl: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>,
                           %col: tensor<30xf32>, %sh: tensor<0xf32>, %meta: tensor<23xf32>,
                           %dl: tensor<64xf32>) -> tensor<140xf32> {
  // CHECK: rlx.gaussian_splat_render_backward {{.*}} {alpha_cutoff = 0.000000e+00 : f32, height = 4 : i64, loss_grad_clip = 1.000000e+00 : f32, max_anisotropy = 1.000000e+01 : f32, max_list_entries = 1024 : i64, max_splat_steps = 64 : i64, radius_scale = 3.000000e+00 : f32, sh_band = 0 : i64, tile_size = 16 : i64, transmittance_threshold = 0.000000e+00 : f32, width = 4 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<0xf32>, tensor<23xf32>, tensor<64xf32>
  %0 = rlx.gaussian_splat_render_backward %pos, %scl, %rot, %opa, %col, %sh, %meta, %dl {width = 4 : i64, height = 4 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 0 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<0xf32>, tensor<23xf32>, tensor<64xf32>
  return %0 : tensor<140xf32>
}

// CHECK-LABEL: func.func @prepare_rasterize
func.func @prepare_rasterize(%pos: tensor<?xf32>, %scl: tensor<?xf32>, %rot: tensor<?xf32>, %opa: tensor<?xf32>,
                             %col: tensor<?xf32>, %sh: tensor<?xf32>, %meta: tensor<23xf32>) -> tensor<32xf32> {
  // CHECK: %[[P:.*]] = rlx.gaussian_splat_prepare {{.*}} : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<23xf32> -> tensor<?xf32>
  %prep = rlx.gaussian_splat_prepare %pos, %scl, %rot, %opa, %col, %sh, %meta {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 1024 : i64} : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<23xf32> -> tensor<?xf32>
  // CHECK: rlx.gaussian_splat_rasterize %[[P]], %{{.*}} {{{.*}}width = 4 : i64} : tensor<?xf32>, tensor<23xf32>
  %rgba = rlx.gaussian_splat_rasterize %prep, %meta {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 1024 : i64} : tensor<?xf32>, tensor<23xf32>
  // CHECK: return %{{.*}} : tensor<32xf32>
  return %rgba : tensor<32xf32>
}
