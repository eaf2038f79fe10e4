// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @render_width(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{'rlx.gaussian_splat_render' op attribute 'width' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 0 : i64, height = 32 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_tile_size(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'tile_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = -16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_radius_scale(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'radius_scale' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 0.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_alpha_cutoff(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'alpha_cutoff' failed to satisfy constraint: 32-bit float attribute whose value is in [0, 1)}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 1.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_transmittance(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'transmittance_threshold' failed to satisfy constraint: 32-bit float attribute whose value is in [0, 1)}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = -0.5 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_max_steps(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'max_splat_steps' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 0 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_opacities_rank(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10x1xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{opacities must have rank 1 ([N]), got [10, 1]}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10x1xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

// Found by rlx-fuzz-ir under UBSan: N * 3 overflowed for N = 2^62.
func.func @render_huge_count(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<4611686018427387904xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{N = 4611686018427387904 Gaussians: N * 4 overflows a 64-bit size}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<4611686018427387904xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_positions(%p: tensor<27xf32>, %b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{positions must have shape [30] ([N * 3]), got [27]}}
  %0 = rlx.gaussian_splat_render %p, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<27xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_rotations(%b3: tensor<30xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{rotations must have shape [40] ([N * 4]), got [30]}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b3, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<30xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_sh(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %sh: tensor<20xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{sh_coeffs has 20 elements, not a multiple of N * 3 = 30}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %sh, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<20xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_meta(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<24xf32>) {
  // expected-error @+1 {{meta must have shape [23] (camera and render settings), got [24]}}
  %0 = rlx.gaussian_splat_render %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<24xf32>
  return
}

// -----

func.func @render_f64(%b3: tensor<30xf64>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %b: tensor<30xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = rlx.gaussian_splat_render %b3, %b, %b4, %b1, %b, %b, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf64>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>
  return
}

// -----

func.func @render_result(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<256xf32>' are incompatible with return type(s) of operation 'tensor<192xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "rlx.gaussian_splat_render"(%b3, %b3, %b4, %b1, %b3, %b3, %meta) {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : (tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>) -> tensor<192xf32>
  return
}

// -----

func.func @backward_clip(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<256xf32>) {
  // expected-error @+1 {{'rlx.gaussian_splat_render_backward' op attribute 'loss_grad_clip' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %b3, %b3, %meta, %dl {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = -1.0 : f32, sh_band = 0 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>, tensor<256xf32>
  return
}

// -----

func.func @backward_sh_band(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<256xf32>) {
  // expected-error @+1 {{attribute 'sh_band' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 3}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %b3, %b3, %meta, %dl {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 4 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>, tensor<256xf32>
  return
}

// -----

func.func @backward_anisotropy(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<256xf32>) {
  // expected-error @+1 {{attribute 'max_anisotropy' failed to satisfy constraint: 32-bit float attribute whose value is finite and at least 1}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %b3, %b3, %meta, %dl {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 0 : i64, max_anisotropy = 0.5 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>, tensor<256xf32>
  return
}

// -----

func.func @backward_d_loss(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<192xf32>) {
  // expected-error @+1 {{d_loss_rgba must have shape [256] ([height * width * 4]), got [192]}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %b3, %b3, %meta, %dl {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 0 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>, tensor<192xf32>
  return
}

// -----

func.func @backward_colors(%b3: tensor<30xf32>, %c: tensor<33xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<256xf32>) {
  // expected-error @+1 {{colors must have shape [30] ([N * 3]), got [33]}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %c, %b3, %meta, %dl {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 0 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<33xf32>, tensor<30xf32>, tensor<23xf32>, tensor<256xf32>
  return
}

// -----

func.func @prepare_result(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{'rlx.gaussian_splat_prepare' op result must be a non-empty rank-1 buffer, got [0]}}
  %0 = rlx.gaussian_splat_prepare %b3, %b3, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32> -> tensor<0xf32>
  return
}

// -----

func.func @prepare_scales(%b3: tensor<30xf32>, %s: tensor<10xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{scales must have shape [30] ([N * 3]), got [10]}}
  %0 = rlx.gaussian_splat_prepare %b3, %s, %b4, %b1, %b3, %b3, %meta {width = 8 : i64, height = 8 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64} : tensor<30xf32>, tensor<10xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32> -> tensor<?xf32>
  return
}

// -----

func.func @rasterize_prep(%prep: tensor<4x4xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{'rlx.gaussian_splat_rasterize' op prep must be a non-empty rank-1 buffer, got [4, 4]}}
  %0 = rlx.gaussian_splat_rasterize %prep, %meta {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 1024 : i64} : tensor<4x4xf32>, tensor<23xf32>
  return
}

// -----

func.func @rasterize_meta(%prep: tensor<?xf32>, %meta: tensor<22xf32>) {
  // expected-error @+1 {{meta must have shape [23] (camera and render settings), got [22]}}
  %0 = rlx.gaussian_splat_rasterize %prep, %meta {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 1024 : i64} : tensor<?xf32>, tensor<22xf32>
  return
}

// -----

func.func @rasterize_list(%prep: tensor<?xf32>, %meta: tensor<23xf32>) {
  // expected-error @+1 {{attribute 'max_list_entries' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.gaussian_splat_rasterize %prep, %meta {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64, alpha_cutoff = 0.5 : f32, max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32, max_list_entries = 0 : i64} : tensor<?xf32>, tensor<23xf32>
  return
}

// -----

// width * height * 4 beyond int64.
func.func @backward_rgba_overflow(%b3: tensor<30xf32>, %b4: tensor<40xf32>, %b1: tensor<10xf32>, %meta: tensor<23xf32>, %dl: tensor<256xf32>) {
  // expected-error @+1 {{'rlx.gaussian_splat_render_backward' op width 4294967296 x height 4294967296 x 4 is not a positive 64-bit size}}
  %0 = rlx.gaussian_splat_render_backward %b3, %b3, %b4, %b1, %b3, %b3, %meta, %dl {width = 4294967296 : i64, height = 4294967296 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0 : f32, max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32, sh_band = 0 : i64, max_anisotropy = 10.0 : f32} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<30xf32>, tensor<23xf32>, tensor<256xf32>
  return
}
