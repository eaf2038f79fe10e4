"""rlx.gaussian_splat_render, _prepare, _rasterize and _render_backward on the
CPU against a NumPy reference written in this file from the ops' documented
contract (docs/ops/GaussianSplatOps.md), evaluated in float64 on the same
float32 inputs.

Scenes are fresh random ones: splats in front of, behind and beside the
camera, overlapping; image sizes that are not multiples of the tile size;
spherical harmonics of 0 to 3 bands; the empty scene. Limits:
max_list_entries below the scene's entry count (the kept list, the header's
kept/dropped counts and the -1 fill are compared exactly),
max_splat_steps, alpha_cutoff, transmittance_threshold, the 0.99 opacity
clamp. The decomposed pair renders exactly what the render op renders
(static and tensor<?xf32> prep), and a prep buffer prepared for other
settings stops the run with an error naming rasterize.

Tolerances. Forward: atol = rtol = 1e-4. A splat's image position carries
the float32 rounding of its view coordinates times the focal length (about
1e-5 px here), and a pixel's value moves by up to about one unit per pixel
of displacement for the sharpest splats (a few pixels wide), so the float32
error is about 1e-5 at worst; the observed maximum is printed and is near
1e-6. The contract's discrete choices (alpha_cutoff, the 0.99 clamp, the
early stop, tile binning) are decided in float32 by the kernel and in
float64 here: pixels where one of them lies within 2e-5 (relative) of its
threshold in the reference are excluded from the comparison (they are
counted and rare); a scene with more than 2% of such pixels is drawn again.

Backward: against central finite differences (step 1e-5) of the float64
reference loss sum(clip(dL) * rgb), with alpha_cutoff = 0 and
transmittance_threshold = 0 and opacities below the clamp, so the loss is
smooth in every parameter except at the tile binning, which the step does
not cross for random scenes. The kernel computes in float32 with per-splat
sums in float64; the check is |got - fd| <= 1e-3 * |fd| + 1e-4 * max|fd|
(float32 relative error about 1e-6 per pixel contribution, amplified by
the conic's sensitivity to the scales, 1 / sigma^2, and summed over the
pixels; the observed error is printed, near 5e-7 of max|fd|).
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker  # noqa: E402

check = Checker(sys.argv[1])
rng = check.rng

SH_C1 = 0.48860251190291992
SH_C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
         -1.0925484305920792, 0.54627421529603959]
SH_C3 = [-0.59004358992664352, 2.8906114426405538, -0.45704579946446572,
         0.3731763325901154, -0.45704579946446572, 1.4453057213202769,
         -0.59004358992664352]
# A decision closer than this to its threshold, relative to the threshold
# (tile edges: in tiles), makes a pixel "fragile" (the kernel's float32
# values are within about 1e-6, relative, of the reference's).
MARGIN = 2e-5


# ---------------------------------------------------------------------------
# Reference (float64), written from the documented contract
# ---------------------------------------------------------------------------

def sh_basis(d):
    x, y, z = d[:, 0], d[:, 1], d[:, 2]
    xx, yy, zz = x * x, y * y, z * z
    return np.stack([
        -SH_C1 * y, SH_C1 * z, -SH_C1 * x,
        SH_C2[0] * x * y, SH_C2[1] * y * z, SH_C2[2] * (2 * zz - xx - yy),
        SH_C2[3] * x * z, SH_C2[4] * (xx - yy),
        SH_C3[0] * y * (3 * xx - yy), SH_C3[1] * x * y * z,
        SH_C3[2] * y * (4 * zz - xx - yy),
        SH_C3[3] * z * (2 * zz - 3 * xx - 3 * yy),
        SH_C3[4] * x * (4 * zz - xx - yy), SH_C3[5] * z * (xx - yy),
        SH_C3[6] * x * (xx - 3 * yy)], axis=1)


def camera(meta, w, h):
    eye, target, up = meta[0:3], meta[3:6], meta[6:9]
    f = target - eye
    f = f / np.linalg.norm(f)
    r = np.cross(f, up)
    r = r / np.linalg.norm(r)
    u = np.cross(r, f)
    focal = h / (2 * np.tan(np.radians(meta[9]) / 2))
    return eye, np.stack([r, u, f]), focal


def project(scene, meta, w, h, k, aniso=None):
    """Per-splat mean, conic, opacity, rgb, depth, extents, visibility."""
    pos, scl, rot, opa, col, sh = (np.asarray(a, np.float64) for a in scene)
    n = opa.shape[0]
    pos, scl, rot, col = (pos.reshape(n, 3), scl.reshape(n, 3),
                          rot.reshape(n, 4), col.reshape(n, 3))
    c = sh.shape[0] // (3 * n) if n else 0
    sh = sh.reshape(n, c, 3)
    meta = np.asarray(meta, np.float64)
    eye, axes, focal = camera(meta, w, h)
    rel = pos - eye
    v = rel @ axes.T
    vx, vy, vz = v[:, 0], v[:, 1], v[:, 2]
    if aniso is not None:
        scl = np.maximum(scl, scl.max(axis=1, keepdims=True) - np.log(aniso))
    qn = np.linalg.norm(rot, axis=1)
    with np.errstate(all="ignore"):
        q = rot / qn[:, None]
        x, y, z, wq = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
        rm = np.stack([
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - wq * z),
                      2 * (x * z + wq * y)], -1),
            np.stack([2 * (x * y + wq * z), 1 - 2 * (x * x + z * z),
                      2 * (y * z - wq * x)], -1),
            np.stack([2 * (x * z - wq * y), 2 * (y * z + wq * x),
                      1 - 2 * (x * x + y * y)], -1)], 1)
        m = rm * np.exp(scl)[:, None, :]
        view = np.einsum("ij,njk->nik", axes, m)
        jac = np.zeros((n, 2, 3))
        jac[:, 0, 0] = focal / vz
        jac[:, 0, 2] = -focal * vx / vz ** 2
        jac[:, 1, 1] = -focal / vz
        jac[:, 1, 2] = focal * vy / vz ** 2
        p = jac @ view
        cov = p @ p.transpose(0, 2, 1)
        a = cov[:, 0, 0] + 0.3
        b = cov[:, 0, 1]
        cc = cov[:, 1, 1] + 0.3
        det = a * cc - b * b
        conic = np.stack([cc / det, -b / det, a / det], 1)
        mean = np.stack([w / 2 + focal * vx / vz, h / 2 - focal * vy / vz], 1)
        ext = np.stack([k * np.sqrt(a), k * np.sqrt(cc)], 1)
        o = 1 / (1 + np.exp(-opa))
        d = rel / np.linalg.norm(rel, axis=1, keepdims=True)
        rgb = col + np.einsum("nk,nkc->nc", sh_basis(d)[:, :c], sh)
        rgb = np.maximum(rgb, 0)
        visible = (vz > meta[10]) & (vz < meta[11]) & (qn > 0) & (det > 0)
        for arr in (mean, conic, ext, rgb):
            visible &= np.isfinite(arr).all(axis=1)
    return dict(mean=mean, conic=conic, o=o, rgb=rgb, depth=vz, ext=ext,
                visible=visible, n=n)


def bin_splats(pr, w, h, s, max_list):
    """Per tile sorted lists after the list limit, total entries, and the
    tiles whose binning is within MARGIN of a tile edge."""
    tx_n, ty_n = -(-w // s), -(-h // s)
    entries = []
    fragile_tiles = {}  # (tx, ty) -> splats binned there or not by a hair
    for i in range(pr["n"]):
        if not pr["visible"][i]:
            continue
        mx, my = pr["mean"][i]
        ex, ey = pr["ext"][i]
        edges = [(mx - ex) / s, (mx + ex) / s, (my - ey) / s, (my + ey) / s]
        x0, x1, y0, y1 = (int(np.floor(e)) for e in edges)
        # An edge at a tile boundary: the tiles on both sides of it, over
        # the splat's other extent, may or may not get the splat.
        for axis, e in zip("xxyy", edges):
            if abs(e - round(e)) < MARGIN:
                j = int(round(e))
                lo, hi = (y0, y1) if axis == "x" else (x0, x1)
                for other in range(lo - 1, hi + 2):
                    for side in (j - 1, j):
                        tile = (side, other) if axis == "x" else (other, side)
                        fragile_tiles.setdefault(tile, set()).add(i)
        for ty in range(max(0, y0), min(ty_n - 1, y1) + 1):
            for tx in range(max(0, x0), min(tx_n - 1, x1) + 1):
                entries.append((ty * tx_n + tx, pr["depth"][i], i))
    entries.sort()
    kept = entries[:max_list]
    lists = [[] for _ in range(tx_n * ty_n)]
    for t, _, i in kept:
        lists[t].append(i)
    return lists, len(entries), fragile_tiles


def rasterize(pr, lists, fragile_tiles, meta, w, h, s, cutoff, steps, thr,
              whole_tiles):
    """RGBA image and the mask of fragile pixels."""
    bg = np.asarray(meta[12:15], np.float64)
    tx_n = -(-w // s)
    img = np.zeros((h, w, 4))
    fragile = np.zeros((h, w), bool)
    for t, lst in enumerate(lists):
        tx, ty = t % tx_n, t // tx_n
        xs = np.arange(tx * s, min(tx * s + s, w))
        ys = np.arange(ty * s, min(ty * s + s, h))
        px, py = np.meshgrid(xs + 0.5, ys + 0.5)
        for i in fragile_tiles.get((tx, ty), ()):
            if whole_tiles:
                # The splat shifts the step count or the list limit of
                # every later entry, in every tile.
                fragile[:] = True
                break
            # Only where its presence changes the pixel.
            dx, dy = px - pr["mean"][i, 0], py - pr["mean"][i, 1]
            ca, cb, cc = pr["conic"][i]
            power = 0.5 * (ca * dx * dx + cc * dy * dy) + cb * dx * dy
            raw = pr["o"][i] * np.exp(-power)
            fragile[np.ix_(ys, xs)] |= raw >= max(cutoff, 1e-7)
        trans = np.ones_like(px)
        acc = np.zeros(px.shape + (3,))
        active = np.ones(px.shape, bool)
        frag = np.zeros(px.shape, bool)
        for i in lst[:steps]:
            dx, dy = px - pr["mean"][i, 0], py - pr["mean"][i, 1]
            ca, cb, cc = pr["conic"][i]
            power = 0.5 * (ca * dx * dx + cc * dy * dy) + cb * dx * dy
            raw = pr["o"][i] * np.exp(-power)
            alpha = np.minimum(raw, 0.99)
            use = active & (power >= 0) & (alpha >= cutoff)
            frag |= active & ((np.abs(raw - 0.99) < MARGIN * 0.99) |
                              ((cutoff > 0) & (np.abs(alpha - cutoff) <
                                               MARGIN * cutoff)))
            acc += np.where(use, trans * alpha, 0)[..., None] * pr["rgb"][i]
            trans = np.where(use, trans * (1 - alpha), trans)
            frag |= use & (thr > 0) & (np.abs(trans - thr) < MARGIN * thr)
            active &= ~(use & (trans < thr))
        img[np.ix_(ys, xs)] = np.concatenate(
            [acc + trans[..., None] * bg, (1 - trans)[..., None]], -1)
        fragile[np.ix_(ys, xs)] |= frag
    return img.reshape(-1), np.repeat(fragile.reshape(-1), 4)


def render_ref(scene, meta, st, aniso=None):
    w, h, s = st["width"], st["height"], st["tile_size"]
    pr = project(scene, meta, w, h, st["radius_scale"], aniso)
    lists, total, ftiles = bin_splats(pr, w, h, s, st["max_list_entries"])
    limited = st["max_splat_steps"] < max(map(len, lists), default=0) or \
        total > st["max_list_entries"]
    img, fragile = rasterize(pr, lists, ftiles, meta, w, h, s,
                             st["alpha_cutoff"], st["max_splat_steps"],
                             st["transmittance_threshold"], limited)
    return img, fragile, pr, lists, total


# ---------------------------------------------------------------------------
# Scenes and graphs
# ---------------------------------------------------------------------------

def make_meta(bg=None):
    eye = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), -6.0])
    target = rng.uniform(-0.3, 0.3, 3)
    up = np.array([rng.uniform(-0.2, 0.2), 1.0, 0.0])
    bg = rng.uniform(0, 1, 3) if bg is None else bg
    meta = np.concatenate([eye, target, up, [rng.uniform(40, 70), 0.2, 50.0],
                           bg, np.zeros(8)])
    return meta.astype(np.float32)


def make_scene(n, c, spread=2.0, logit=(-2.0, 3.0), scale=(0.08, 0.4)):
    pos = rng.uniform(-spread, spread, (n, 3))
    if n >= 4:
        pos[0] = [0.0, 0.0, -9.0]            # behind the camera
        pos[1] = [40.0, 0.0, 0.0]            # far off screen
        pos[2] = pos[3] + rng.uniform(-0.05, 0.05, 3)  # overlapping
    scl = np.log(rng.uniform(scale[0], scale[1], (n, 3)))
    rot = rng.normal(size=(n, 4))
    opa = rng.uniform(logit[0], logit[1], n)
    col = rng.uniform(0, 1, (n, 3))
    sh = rng.uniform(-0.3, 0.3, (n, c, 3))
    return [a.reshape(-1).astype(np.float32)
            for a in (pos, scl, rot, opa, col, sh)]


NAMES = ["positions", "scales", "rotations", "opacities", "colors", "sh",
         "meta"]


def attrs(st, extra=()):
    keys = ["width", "height", "tile_size", "radius_scale", "alpha_cutoff",
            "max_splat_steps", "transmittance_threshold", "max_list_entries"]
    keys += list(extra)
    out = []
    for key in keys:
        if key not in st:
            continue
        v = st[key]
        out.append(f"{key} = {v} : i64" if isinstance(v, int) else
                   f"{key} = {float(v)!r} : f32")
    return "{" + ", ".join(out) + "}"


def settings(w, h, s, **kw):
    st = dict(width=w, height=h, tile_size=s, radius_scale=3.0,
              alpha_cutoff=1.0 / 255, max_splat_steps=256,
              transmittance_threshold=1e-4, max_list_entries=65536)
    st.update(kw)
    return st


def scene_args(arrays):
    sig = ", ".join(f"%{nm}: tensor<{a.size}xf32> {{rlx.input = \"{nm}\"}}"
                    for nm, a in zip(NAMES, arrays))
    types = ", ".join(f"tensor<{a.size}xf32>" for a in arrays)
    uses = ", ".join(f"%{nm}" for nm in NAMES)
    return sig, types, uses


def run_render(scene, meta, st):
    arrays = scene + [meta]
    sig, types, uses = scene_args(arrays)
    size = st["width"] * st["height"] * 4
    mlir = f"""
func.func @g({sig}) -> tensor<{size}xf32> {{
  %r = rlx.gaussian_splat_render {uses} {attrs(st)} : {types}
  return %r : tensor<{size}xf32>
}}"""
    out = check.run(mlir, dict(zip(NAMES, arrays)))
    return out and out[0]


def prep_length(n, st):
    tiles = (-(-st["width"] // st["tile_size"])) * \
        (-(-st["height"] // st["tile_size"]))
    return 8 + 10 * n + 2 * tiles + st["max_list_entries"]


def run_decomposed(scene, meta, st):
    """Returns (prep, rgba of the pair, rgba of a second pair whose prep
    is typed tensor<?xf32>)."""
    arrays = scene + [meta]
    sig, types, uses = scene_args(arrays)
    size = st["width"] * st["height"] * 4
    plen = prep_length(scene[3].size, st)
    rast = {k: v for k, v in st.items() if k != "radius_scale"}
    mlir = f"""
func.func @g({sig}) -> (tensor<{plen}xf32>, tensor<{size}xf32>,
                        tensor<{size}xf32>) {{
  %p = rlx.gaussian_splat_prepare {uses} {attrs(st)} : {types}
      -> tensor<{plen}xf32>
  %r = rlx.gaussian_splat_rasterize %p, %meta {attrs(rast)}
      : tensor<{plen}xf32>, tensor<23xf32>
  %pd = rlx.gaussian_splat_prepare {uses} {attrs(st)} : {types}
      -> tensor<?xf32>
  %rd = rlx.gaussian_splat_rasterize %pd, %meta {attrs(rast)}
      : tensor<?xf32>, tensor<23xf32>
  return %p, %r, %rd : tensor<{plen}xf32>, tensor<{size}xf32>,
      tensor<{size}xf32>
}}"""
    out = check.run(mlir, dict(zip(NAMES, arrays)))
    return out if out else (None, None, None)


def run_backward(scene, meta, dl, st):
    arrays = scene + [meta]
    sig, types, uses = scene_args(arrays)
    n, shn = scene[3].size, scene[5].size
    glen = 14 * n + shn
    mlir = f"""
func.func @g({sig}, %dl: tensor<{dl.size}xf32> {{rlx.input = "dl"}})
    -> tensor<{glen}xf32> {{
  %r = rlx.gaussian_splat_render_backward {uses}, %dl
      {attrs(st, ["loss_grad_clip", "sh_band", "max_anisotropy"])}
      : {types}, tensor<{dl.size}xf32>
  return %r : tensor<{glen}xf32>
}}"""
    inputs = dict(zip(NAMES, arrays))
    inputs["dl"] = dl
    out = check.run(mlir, inputs)
    return out and out[0]


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------

def too_fragile(fragile):
    return fragile.sum() // 4 > max(2, 0.02 * fragile.size // 4)


def compare_image(what, got, want, fragile):
    if got is None or got.shape != want.shape:
        check.close(what, got, want.astype(np.float32), 1e-4, 1e-4)
        return
    share = fragile.mean() if fragile.size else 0.0
    if too_fragile(fragile):
        check.failed += 1
        print(f"FAIL {what}: {share:.1%} of the pixels are within {MARGIN} "
              "of a threshold; the case cannot be checked")
        return
    keep = ~fragile
    err = np.abs(got[keep] - want[keep]).max() if keep.any() else 0.0
    print(f"{what}: max abs err {err:.2e}, {int(fragile.sum()) // 4} "
          "fragile pixels excluded")
    check.close(what, got[keep], want[keep].astype(np.float32), 1e-4, 1e-4)


def check_forward(label, n, c, st, **scene_kw):
    for _ in range(10):
        scene = make_scene(n, c, **scene_kw)
        meta = make_meta()
        want, fragile, pr, lists, total = render_ref(scene, meta, st)
        # A scene with too many fragile pixels (with a limit in force, a
        # splat binned or not by a hair shifts every later entry) is drawn
        # again.
        if not too_fragile(fragile):
            break
    what = f"render {label} N={n} C={c} {st['width']}x{st['height']}/" \
           f"{st['tile_size']}"
    got = run_render(scene, meta, st)
    compare_image(what, got, want, fragile)
    return scene, meta, got, want, fragile, pr, lists, total


def check_decomposed(label, n, c, st):
    scene, meta, rendered, _, _, pr, lists, total = check_forward(
        label, n, c, st)
    ftiles = bin_splats(pr, st["width"], st["height"], st["tile_size"],
                        st["max_list_entries"])[2]
    prep, rgba, rgba_dyn = run_decomposed(scene, meta, st)
    what = f"prepare/rasterize {label} N={n}"
    if prep is None:
        check.failed += 1
        print(f"FAIL {what}: no output")
        return
    # The pair renders exactly what the render op renders.
    for name, img in (("static prep", rgba), ("dynamic prep", rgba_dyn)):
        check.close(f"{what} {name} == render", img, rendered, 0, 0)
    ints = prep.view(np.int32)
    tiles = len(lists)
    kept = min(total, st["max_list_entries"])
    header = [0x31505352, n, -(-st["width"] // st["tile_size"]),
              -(-st["height"] // st["tile_size"]), kept, total - kept,
              st["width"], st["height"]]
    check.close(f"{what} header", ints[:8], np.array(header, np.int32), 0, 0)
    rec = prep[8:8 + 10 * n].reshape(n, 10)
    vis = pr["visible"]
    want_rec = np.concatenate(
        [pr["mean"], pr["conic"], pr["o"][:, None], pr["rgb"],
         pr["depth"][:, None]], 1)
    want_rec[~vis] = 0
    # Conic entries scale as 1/sigma^2: a relative tolerance.
    check.close(f"{what} records", rec, want_rec.astype(np.float32), 1e-3,
                1e-3)
    ranges = ints[8 + 10 * n:8 + 10 * n + 2 * tiles].reshape(tiles, 2)
    lst = ints[8 + 10 * n + 2 * tiles:]
    want_list = np.full(st["max_list_entries"], -1, np.int32)
    want_ranges = np.zeros((tiles, 2), np.int32)
    at = 0
    for t, entries in enumerate(lists):
        if entries:
            want_ranges[t] = [at, at + len(entries)]
        want_list[at:at + len(entries)] = entries
        at += len(entries)
    if ftiles:
        # A splat's extent ends within 2e-5 tiles of a tile edge: float32
        # and float64 may bin it differently.
        print(f"{what}: lists not compared (a splat at a tile edge)")
        return
    check.close(f"{what} tile ranges", ranges, want_ranges, 0, 0)
    check.close(f"{what} list", lst, want_list, 0, 0)


def loss_ref(scene, meta, dl, st, clip, aniso):
    img = render_ref(scene, meta, st, aniso)[0].reshape(-1, 4)
    g = np.clip(dl.reshape(-1, 4)[:, :3].astype(np.float64), -clip, clip)
    return float((img[:, :3] * g).sum())


def check_backward(label, n, c, st, sh_band, clip=1.0, aniso=10.0,
                   dl_scale=1.0, scale=(0.15, 0.5)):
    scene = make_scene(n, c, spread=1.2, logit=(-1.5, 2.5), scale=scale)
    meta = make_meta()
    size = st["width"] * st["height"] * 4
    dl = (rng.uniform(-1, 1, size) * dl_scale).astype(np.float32)
    st = dict(st, loss_grad_clip=clip, sh_band=sh_band, max_anisotropy=aniso)
    got = run_backward(scene, meta, dl, st)
    # Central differences of the float64 reference loss, parameter by
    # parameter, in the packed order.
    base = [a.astype(np.float64) for a in scene]
    fd = []
    step = 1e-5
    for j, arr in enumerate(base):
        for idx in range(arr.size):
            plus = [a.copy() for a in base]
            minus = [a.copy() for a in base]
            plus[j][idx] += step
            minus[j][idx] -= step
            fd.append((loss_ref(plus, meta, dl, st, clip, aniso) -
                       loss_ref(minus, meta, dl, st, clip, aniso)) /
                      (2 * step))
    fd = np.array(fd)
    if c:
        # Bands above sh_band get no gradient.
        sh_fd = fd[14 * n:].reshape(n, c, 3)
        sh_fd[:, (sh_band + 1) ** 2 - 1:, :] = 0
    what = f"backward {label} N={n} C={c} sh_band={sh_band} " \
           f"{st['width']}x{st['height']}/{st['tile_size']}"
    if got is None or got.shape != fd.shape:
        check.close(what, got, fd.astype(np.float32), 0, 0)
        return
    scale_ = np.abs(fd).max()
    err = np.abs(got - fd)
    print(f"{what}: max |grad| {scale_:.3g}, max abs err {err.max():.2e}")
    check.close(what, got, fd.astype(np.float32), 1e-3, 1e-4 * scale_)


# Forward: sizes not multiples of the tile, tiles larger than the image,
# one-pixel images, every SH band, the empty scene.
check_forward("basic", 40, 0, settings(37, 29, 16))
check_forward("sh1", 30, 3, settings(23, 17, 8))
check_forward("sh2", 30, 8, settings(33, 20, 7))
check_forward("sh3", 25, 15, settings(16, 16, 16))
check_forward("tile>image", 12, 3, settings(9, 5, 32))
check_forward("1x1", 8, 0, settings(1, 1, 4), spread=0.3)
check_forward("empty", 0, 0, settings(13, 11, 4))
check_forward("dense", 120, 3, settings(48, 40, 16), scale=(0.1, 0.6))
# The opacity clamp: opaque splats.
check_forward("opaque", 30, 0, settings(31, 27, 8), logit=(4.0, 8.0))
# The limits.
check_forward("cutoff", 40, 3, settings(29, 23, 8, alpha_cutoff=0.3))
check_forward("early-stop", 40, 0,
              settings(29, 23, 8, transmittance_threshold=0.5),
              logit=(0.0, 4.0))
check_forward("steps=2", 40, 0, settings(29, 23, 8, max_splat_steps=2))
check_forward("list=7", 40, 0, settings(29, 23, 8, max_list_entries=7))
check_forward("list=1", 10, 0, settings(19, 13, 4, max_list_entries=1))

# The decomposed pair: the packed buffer, entry by entry, and the image.
check_decomposed("basic", 20, 3, settings(27, 19, 8))
check_decomposed("overflow", 30, 0, settings(27, 19, 8, max_list_entries=9))
check_decomposed("empty", 0, 0, settings(5, 3, 2, max_list_entries=4))



def check_bad_prep():
    """A prep buffer prepared for another tile size: rasterize stops the run
    with an error naming the op, never reading past the buffer."""
    scene = make_scene(6, 0)
    meta = make_meta()
    arrays = scene + [meta]
    sig, types, uses = scene_args(arrays)
    st = settings(12, 10, 4)
    rast = {k: v for k, v in st.items() if k != "radius_scale"}
    rast["tile_size"] = 8
    mlir = f"""
func.func @g({sig}) -> tensor<480xf32> {{
  %p = rlx.gaussian_splat_prepare {uses} {attrs(st)} : {types}
      -> tensor<?xf32>
  %r = rlx.gaussian_splat_rasterize %p, %meta {attrs(rast)}
      : tensor<?xf32>, tensor<23xf32>
  return %r : tensor<480xf32>
}}"""
    case = os.path.join(check.workdir, "bad-prep")
    os.makedirs(case)
    with open(os.path.join(case, "graph.mlir"), "w") as f:
        f.write(mlir)
    cmd = [check.rlx_run, os.path.join(case, "graph.mlir")]
    for name, value in zip(NAMES, arrays):
        path = os.path.join(case, f"{name}.npy")
        np.save(path, value)
        cmd += ["--input", f"{name}={path}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    check.failed_with("rasterize of a prep for another tile size", proc,
                      ["rlx.gaussian_splat_rasterize: prep was prepared "
                       "for another width, height or tile_size"],
                      one_line=False)


check_bad_prep()

# Backward against finite differences of the reference.
smooth = dict(alpha_cutoff=0.0, transmittance_threshold=0.0)
check_backward("plain", 5, 0, settings(14, 11, 4, **smooth), 0)
check_backward("sh-band1", 4, 3, settings(12, 9, 5, **smooth), 1)
check_backward("sh-bands<3", 4, 15, settings(10, 9, 4, **smooth), 2)
check_backward("clip", 4, 3, settings(11, 10, 4, **smooth), 1, clip=0.3,
               dl_scale=2.0)
# One axis far smaller than the others: the anisotropy bound raises it.
check_backward("anisotropy", 4, 0, settings(12, 12, 4, **smooth), 0,
               aniso=2.0, scale=(0.05, 0.6))
check_backward("steps=2", 5, 0,
               settings(12, 10, 4, max_splat_steps=2, **smooth), 0)

check.finish()
