// RUN: rlx-opt %s --rlx-cpu-lower-gaussian-splat --split-input-file --verify-diagnostics | FileCheck %s

// Each Gaussian splat op becomes one call of rlx_rt_gaussian_splat: the
// stage (0 render, 1 prepare, 2 rasterize, 3 backward), nine data pointers
// (seven scene operands, prep or d_loss_rgba, the result; 0 where the
// stage has none), the splat count N, the spherical-harmonic coefficients
// per splat C, the prep buffer's length and the settings. The pointers and
// the call sit in the body of an rlx_cpu.on_buffers that reads the operands
// (the scene, or meta alone for rasterize, then prep or d_loss_rgba) and
// writes a fresh result (a tensor.empty), so bufferization sees both; the
// body's block arguments are those buffers, and bufferization makes the
// body a region that is never inlined (so rlx-cpu-early-dealloc keeps every
// buffer alive up to the call).

// CHECK: func.func private @rlx_rt_gaussian_splat(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, i64, f32)
// CHECK-LABEL: func.func @render(
// CHECK-SAME: %[[POS:.*]]: tensor<30xf32>, %[[ROT:.*]]: tensor<40xf32>, %[[OPA:.*]]: tensor<10xf32>, %[[SH:.*]]: tensor<90xf32>, %[[META:.*]]: tensor<23xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<280xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[POS]], %[[POS]], %[[ROT]], %[[OPA]], %[[POS]], %[[SH]], %[[META]] : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<90xf32>, tensor<23xf32>) outs(%[[INIT]] : tensor<280xf32>) {
// CHECK: ^bb0(%[[B0:.*]]: memref<30xf32>, %[[B1:.*]]: memref<30xf32>, %[[B2:.*]]: memref<40xf32>, %[[B3:.*]]: memref<10xf32>, %[[B4:.*]]: memref<30xf32>, %[[B5:.*]]: memref<90xf32>, %[[B6:.*]]: memref<23xf32>, %[[OUT:.*]]: memref<280xf32>):
// CHECK-DAG: %[[STAGE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 10 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[W:.*]] = arith.constant 10 : i64
// CHECK-DAG: %[[H:.*]] = arith.constant 7 : i64
// CHECK-DAG: %[[S:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[RADIUS:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-DAG: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[B0]]
// CHECK-DAG: %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[B1]]
// CHECK-DAG: %[[P2:.*]] = memref.extract_aligned_pointer_as_index %[[B2]]
// CHECK-DAG: %[[P3:.*]] = memref.extract_aligned_pointer_as_index %[[B3]]
// CHECK-DAG: %[[P4:.*]] = memref.extract_aligned_pointer_as_index %[[B4]]
// CHECK-DAG: %[[P5:.*]] = memref.extract_aligned_pointer_as_index %[[B5]]
// CHECK-DAG: %[[P6:.*]] = memref.extract_aligned_pointer_as_index %[[B6]]
// CHECK-DAG: %[[PO:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG: %[[I0:.*]] = arith.index_cast %[[P0]] : index to i64
// CHECK-DAG: %[[I1:.*]] = arith.index_cast %[[P1]] : index to i64
// CHECK-DAG: %[[I2:.*]] = arith.index_cast %[[P2]] : index to i64
// CHECK-DAG: %[[I3:.*]] = arith.index_cast %[[P3]] : index to i64
// CHECK-DAG: %[[I4:.*]] = arith.index_cast %[[P4]] : index to i64
// CHECK-DAG: %[[I5:.*]] = arith.index_cast %[[P5]] : index to i64
// CHECK-DAG: %[[I6:.*]] = arith.index_cast %[[P6]] : index to i64
// CHECK-DAG: %[[IO:.*]] = arith.index_cast %[[PO]] : index to i64
// CHECK: func.call @rlx_rt_gaussian_splat(%[[STAGE]], %[[I0]], %[[I1]], %[[I2]], %[[I3]], %[[I4]], %[[I5]], %[[I6]], %{{.*}}, %[[IO]], %[[N]], %[[C]], %{{.*}}, %[[W]], %[[H]], %[[S]], %{{.*}}, %{{.*}}, %[[RADIUS]], {{.*}}) : {{[(]}}i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, i64, f32{{[)]}} -> ()
// CHECK: } -> tensor<280xf32>
// CHECK: return %[[R]]
func.func @render(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<90xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  %r = rlx.gaussian_splat_render %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<90xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}

// -----

// The prepare buffer has 8 + 10 N + 2 * tiles + max_list_entries words
// (8 + 100 + 2 * 6 + 100 = 220); a tensor<?xf32> result takes that length
// through a cast, and rasterize passes its operand's run-time length.
// CHECK-LABEL: func.func @decomposed(
// CHECK-SAME: %[[META:[^ ]*]]: tensor<23xf32>)
// CHECK: %[[PINIT:.*]] = tensor.empty() : tensor<220xf32>
// CHECK: %[[T:.*]] = rlx_cpu.on_buffers ins({{.*}}, %[[META]] : {{.*}}, tensor<0xf32>, tensor<23xf32>) outs(%[[PINIT]] : tensor<220xf32>) {
// CHECK: arith.constant 1 : i64
// CHECK: arith.constant 220 : i64
// CHECK: func.call @rlx_rt_gaussian_splat
// CHECK: } -> tensor<220xf32>
// CHECK: %[[DYN:.*]] = tensor.cast %[[T]] : tensor<220xf32> to tensor<?xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<280xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[META]], %[[DYN]] : tensor<23xf32>, tensor<?xf32>) outs(%[[INIT]] : tensor<280xf32>) {
// CHECK: ^bb0(%[[MB:.*]]: memref<23xf32>, %[[PB:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<280xf32>):
// CHECK: %[[STAGE:.*]] = arith.constant 2 : i64
// CHECK: %[[MP:.*]] = memref.extract_aligned_pointer_as_index %[[MB]]
// CHECK: %[[M64:.*]] = arith.index_cast %[[MP]] : index to i64
// CHECK: %[[PP:.*]] = memref.extract_aligned_pointer_as_index %[[PB]]
// CHECK: %[[P64:.*]] = arith.index_cast %[[PP]] : index to i64
// CHECK: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[O64:.*]] = arith.index_cast %[[OP]] : index to i64
// CHECK: %[[LEN:.*]] = memref.dim %[[PB]]
// CHECK: %[[LEN64:.*]] = arith.index_cast %[[LEN]] : index to i64
// CHECK: func.call @rlx_rt_gaussian_splat(%[[STAGE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M64]], %[[P64]], %[[O64]], %{{.*}}, %{{.*}}, %[[LEN64]],
// CHECK: } -> tensor<280xf32>
// CHECK: return %[[R]]
func.func @decomposed(%pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<0xf32>, %meta: tensor<23xf32>) -> tensor<280xf32> {
  %p = rlx.gaussian_splat_prepare %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<0xf32>, tensor<23xf32> -> tensor<?xf32>
  %r = rlx.gaussian_splat_rasterize %p, %meta {width = 10 : i64, height = 7 : i64, tile_size = 4 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 100 : i64} : tensor<?xf32>, tensor<23xf32>
  return %r : tensor<280xf32>
}

// -----

// The backward: stage 3, d_loss_rgba as the eighth pointer, and its three
// extra settings (loss_grad_clip, sh_band, max_anisotropy) last.
// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %[[DL:[^ ]*]]: tensor<280xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<230xf32>
// CHECK: rlx_cpu.on_buffers ins({{.*}}, %[[DL]] : tensor<30xf32>, {{.*}}, tensor<23xf32>, tensor<280xf32>) outs(%[[INIT]] : tensor<230xf32>) {
// CHECK: ^bb0({{.*}}: memref<23xf32>, %[[DLB:.*]]: memref<280xf32>, %[[OUT:.*]]: memref<230xf32>):
// CHECK-DAG: %[[STAGE:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[CLIP:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[ANISO:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[DLP:.*]] = memref.extract_aligned_pointer_as_index %[[DLB]]
// CHECK-DAG: %[[DL64:.*]] = arith.index_cast %[[DLP]] : index to i64
// CHECK-DAG: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG: %[[O64:.*]] = arith.index_cast %[[OP]] : index to i64
// CHECK: func.call @rlx_rt_gaussian_splat(%[[STAGE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DL64]], %[[O64]], {{.*}}, %[[CLIP]], %{{.*}}, %[[ANISO]])
// CHECK: } -> tensor<230xf32>
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
