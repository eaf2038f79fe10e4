// RUN: rlx-opt %s --rlx-cpu-lower-gaussian-splat --split-input-file --verify-diagnostics | FileCheck %s

// Each Gaussian splat op becomes one call of rlx_rt_gaussian_splat: the
// stage (0 render, 1 prepare, 2 rasterize, 3 backward), nine data pointers
// (seven scene operands, prep or d_loss_rgba, the result; 0 where the
// stage has none), the splat count N, the spherical-harmonic coefficients
// per splat C, the prep buffer's length and the settings. Operands are
// read-only buffers, the result a fresh aligned one, and the pointers and
// the call share a region that is never inlined (so rlx-cpu-early-dealloc
// keeps every buffer alive up to the call).

// CHECK: func.func private @rlx_rt_gaussian_splat(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, i64, f32)
// CHECK-LABEL: func.func @render(
// CHECK-COUNT-7: bufferization.to_buffer %{{.*}} read_only
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<280xf32>
// CHECK: scf.execute_region no_inline {
// CHECK-DAG: %[[STAGE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 10 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[W:.*]] = arith.constant 10 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[S:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[RADIUS:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: func.call @rlx_rt_gaussian_splat(%[[STAGE]], {{.*}}) : {{[(]}}i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, i64, f32{{[)]}} -> ()
// CHECK: scf.yield
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable : memref<280xf32> to tensor<280xf32>
func.func @render(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<90xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  %r = rlx.gaussian_splat_render %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<90xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}

// -----

// The prepare buffer has 8 + 10 N + 2 * tiles + max_list_entries words
// (8 + 100 + 2 * 6 + 100 = 220); a tensor<?xf32> result takes that length
// through a cast, and rasterize passes its operand's run-time length.
// CHECK-LABEL: func.func @decomposed(
// CHECK: %[[PREP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<220xf32>
// CHECK: arith.constant 1 : i64
// CHECK: arith.constant 220 : i64
// CHECK: func.call @rlx_rt_gaussian_splat
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[PREP]] restrict writable : memref<220xf32> to tensor<220xf32>
// CHECK: %[[DYN:.*]] = tensor.cast %[[T]] : tensor<220xf32> to tensor<?xf32>
// CHECK: %[[PB:.*]] = bufferization.to_buffer %[[DYN]] read_only : tensor<?xf32> to memref<?xf32>
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<280xf32>
// CHECK: scf.execute_region no_inline {
// CHECK: arith.constant 2 : i64
// CHECK: %[[LEN:.*]] = memref.dim %[[PB]]
// CHECK: arith.index_cast %[[LEN]] : index to i64
// CHECK: func.call @rlx_rt_gaussian_splat
func.func @decomposed(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<0xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  %p = rlx.gaussian_splat_prepare %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<0xf32>, tensor<23xf32> -> tensor<?xf32>
  %r = rlx.gaussian_splat_rasterize %p, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<?xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}

// -----

// The backward: stage 3, d_loss_rgba as the eighth pointer, and its three
// extra settings (loss_grad_clip, sh_band, max_anisotropy) last.
// CHECK-LABEL: func.func @backward(
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<230xf32>
// CHECK-DAG: arith.constant 3 : i64
// CHECK-DAG: arith.constant 2.500000e-01 : f32
// CHECK-DAG: arith.constant 1.000000e+01 : f32
// CHECK: func.call @rlx_rt_gaussian_splat
func.func @backward(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<90xf32>, %meta: tensor<23xf32>, %dl: tensor<280xf32>) -> tensor<230xf32> {
  %g = rlx.gaussian_splat_render_backward %pos, %pos, %rot, %opa, %pos, %sh, %meta, %dl {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 100 : i64, loss_grad_clip = 0.25 : f32, sh_band = 1 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<90xf32>, tensor<23xf32>, tensor<280xf32>
  return %g : tensor<230xf32>
}

// -----

func.func @wrong_prep_length(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<0xf32>, %meta: tensor<23xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{result has 64 elements; the CPU packing of this scene and these settings has 220 (8 + 10 N + 2 * tiles + max_list_entries), or declare it tensor<?xf32>}}
  %p = rlx.gaussian_splat_prepare %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<0xf32>, tensor<23xf32> -> tensor<64xf32>
  return %p : tensor<64xf32>
}

// -----

func.func @sh_count(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  // expected-error @+1 {{has 1 spherical-harmonic coefficients per splat; the CPU kernel takes 0, 3, 8 or 15 (bands 1 to 0, 1, 2 or 3)}}
  %r = rlx.gaussian_splat_render %pos, %pos, %rot, %opa, %pos, %pos, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}

// -----

func.func @dynamic_scene(%pos: tensor<?xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<0xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  // expected-error @+1 {{has a scene operand of dynamic length ('tensor<?xf32>'); the CPU lowering needs the splat count when compiling}}
  %r = rlx.gaussian_splat_render %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<?xf32>, tensor<?xf32>, tensor<40xf32>, tensor<10xf32>, tensor<?xf32>, tensor<0xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}
