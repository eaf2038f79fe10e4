//===- RLXGaussianSplatOps.td - Gaussian splatting ---------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXGAUSSIANSPLATOPS_TD
#define RLX_DIALECT_RLX_IR_RLXGAUSSIANSPLATOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// The alpha and transmittance cut-offs.
def RLX_SplatFractionAttr
    : RLX_F32AttrIn<">= 0.0f", "< 1.0f", "[0, 1)">;
// The spherical-harmonics band, 0 to 3.
def RLX_SplatShBandAttr
    : ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<3>]>;
// The bound on the ratio of a splat's axes.
def RLX_SplatAnisotropyAttr
    : RLX_F32AttrWhere<"v.isFinite() && v.convertToFloat() >= 1.0f",
                       "finite and at least 1">;

def RLX_SplatBuffer : RankedTensorOf<[F32]>;

// Scene operands shared by render, render backward and prepare.
defvar RLX_SplatScene = (ins RLX_SplatBuffer:$positions,
                             RLX_SplatBuffer:$scales,
                             RLX_SplatBuffer:$rotations,
                             RLX_SplatBuffer:$opacities,
                             RLX_SplatBuffer:$colors,
                             RLX_SplatBuffer:$sh_coeffs,
                             RLX_SplatBuffer:$meta);

// Render settings shared by render, render backward and prepare.
defvar RLX_SplatSettings = (ins RLX_PositiveI64Attr:$width,
                                RLX_PositiveI64Attr:$height,
                                RLX_PositiveI64Attr:$tile_size,
                                RLX_PositiveF32Attr:$radius_scale,
                                RLX_SplatFractionAttr:$alpha_cutoff,
                                RLX_PositiveI64Attr:$max_splat_steps,
                                RLX_SplatFractionAttr:$transmittance_threshold,
                                RLX_PositiveI64Attr:$max_list_entries);

//===----------------------------------------------------------------------===//
// rlx.gaussian_splat_render
//===----------------------------------------------------------------------===//

def RLX_GaussianSplatRenderOp : RLX_InferredTypeOp<"gaussian_splat_render"> {
  let summary = "3D Gaussian splat forward render (RLX `GaussianSplatRender`)";
  let description = [{
    Renders `N` 3D Gaussians with tile-based front-to-back alpha blending.
    Every operand is a flat f32 buffer:

    | operand | shape | content |
    |---|---|---|
    | `positions` | `[N * 3]` | centres |
    | `scales` | `[N * 3]` | log-space axis scales |
    | `rotations` | `[N * 4]` | quaternions, xyzw |
    | `opacities` | `[N]` | logits |
    | `colors` | `[N * 3]` | linear RGB |
    | `sh_coeffs` | `[N * C * 3]` | spherical-harmonic coefficients, `C >= 0` per Gaussian |
    | `meta` | `[23]` | camera position / target / up, fov, near, far, background RGB, then the render settings as f32 bit patterns |

    `N` is `dim(opacities)`. Settings: `width`, `height`, `tile_size`,
    `max_splat_steps`, `max_list_entries` are positive; `radius_scale` is
    positive; `alpha_cutoff` and `transmittance_threshold` lie in `[0, 1)`.
    The result is linear RGBA (display gamma applied), f32
    `[height * width * 4]`, row-major.

    Example:

    ```mlir
    %rgba = rlx.gaussian_splat_render %pos, %scl, %rot, %opa, %col, %sh, %meta
        {width = 64 : i64, height = 32 : i64, tile_size = 16 : i64,
         radius_scale = 3.0 : f32, alpha_cutoff = 0.00392 : f32,
         max_splat_steps = 256 : i64, transmittance_threshold = 0.0001 : f32,
         max_list_entries = 65536 : i64}
        : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>,
          tensor<30xf32>, tensor<0xf32>, tensor<23xf32>
    // %rgba : tensor<8192xf32>
    ```
  }];

  let arguments = !con(RLX_SplatScene, RLX_SplatSettings);
  let results = (outs RLX_SplatBuffer:$result);

  let assemblyFormat = [{
    $positions `,` $scales `,` $rotations `,` $opacities `,` $colors `,`
    $sh_coeffs `,` $meta attr-dict `:`
    type($positions) `,` type($scales) `,` type($rotations) `,`
    type($opacities) `,` type($colors) `,` type($sh_coeffs) `,` type($meta)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.gaussian_splat_render_backward
//===----------------------------------------------------------------------===//

def RLX_GaussianSplatRenderBackwardOp
    : RLX_InferredTypeOp<"gaussian_splat_render_backward"> {
  let summary = "packed scene gradients of the splat render (RLX `GaussianSplatRenderBackward`)";
  let description = [{
    Re-runs the training forward of `rlx.gaussian_splat_render` (same seven
    operands and settings) and back-propagates `d_loss_rgba`
    (`[height * width * 4]`, only the RGB channels are read). The result is
    every scene gradient packed into one f32 buffer:

    `[positions 3N | scales 3N | rotations 4N | opacities N | colors 3N | sh_coeffs]`

    of length `14 N + dim(sh_coeffs)`. Extra settings: `loss_grad_clip`
    (> 0) clips the incoming gradient, `sh_band` (0 to 3) is the highest
    spherical-harmonic band differentiated, `max_anisotropy` (>= 1) bounds
    the ratio of a Gaussian's largest to smallest scale.

    Example:

    ```mlir
    %g = rlx.gaussian_splat_render_backward %pos, %scl, %rot, %opa, %col, %sh,
        %meta, %dl {width = 4 : i64, height = 4 : i64, tile_size = 16 : i64,
        radius_scale = 3.0 : f32, alpha_cutoff = 0.0 : f32,
        max_splat_steps = 64 : i64, transmittance_threshold = 0.0 : f32,
        max_list_entries = 1024 : i64, loss_grad_clip = 1.0 : f32,
        sh_band = 0 : i64, max_anisotropy = 10.0 : f32}
        : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>,
          tensor<30xf32>, tensor<0xf32>, tensor<23xf32>, tensor<64xf32>
    // %g : tensor<140xf32>  (14 * 10 + 0)
    ```
  }];

  let arguments = !con(RLX_SplatScene, (ins RLX_SplatBuffer:$d_loss_rgba),
                       RLX_SplatSettings,
                       (ins RLX_PositiveF32Attr:$loss_grad_clip,
                            RLX_SplatShBandAttr:$sh_band,
                            RLX_SplatAnisotropyAttr:$max_anisotropy));
  let results = (outs RLX_SplatBuffer:$result);

  let assemblyFormat = [{
    $positions `,` $scales `,` $rotations `,` $opacities `,` $colors `,`
    $sh_coeffs `,` $meta `,` $d_loss_rgba attr-dict `:`
    type($positions) `,` type($scales) `,` type($rotations) `,`
    type($opacities) `,` type($colors) `,` type($sh_coeffs) `,` type($meta) `,`
    type($d_loss_rgba)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.gaussian_splat_prepare / rlx.gaussian_splat_rasterize
//===----------------------------------------------------------------------===//

def RLX_GaussianSplatPrepareOp : RLX_PureOp<"gaussian_splat_prepare"> {
  let summary = "project, bin and sort splats into a prepare buffer (RLX `GaussianSplatPrepare`)";
  let description = [{
    Stage 1 of the decomposed render: projects the Gaussians, bins them
    into `tile_size` tiles, depth-sorts the per-tile lists (at most
    `max_list_entries` entries) and builds the per-pixel rays. Operands and
    settings are those of `rlx.gaussian_splat_render`. The result is the
    packed prepare buffer consumed by `rlx.gaussian_splat_rasterize`; its
    length depends on the backend's packing, so the result type (a non-empty
    rank-1 f32 tensor) is stated. Autodiff requires the pair to be fused
    back into `rlx.gaussian_splat_render` first.

    Example:

    ```mlir
    %prep = rlx.gaussian_splat_prepare %pos, %scl, %rot, %opa, %col, %sh, %meta
        {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64,
         radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32,
         max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32,
         max_list_entries = 1024 : i64}
        : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>,
          tensor<30xf32>, tensor<30xf32>, tensor<23xf32> -> tensor<?xf32>
    ```
  }];

  let arguments = !con(RLX_SplatScene, RLX_SplatSettings);
  let results = (outs RLX_SplatBuffer:$result);

  let assemblyFormat = [{
    $positions `,` $scales `,` $rotations `,` $opacities `,` $colors `,`
    $sh_coeffs `,` $meta attr-dict `:`
    type($positions) `,` type($scales) `,` type($rotations) `,`
    type($opacities) `,` type($colors) `,` type($sh_coeffs) `,` type($meta) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def RLX_GaussianSplatRasterizeOp
    : RLX_InferredTypeOp<"gaussian_splat_rasterize"> {
  let summary = "tile rasterization of a prepare buffer (RLX `GaussianSplatRasterize`)";
  let description = [{
    Stage 2 of the decomposed render: blends the sorted per-tile lists of
    `prep` (an `rlx.gaussian_splat_prepare` result, rank-1 f32) front to
    back and writes linear RGBA f32 `[height * width * 4]`. `meta` is the
    `[23]` camera buffer. Settings and their ranges are those of
    `rlx.gaussian_splat_render` without `radius_scale`.

    Example:

    ```mlir
    %rgba = rlx.gaussian_splat_rasterize %prep, %meta {width = 4 : i64,
        height = 2 : i64, tile_size = 16 : i64, alpha_cutoff = 0.5 : f32,
        max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32,
        max_list_entries = 1024 : i64} : tensor<?xf32>, tensor<23xf32>
    // %rgba : tensor<32xf32>
    ```
  }];

  let arguments = (ins RLX_SplatBuffer:$prep,
                       RLX_SplatBuffer:$meta,
                       RLX_PositiveI64Attr:$width,
                       RLX_PositiveI64Attr:$height,
                       RLX_PositiveI64Attr:$tile_size,
                       RLX_SplatFractionAttr:$alpha_cutoff,
                       RLX_PositiveI64Attr:$max_splat_steps,
                       RLX_SplatFractionAttr:$transmittance_threshold,
                       RLX_PositiveI64Attr:$max_list_entries);
  let results = (outs RLX_SplatBuffer:$result);

  let assemblyFormat = [{
    $prep `,` $meta attr-dict `:` type($prep) `,` type($meta)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXGAUSSIANSPLATOPS_TD
