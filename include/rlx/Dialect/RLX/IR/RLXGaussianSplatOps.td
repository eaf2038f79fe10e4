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
    | `positions` | `[N * 3]` | centres `p`, world space |
    | `scales` | `[N * 3]` | log-space axis scales `s` |
    | `rotations` | `[N * 4]` | quaternions `q`, xyzw, not necessarily unit |
    | `opacities` | `[N]` | logits `l` |
    | `colors` | `[N * 3]` | base linear RGB `c0` |
    | `sh_coeffs` | `[N * C * 3]` | spherical-harmonic coefficients `[N][C][3]` of bands 1 to L: `C = (L + 1)^2 - 1`, that is 0, 3, 8 or 15 |
    | `meta` | `[23]` | camera, see below |

    `N` is `dim(opacities)`. Settings: `width` `W`, `height` `H`,
    `tile_size` `S`, `max_splat_steps`, `max_list_entries` are positive;
    `radius_scale` `k` is positive; `alpha_cutoff` and
    `transmittance_threshold` lie in `[0, 1)`. The result is RGBA f32
    `[H * W * 4]`, row-major (pixel `(x, y)` at `4 * (y * W + x)`), in the
    linear space of the colors: no display transfer (gamma) is applied.

    **Camera** (`meta`): `[0:3]` eye `e`, `[3:6]` target, `[6:9]` up,
    `[9]` vertical field of view in degrees (in (0, 180)), `[10]` near,
    `[11]` far, `[12:15]` background RGB `bg`, `[15:23]` ignored (the
    original stores the settings there as f32 bit patterns; the op's
    attributes are authoritative). Axes: `f = normalize(target - e)`,
    `r = normalize(f x up)`, `u = r x f`. A point's view coordinates are
    `v = ((p-e).r, (p-e).u, (p-e).f)`; the focal length is
    `F = H / (2 tan(fov / 2))` for both axes, the principal point
    `(W/2, H/2)`, and the image mean `m = (W/2 + F vx/vz, H/2 - F vy/vz)`
    (x right, y down). Pixel `(x, y)` is sampled at its centre
    `(x + 0.5, y + 0.5)`. A degenerate camera (target at the eye, up
    parallel to `f`, field of view out of range) stops the run with an
    error.

    **Projection** of splat `i`: it is culled (contributes nothing, gets a
    zero gradient) when `vz <= near`, `vz >= far`, `|q| = 0`, or any
    projected value below is not finite. `R` is the rotation of `q / |q|`,
    `Sigma = R diag(exp(2 s)) R^T`, `W3` the matrix with rows `r, u, f`,
    `J = [[F/vz, 0, -F vx/vz^2], [0, -F/vz, F vy/vz^2]]` and
    `Sigma2 = J W3 Sigma W3^T J^T + 0.3 I` (`[[a, b], [b, c]]`); its inverse
    is the conic `(A, B, C) = (c, -b, a) / (a c - b^2)`. Opacity
    `o = sigmoid(l)`. Color: `d = normalize(p - e)`,
    `rgb = max(0, c0 + sum_{k<C} Y_k(d) sh[i][k])` per channel, with `Y_k`
    the real spherical harmonics of bands 1 to 3 in the usual order
    (band 1: `-0.4886025 y, 0.4886025 z, -0.4886025 x`; bands 2 and 3 as in
    the common 3D Gaussian splatting convention, constants in
    `lib/Runtime/CPU/GaussianSplat.cpp`); band 0 is `c0` itself.

    **Tiles**: the image is cut into `ceil(W/S) x ceil(H/S)` tiles of `S x
    S` pixels (the last row and column clipped to the image), numbered
    row-major. A visible splat enters every tile `(tx, ty)` with
    `floor((mx - ex)/S) <= tx <= floor((mx + ex)/S)` and likewise in `y`
    (clamped to the grid), where `ex = k sqrt(a)`, `ey = k sqrt(c)` are the
    half-extents at `k` standard deviations. Each tile's list is sorted by
    `vz`, ties by splat index. **List limit**: all entries are ordered by
    (tile, `vz`, index) and only the first `max_list_entries` are kept:
    when the scene has more, the tiles at the end of the row-major order
    lose their entries (farthest first within the tile at the cut), never
    memory past the buffer.

    **Blending** of pixel `(x, y)` in tile `t`: `T = 1`, `rgb_acc = 0`;
    walk `t`'s list front to back, at most `max_splat_steps` entries (each
    entry visited counts as one step, whether it blends or not). For entry
    `i`: `(dx, dy) = pixel centre - m_i`,
    `power = (A dx^2 + C dy^2)/2 + B dx dy`; skip when `power < 0`;
    `alpha = min(0.99, o_i exp(-power))`; skip when
    `alpha < alpha_cutoff`; else `rgb_acc += T alpha rgb_i`,
    `T *= 1 - alpha`, and stop when `T < transmittance_threshold`. The
    pixel is `(rgb_acc + T bg, 1 - T)`.

    Unsupported on the CPU (errors naming the op): scene operands of
    dynamic length, `C` other than 0, 3, 8, 15, and counts above 2^31 - 1.
    No other backend lowers the splat ops.

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

    of length `14 N + dim(sh_coeffs)`, each part in its operand's layout.
    Extra settings:

    - `loss_grad_clip` (> 0): each incoming RGB gradient is clamped to
      `[-loss_grad_clip, loss_grad_clip]` first.
    - `sh_band` (0 to 3): the coefficients of bands above `sh_band` get a
      zero gradient (band 0, `colors`, is always differentiated; the
      position's gradient keeps the view-direction dependence of every
      band).
    - `max_anisotropy` (>= 1): the training forward raises each log-scale
      to at least `max(s_i) - ln(max_anisotropy)` of its splat, so no
      splat's largest-to-smallest axis ratio exceeds the bound; the
      gradient is that of the bounded forward (a raised axis passes its
      gradient to the largest one). Where no splat exceeds the bound, it is
      the forward of `rlx.gaussian_splat_render`.

    The result is the exact gradient of `sum(clip(d_loss_rgba[rgb]) * rgb)`
    of that forward, with its discrete choices held fixed: the culling,
    the tile lists and their limit, `max_splat_steps`, `alpha_cutoff`,
    the early stop at `transmittance_threshold`, the `0.99` opacity clamp
    and the color clamp at zero (clamped values pass no gradient).
    `rotations` get the gradient with respect to the unnormalized
    quaternion, `opacities` with respect to the logit; `meta` gets none.
    Culled splats get zeros.

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
    into `tile_size` tiles and depth-sorts the per-tile lists, exactly as
    `rlx.gaussian_splat_render` defines (same operands and settings, same
    list limit). The result is the packed prepare buffer consumed by
    `rlx.gaussian_splat_rasterize`. On the CPU it has
    `8 + 10 N + 2 * tiles + max_list_entries` words (tiles =
    `ceil(W/S) * ceil(H/S)`); words marked (i) hold int32 bit patterns:

    | words | content |
    |---|---|
    | `[0, 8)` | header (i): magic `0x31505352`, `N`, tiles in x, tiles in y, list entries kept, entries dropped at the limit (saturating), `W`, `H` |
    | `10 N` | per splat: mean x, mean y, conic A, B, C, opacity, R, G, B, `vz`; all zero for a culled splat |
    | `2 * tiles` | (i) per tile, row-major: `[begin, end)` into the list |
    | `max_list_entries` | (i) splat indices, sorted per tile by depth; `-1` past the kept entries |

    Per-pixel rays are not stored (the rasterizer samples pixel centres).
    The result type is stated: a static length must equal the packing's,
    or it is `tensor<?xf32>`. Autodiff requires the pair to be fused back
    into `rlx.gaussian_splat_render` first.

    Example:

    ```mlir
    %prep = rlx.gaussian_splat_prepare %pos, %scl, %rot, %opa, %col, %sh, %meta
        {width = 4 : i64, height = 2 : i64, tile_size = 16 : i64,
         radius_scale = 3.0 : f32, alpha_cutoff = 0.5 : f32,
         max_splat_steps = 64 : i64, transmittance_threshold = 0.001 : f32,
         max_list_entries = 1024 : i64}
        : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>,
          tensor<30xf32>, tensor<90xf32>, tensor<23xf32> -> tensor<?xf32>
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
    back, as `rlx.gaussian_splat_render` defines, and writes RGBA f32
    `[height * width * 4]`. `meta` is the `[23]` camera buffer (only the
    background is read). Settings and their ranges are those of
    `rlx.gaussian_splat_render` without `radius_scale`; the result equals
    the render's bit for bit. A `prep` whose header, length or lists do
    not match these settings (another width, height, tile size or
    `max_list_entries`, or indices out of range) stops the run with an
    error naming the op.

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
