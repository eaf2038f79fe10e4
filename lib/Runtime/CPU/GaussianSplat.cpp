//===- GaussianSplat.cpp - tile-based Gaussian splatting on the CPU -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The four rlx.gaussian_splat_* ops, called from compiled graphs through
// rlx_rt_gaussian_splat (rlx-cpu-lower-gaussian-splat emits the calls). The
// math is the contract written in the ops' descriptions
// (include/rlx/Dialect/RLX/IR/RLXGaussianSplatOps.td): every stage here is
// one function that the forward, the decomposed pair and the backward share.
//
// The per-splat projection is a template on its scalar type: with float it
// is the forward; with Dual (forward-mode derivatives with respect to the
// splat's 14 scene parameters) the backward gets the exact Jacobian of the
// same code, so the two never drift apart. Rasterization is differentiated
// by hand, back to front over each pixel's blended splats.
//
//===----------------------------------------------------------------------===//

#include "RunStatus.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

namespace {

/// A stage's failure, caught where the compiled code called the stage: every
/// fail() is on the calling thread, outside the parallel loops.
struct SplatFailure {
  const char *op;
  const char *why;
};

[[noreturn]] void fail(const char *op, const char *why) {
  throw SplatFailure{op, why};
}

//===----------------------------------------------------------------------===//
// Forward-mode derivatives
//===----------------------------------------------------------------------===//

/// The number of scene parameters of one splat: position 3, log-scale 3,
/// quaternion 4, opacity logit 1, color 3.
constexpr int kSplatParams = 14;
constexpr int kPos = 0, kScale = 3, kRot = 6, kOpacity = 10, kColor = 11;

/// A value and its derivatives with respect to one splat's parameters.
struct Dual {
  float v = 0;
  std::array<float, kSplatParams> d{};

  Dual() = default;
  Dual(float value) : v(value) {}
  static Dual seed(float value, int param) {
    Dual x(value);
    x.d[param] = 1;
    return x;
  }
};

Dual operator+(const Dual &a, const Dual &b) {
  Dual r(a.v + b.v);
  for (int i = 0; i < kSplatParams; ++i)
    r.d[i] = a.d[i] + b.d[i];
  return r;
}
Dual operator-(const Dual &a, const Dual &b) {
  Dual r(a.v - b.v);
  for (int i = 0; i < kSplatParams; ++i)
    r.d[i] = a.d[i] - b.d[i];
  return r;
}
Dual operator-(const Dual &a) { return Dual(0) - a; }
Dual operator*(const Dual &a, const Dual &b) {
  Dual r(a.v * b.v);
  for (int i = 0; i < kSplatParams; ++i)
    r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
Dual operator/(const Dual &a, const Dual &b) {
  Dual r(a.v / b.v);
  for (int i = 0; i < kSplatParams; ++i)
    r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
  return r;
}
/// `a` scaled by the derivative `slope` of a unary function at `a.v`.
Dual chain(const Dual &a, float value, float slope) {
  Dual r(value);
  for (int i = 0; i < kSplatParams; ++i)
    r.d[i] = a.d[i] * slope;
  return r;
}
Dual exp(const Dual &a) {
  float e = std::exp(a.v);
  return chain(a, e, e);
}
Dual sqrt(const Dual &a) {
  float s = std::sqrt(a.v);
  return chain(a, s, 0.5f / s);
}
float value(float x) { return x; }
float value(const Dual &x) { return x.v; }
using std::exp;
using std::sqrt;

/// The larger of the two; the derivative of the one taken.
template <typename T> T maxOf(const T &a, const T &b) {
  return value(a) >= value(b) ? a : b;
}

//===----------------------------------------------------------------------===//
// Camera and settings
//===----------------------------------------------------------------------===//

struct Settings {
  int64_t width, height, tileSize, maxSteps, maxList;
  float radiusScale, alphaCutoff, transmittanceThreshold;
  int64_t tilesX() const { return (width + tileSize - 1) / tileSize; }
  int64_t tilesY() const { return (height + tileSize - 1) / tileSize; }
  int64_t numTiles() const { return tilesX() * tilesY(); }
  /// The pixels [x0, x1) x [y0, y1) of tile `tile` (row-major tiles; the
  /// last row and column of tiles are cut at the image's edge).
  struct TileBounds {
    int64_t x0, y0, x1, y1;
  };
  TileBounds tileBounds(int64_t tile) const {
    int64_t x0 = tile % tilesX() * tileSize, y0 = tile / tilesX() * tileSize;
    return {x0, y0, std::min(x0 + tileSize, width),
            std::min(y0 + tileSize, height)};
  }
};

/// The look-at pinhole camera of the meta buffer.
struct Camera {
  float eye[3], right[3], up[3], forward[3];
  float focal, centerX, centerY, nearZ, farZ;
  float background[3];
};

float dot3(const float *a, const float *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void normalize3(float *v) {
  float n = std::sqrt(dot3(v, v));
  for (int i = 0; i < 3; ++i)
    v[i] /= n;
}

void cross3(const float *a, const float *b, float *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

Camera makeCamera(const char *op, const float *meta, const Settings &s) {
  Camera cam;
  for (int i = 0; i < 3; ++i) {
    cam.eye[i] = meta[i];
    cam.forward[i] = meta[3 + i] - meta[i];
    cam.background[i] = meta[12 + i];
  }
  normalize3(cam.forward);
  cross3(cam.forward, meta + 6, cam.right);
  normalize3(cam.right);
  cross3(cam.right, cam.forward, cam.up);
  float fovY = meta[9] * float(M_PI / 180.0);
  cam.focal = 0.5f * float(s.height) / std::tan(0.5f * fovY);
  cam.centerX = 0.5f * float(s.width);
  cam.centerY = 0.5f * float(s.height);
  cam.nearZ = meta[10];
  cam.farZ = meta[11];
  bool ok = std::isfinite(cam.focal) && cam.focal > 0;
  for (int i = 0; i < 3; ++i)
    ok = ok && std::isfinite(cam.right[i]) && std::isfinite(cam.up[i]) &&
         std::isfinite(cam.forward[i]);
  if (!ok)
    fail(op, "the camera of meta is degenerate: the target equals the "
             "position, the up vector is parallel to the view direction, or "
             "the field of view is not in (0, 180) degrees");
  return cam;
}

//===----------------------------------------------------------------------===//
// Projection of one splat
//===----------------------------------------------------------------------===//

/// The real spherical-harmonic basis of bands 1 to 3 at a unit direction.
void shBasis(float x, float y, float z, float *basis) {
  float xx = x * x, yy = y * y, zz = z * z;
  basis[0] = -0.48860251190291992f * y;
  basis[1] = 0.48860251190291992f * z;
  basis[2] = -0.48860251190291992f * x;
  basis[3] = 1.0925484305920792f * x * y;
  basis[4] = -1.0925484305920792f * y * z;
  basis[5] = 0.31539156525252005f * (2 * zz - xx - yy);
  basis[6] = -1.0925484305920792f * x * z;
  basis[7] = 0.54627421529603959f * (xx - yy);
  basis[8] = -0.59004358992664352f * y * (3 * xx - yy);
  basis[9] = 2.8906114426405538f * x * y * z;
  basis[10] = -0.45704579946446572f * y * (4 * zz - xx - yy);
  basis[11] = 0.3731763325901154f * z * (2 * zz - 3 * xx - 3 * yy);
  basis[12] = -0.45704579946446572f * x * (4 * zz - xx - yy);
  basis[13] = 1.4453057213202769f * z * (xx - yy);
  basis[14] = -0.59004358992664352f * x * (xx - 3 * yy);
}

/// The basis with derivatives (the direction depends on the position).
void shBasis(const Dual &x, const Dual &y, const Dual &z, Dual *basis) {
  Dual xx = x * x, yy = y * y, zz = z * z;
  Dual two(2), three(3), four(4);
  basis[0] = Dual(-0.48860251190291992f) * y;
  basis[1] = Dual(0.48860251190291992f) * z;
  basis[2] = Dual(-0.48860251190291992f) * x;
  basis[3] = Dual(1.0925484305920792f) * x * y;
  basis[4] = Dual(-1.0925484305920792f) * y * z;
  basis[5] = Dual(0.31539156525252005f) * (two * zz - xx - yy);
  basis[6] = Dual(-1.0925484305920792f) * x * z;
  basis[7] = Dual(0.54627421529603959f) * (xx - yy);
  basis[8] = Dual(-0.59004358992664352f) * y * (three * xx - yy);
  basis[9] = Dual(2.8906114426405538f) * x * y * z;
  basis[10] = Dual(-0.45704579946446572f) * y * (four * zz - xx - yy);
  basis[11] =
      Dual(0.3731763325901154f) * z * (two * zz - three * xx - three * yy);
  basis[12] = Dual(-0.45704579946446572f) * x * (four * zz - xx - yy);
  basis[13] = Dual(1.4453057213202769f) * z * (xx - yy);
  basis[14] = Dual(-0.59004358992664352f) * x * (xx - three * yy);
}

/// A splat on the image: centre, inverse 2D covariance (conic a, b, c),
/// opacity, color and view depth; `visible` is false for a culled splat.
template <typename T> struct Projected {
  T meanX, meanY, conicA, conicB, conicC, opacity, rgb[3];
  float depth = 0, extentX = 0, extentY = 0;
  bool visible = false;
  /// Which color channels were clamped at zero.
  bool clamped[3] = {false, false, false};
  /// The spherical-harmonic basis at the view direction (bands 1 to 3).
  float basis[15] = {};
};

/// One splat's scene parameters, read from the operands.
template <typename T> struct SplatParams {
  T p[kSplatParams];
};

/// Projects one splat (the contract's "projection" steps). `logAniso` is
/// ln(max_anisotropy) for the training forward, negative for none.
template <typename T>
Projected<T> project(const Camera &cam, const Settings &s,
                     const SplatParams<T> &in, const float *sh, int64_t shCount,
                     float logAniso) {
  Projected<T> out;
  const T *pos = in.p + kPos;
  T rel[3] = {pos[0] - T(cam.eye[0]), pos[1] - T(cam.eye[1]),
              pos[2] - T(cam.eye[2])};
  auto onAxis = [&](const float *axis) {
    return rel[0] * T(axis[0]) + rel[1] * T(axis[1]) + rel[2] * T(axis[2]);
  };
  T vx = onAxis(cam.right), vy = onAxis(cam.up), vz = onAxis(cam.forward);
  if (!(value(vz) > cam.nearZ && value(vz) < cam.farZ))
    return out;

  // Scales, bounded to the anisotropy in the training forward.
  T logScale[3] = {in.p[kScale], in.p[kScale + 1], in.p[kScale + 2]};
  if (logAniso >= 0) {
    T floor = maxOf(maxOf(logScale[0], logScale[1]), logScale[2]) - T(logAniso);
    for (T &ls : logScale)
      ls = maxOf(ls, floor);
  }
  T sigma[3] = {exp(logScale[0]), exp(logScale[1]), exp(logScale[2])};

  // Rotation of the normalized xyzw quaternion.
  const T *q = in.p + kRot;
  T qNorm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(value(qNorm) > 0))
    return out;
  T x = q[0] / qNorm, y = q[1] / qNorm, z = q[2] / qNorm, w = q[3] / qNorm;
  T one(1), two(2);
  T rot[3][3] = {{one - two * (y * y + z * z), two * (x * y - w * z),
                  two * (x * z + w * y)},
                 {two * (x * y + w * z), one - two * (x * x + z * z),
                  two * (y * z - w * x)},
                 {two * (x * z - w * y), two * (y * z + w * x),
                  one - two * (x * x + y * y)}};

  // V = (camera axes) * R * diag(sigma): the 3D covariance in view space
  // is V V^T. P = J V with the projection's Jacobian J; Sigma2D = P P^T.
  const float *axes[3] = {cam.right, cam.up, cam.forward};
  T view[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      view[i][j] = (T(axes[i][0]) * rot[0][j] + T(axes[i][1]) * rot[1][j] +
                    T(axes[i][2]) * rot[2][j]) *
                   sigma[j];
  T focal(cam.focal);
  T invZ = one / vz;
  T jac[2][3] = {{focal * invZ, T(0), -(focal * vx * invZ * invZ)},
                 {T(0), -(focal * invZ), focal * vy * invZ * invZ}};
  T proj[2][3];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      proj[i][j] = jac[i][0] * view[0][j] + jac[i][1] * view[1][j] +
                   jac[i][2] * view[2][j];
  T dilation(0.3f);
  T covA = proj[0][0] * proj[0][0] + proj[0][1] * proj[0][1] +
           proj[0][2] * proj[0][2] + dilation;
  T covB = proj[0][0] * proj[1][0] + proj[0][1] * proj[1][1] +
           proj[0][2] * proj[1][2];
  T covC = proj[1][0] * proj[1][0] + proj[1][1] * proj[1][1] +
           proj[1][2] * proj[1][2] + dilation;
  T det = covA * covC - covB * covB;
  if (!(value(det) > 0))
    return out;
  out.conicA = covC / det;
  out.conicB = -covB / det;
  out.conicC = covA / det;
  out.meanX = T(cam.centerX) + focal * vx * invZ;
  out.meanY = T(cam.centerY) - focal * vy * invZ;
  out.extentX = s.radiusScale * std::sqrt(value(covA));
  out.extentY = s.radiusScale * std::sqrt(value(covC));
  out.depth = value(vz);
  out.opacity = one / (one + exp(-in.p[kOpacity]));

  // Color: base plus the spherical harmonics at the view direction.
  T dist = sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2]);
  T dir[3] = {rel[0] / dist, rel[1] / dist, rel[2] / dist};
  T basis[15];
  shBasis(dir[0], dir[1], dir[2], basis);
  for (int k = 0; k < 15; ++k)
    out.basis[k] = value(basis[k]);
  for (int ch = 0; ch < 3; ++ch) {
    T c = in.p[kColor + ch];
    for (int64_t k = 0; k < shCount; ++k)
      c = c + basis[k] * T(sh[k * 3 + ch]);
    out.clamped[ch] = !(value(c) >= 0);
    out.rgb[ch] = out.clamped[ch] ? T(0) : c;
  }

  float checks[] = {value(out.meanX),  value(out.meanY),  value(out.conicA),
                    value(out.conicB), value(out.conicC), out.extentX,
                    out.extentY,       value(out.rgb[0]), value(out.rgb[1]),
                    value(out.rgb[2])};
  out.visible = std::all_of(std::begin(checks), std::end(checks),
                            [](float v) { return std::isfinite(v); });
  return out;
}

/// The operands of the scene.
struct Scene {
  const float *positions, *scales, *rotations, *opacities, *colors, *sh;
  int64_t n, shCount;

  SplatParams<float> params(int64_t i) const {
    SplatParams<float> p;
    for (int k = 0; k < 3; ++k) {
      p.p[kPos + k] = positions[i * 3 + k];
      p.p[kScale + k] = scales[i * 3 + k];
      p.p[kColor + k] = colors[i * 3 + k];
    }
    for (int k = 0; k < 4; ++k)
      p.p[kRot + k] = rotations[i * 4 + k];
    p.p[kOpacity] = opacities[i];
    return p;
  }
  const float *shOf(int64_t i) const { return sh + i * shCount * 3; }
};

//===----------------------------------------------------------------------===//
// Binning: the packed prepare buffer
//===----------------------------------------------------------------------===//

/// Words of one splat record: mean x, mean y, conic a, b, c, opacity, r, g,
/// b, depth.
constexpr int64_t kRecordWords = 10;
constexpr int64_t kHeaderWords = 8;
constexpr int32_t kPrepMagic = 0x31505352; // "RSP1"

int64_t packedLength(int64_t n, const Settings &s) {
  return kHeaderWords + kRecordWords * n + 2 * s.numTiles() + s.maxList;
}

void putInt(float *word, int32_t v) { std::memcpy(word, &v, sizeof(v)); }
int32_t getInt(const float *word) {
  int32_t v;
  std::memcpy(&v, word, sizeof(v));
  return v;
}

/// The binned scene as rasterization reads it: splat records, each tile's
/// [begin, end) range into the list, the list of splat indices.
struct Binned {
  const float *records;
  const float *ranges; // int32 bit patterns
  const float *list;   // int32 bit patterns
};

/// Storage for a binned scene outside a prepare buffer (render, backward).
struct BinnedStorage {
  std::vector<float> words;
  Binned view(int64_t n, int64_t tiles) const {
    return {words.data(), words.data() + kRecordWords * n,
            words.data() + kRecordWords * n + 2 * tiles};
  }
};

/// Writes a splat record.
void putRecord(float *rec, const Projected<float> &p) {
  float values[kRecordWords] = {p.meanX,  p.meanY,   p.conicA, p.conicB,
                                p.conicC, p.opacity, p.rgb[0], p.rgb[1],
                                p.rgb[2], p.depth};
  std::copy(values, values + kRecordWords, rec);
}

/// Bins the projected splats into tiles, sorts each tile's list by depth
/// (then splat index) and keeps the first `maxList` entries of the list in
/// (tile, depth, index) order. Writes the records, ranges and list into
/// `records` / `ranges` / `list`; returns the number of dropped entries.
int64_t binSplats(const std::vector<Projected<float>> &splats,
                  const Settings &s, float *records, float *ranges, float *list,
                  int64_t listCapacity) {
  int64_t tilesX = s.tilesX(), tilesY = s.tilesY();
  struct Entry {
    int64_t tile;
    float depth;
    int32_t splat;
  };
  std::vector<Entry> entries;
  for (size_t i = 0; i < splats.size(); ++i) {
    const Projected<float> &p = splats[i];
    float *rec = records + kRecordWords * i;
    if (!p.visible) {
      std::fill(rec, rec + kRecordWords, 0.0f);
      continue;
    }
    putRecord(rec, p);
    // Tiles whose index range the splat's extent covers, clamped to the
    // grid; computed in double so huge extents cannot overflow.
    double ts = double(s.tileSize);
    double x0 = std::floor((double(p.meanX) - p.extentX) / ts);
    double x1 = std::floor((double(p.meanX) + p.extentX) / ts);
    double y0 = std::floor((double(p.meanY) - p.extentY) / ts);
    double y1 = std::floor((double(p.meanY) + p.extentY) / ts);
    int64_t tx0 = int64_t(std::max(0.0, x0));
    int64_t ty0 = int64_t(std::max(0.0, y0));
    int64_t tx1 = int64_t(std::min(double(tilesX - 1), x1));
    int64_t ty1 = int64_t(std::min(double(tilesY - 1), y1));
    for (int64_t ty = ty0; ty <= ty1; ++ty)
      for (int64_t tx = tx0; tx <= tx1; ++tx)
        entries.push_back({ty * tilesX + tx, p.depth, int32_t(i)});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.tile != b.tile)
      return a.tile < b.tile;
    if (a.depth != b.depth)
      return a.depth < b.depth;
    return a.splat < b.splat;
  });
  int64_t kept = std::min<int64_t>(entries.size(), listCapacity);
  int64_t tiles = tilesX * tilesY;
  for (int64_t t = 0; t < tiles; ++t) {
    putInt(ranges + 2 * t, 0);
    putInt(ranges + 2 * t + 1, 0);
  }
  // Each tile's range over the kept entries (entries are grouped by tile).
  for (int64_t e = 0; e < kept;) {
    int64_t tile = entries[e].tile, begin = e;
    while (e < kept && entries[e].tile == tile)
      putInt(list + e, entries[e].splat), ++e;
    putInt(ranges + 2 * tile, int32_t(begin));
    putInt(ranges + 2 * tile + 1, int32_t(e));
  }
  for (int64_t e = kept; e < listCapacity; ++e)
    putInt(list + e, -1);
  return int64_t(entries.size()) - kept;
}

std::vector<Projected<float>> projectAll(const Camera &cam, const Settings &s,
                                         const Scene &scene, float logAniso) {
  std::vector<Projected<float>> splats(scene.n);
  for (int64_t i = 0; i < scene.n; ++i)
    splats[i] = project(cam, s, scene.params(i), scene.shOf(i), scene.shCount,
                        logAniso);
  return splats;
}

/// Bins into fresh storage, sized by the entries (at most max_list_entries).
Binned binToStorage(const std::vector<Projected<float>> &splats,
                    const Settings &s, BinnedStorage &storage) {
  int64_t n = splats.size(), tiles = s.numTiles();
  // First the number of entries (all dropped at capacity 0), to size the
  // list.
  std::vector<float> records(kRecordWords * n), ranges(2 * tiles);
  int64_t entries =
      binSplats(splats, s, records.data(), ranges.data(), nullptr, 0);
  int64_t capacity = std::min(entries, s.maxList);
  storage.words.resize(kRecordWords * n + 2 * tiles + capacity);
  binSplats(splats, s, storage.words.data(),
            storage.words.data() + kRecordWords * n,
            storage.words.data() + kRecordWords * n + 2 * tiles, capacity);
  return storage.view(n, tiles);
}

//===----------------------------------------------------------------------===//
// Rasterization
//===----------------------------------------------------------------------===//

/// One splat blended into a pixel, as the backward needs it.
struct Blended {
  int32_t splat;
  float alpha, gauss, transmittance, dx, dy;
  bool saturated; // alpha was clamped to 0.99
};

/// Blends the tile's list front to back into the pixel with centre (px,
/// py); returns the final transmittance and adds the blended color to
/// `rgb`. `blended` (optional) receives each splat that contributed.
float blendPixel(const Binned &b, const Settings &s, int64_t tile, float px,
                 float py, float *rgb, std::vector<Blended> *blended) {
  int32_t begin = getInt(b.ranges + 2 * tile);
  int32_t end = getInt(b.ranges + 2 * tile + 1);
  int64_t steps = std::min<int64_t>(end - begin, s.maxSteps);
  float transmittance = 1.0f;
  // -ln(alpha_cutoff) plus a margin far above float32 rounding, so the
  // shortcut never changes a decision.
  const float skipPower = s.alphaCutoff > 0
                              ? -std::log(s.alphaCutoff) + 1e-3f
                              : std::numeric_limits<float>::infinity();
  for (int64_t e = begin; e < begin + steps; ++e) {
    int32_t splat = getInt(b.list + e);
    const float *rec = b.records + kRecordWords * splat;
    float dx = px - rec[0], dy = py - rec[1];
    float power =
        0.5f * (rec[2] * dx * dx + rec[4] * dy * dy) + rec[3] * dx * dy;
    // Past `skipPower`, alpha is below alpha_cutoff whatever the opacity
    // (at most 1): skipped without evaluating exp.
    if (power < 0 || power > skipPower)
      continue;
    float gauss = std::exp(-power);
    float alpha = rec[5] * gauss;
    bool saturated = alpha > 0.99f;
    if (saturated)
      alpha = 0.99f;
    if (alpha < s.alphaCutoff)
      continue;
    if (blended)
      blended->push_back(
          {splat, alpha, gauss, transmittance, dx, dy, saturated});
    float weight = alpha * transmittance;
    for (int ch = 0; ch < 3; ++ch)
      rgb[ch] += weight * rec[6 + ch];
    transmittance *= 1.0f - alpha;
    if (transmittance < s.transmittanceThreshold)
      break;
  }
  return transmittance;
}

/// Renders every pixel, tile by tile (tiles are independent).
void rasterize(const Binned &b, const Settings &s, const float *background,
               float *out) {
  int64_t tiles = s.numTiles();
#pragma omp parallel for schedule(dynamic)
  for (int64_t tile = 0; tile < tiles; ++tile) {
    auto [x0, y0, x1, y1] = s.tileBounds(tile);
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        float rgb[3] = {0, 0, 0};
        float t = blendPixel(b, s, tile, float(x) + 0.5f, float(y) + 0.5f, rgb,
                             nullptr);
        float *pixel = out + 4 * (y * s.width + x);
        for (int ch = 0; ch < 3; ++ch)
          pixel[ch] = rgb[ch] + t * background[ch];
        pixel[3] = 1.0f - t;
      }
  }
}

/// Checks the prepare buffer's header against the rasterize op's settings
/// and returns its splat count.
int64_t readPrepHeader(const float *prep, int64_t length, const Settings &s) {
  const char *op = "gaussian_splat_rasterize";
  if (length < kHeaderWords || getInt(prep) != kPrepMagic)
    fail(op, "prep is not a gaussian_splat_prepare buffer (bad header)");
  int64_t n = getInt(prep + 1);
  if (getInt(prep + 2) != s.tilesX() || getInt(prep + 3) != s.tilesY() ||
      getInt(prep + 6) != s.width || getInt(prep + 7) != s.height)
    fail(op, "prep was prepared for another width, height or tile_size");
  if (n < 0 || packedLength(n, s) != length)
    fail(op, "prep's length does not match its splat count and "
             "max_list_entries");
  const float *ranges = prep + kHeaderWords + kRecordWords * n;
  const float *list = ranges + 2 * s.numTiles();
  int64_t kept = getInt(prep + 4);
  bool ok = kept >= 0 && kept <= s.maxList;
  for (int64_t t = 0; ok && t < s.numTiles(); ++t) {
    int64_t begin = getInt(ranges + 2 * t), end = getInt(ranges + 2 * t + 1);
    ok = 0 <= begin && begin <= end && end <= kept;
  }
  for (int64_t e = 0; ok && e < kept; ++e)
    ok = getInt(list + e) >= 0 && getInt(list + e) < n;
  if (!ok)
    fail(op, "prep's tile ranges or list are out of bounds");
  return n;
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

/// Gradients with respect to one projected splat, accumulated in double
/// over the pixels.
struct ProjectedGrad {
  double meanX = 0, meanY = 0, conicA = 0, conicB = 0, conicC = 0, opacity = 0,
         rgb[3] = {0, 0, 0};
};

void renderBackward(const Camera &cam, const Settings &s, const Scene &scene,
                    const float *dLoss, float lossGradClip, int64_t shBand,
                    float maxAnisotropy, float *grads) {
  int64_t n = scene.n;
  float logAniso = std::log(maxAnisotropy);
  std::vector<Projected<float>> splats = projectAll(cam, s, scene, logAniso);
  BinnedStorage storage;
  Binned b = binToStorage(splats, s, storage);

  // Pixel gradients, summed per splat over the tiles in order (serial: the
  // result does not depend on a thread count).
  int64_t tiles = s.numTiles();
  std::vector<ProjectedGrad> grad(n);
  std::vector<Blended> blended;
  for (int64_t tile = 0; tile < tiles; ++tile) {
    auto [x0, y0, x1, y1] = s.tileBounds(tile);
    for (int64_t y = y0; y < y1; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        const float *dl = dLoss + 4 * (y * s.width + x);
        float g[3];
        for (int ch = 0; ch < 3; ++ch)
          g[ch] = std::clamp(dl[ch], -lossGradClip, lossGradClip);
        if (g[0] == 0 && g[1] == 0 && g[2] == 0)
          continue;
        float rgb[3] = {0, 0, 0};
        blended.clear();
        blendPixel(b, s, tile, float(x) + 0.5f, float(y) + 0.5f, rgb, &blended);
        // Back to front: `behind` is the color the pixel shows behind the
        // current splat (what the later splats and the background add,
        // divided by the transmittance just behind it).
        float behind[3] = {cam.background[0], cam.background[1],
                           cam.background[2]};
        for (auto it = blended.rbegin(); it != blended.rend(); ++it) {
          const float *rec = b.records + kRecordWords * it->splat;
          ProjectedGrad &pg = grad[it->splat];
          float weight = it->alpha * it->transmittance;
          double dAlpha = 0;
          for (int ch = 0; ch < 3; ++ch) {
            pg.rgb[ch] += double(weight) * g[ch];
            dAlpha +=
                double(it->transmittance) * (rec[6 + ch] - behind[ch]) * g[ch];
            behind[ch] = it->alpha * rec[6 + ch] + (1 - it->alpha) * behind[ch];
          }
          if (it->saturated)
            continue;
          pg.opacity += dAlpha * it->gauss;
          // alpha = opacity * exp(-power): dpower = -alpha * dalpha.
          double dPower = -dAlpha * it->alpha;
          double dx = it->dx, dy = it->dy;
          pg.conicA += dPower * 0.5 * dx * dx;
          pg.conicB += dPower * dx * dy;
          pg.conicC += dPower * 0.5 * dy * dy;
          // dx = px - meanX.
          pg.meanX -= dPower * (rec[2] * dx + rec[3] * dy);
          pg.meanY -= dPower * (rec[3] * dx + rec[4] * dy);
        }
      }
  }

  // Chain through the projection with its exact Jacobian (Dual).
  float *gPos = grads, *gScale = grads + 3 * n, *gRot = grads + 6 * n,
        *gOpacity = grads + 10 * n, *gColor = grads + 11 * n,
        *gSh = grads + 14 * n;
  std::fill(grads, grads + 14 * n + n * scene.shCount * 3, 0.0f);
  int64_t shDifferentiated =
      std::min<int64_t>(scene.shCount, (shBand + 1) * (shBand + 1) - 1);
  for (int64_t i = 0; i < n; ++i) {
    if (!splats[i].visible)
      continue;
    SplatParams<float> p = scene.params(i);
    SplatParams<Dual> dp;
    for (int k = 0; k < kSplatParams; ++k)
      dp.p[k] = Dual::seed(p.p[k], k);
    Projected<Dual> d =
        project(cam, s, dp, scene.shOf(i), scene.shCount, logAniso);
    const ProjectedGrad &pg = grad[i];
    std::array<double, kSplatParams> total{};
    auto add = [&](const Dual &out, double upstream) {
      for (int k = 0; k < kSplatParams; ++k)
        total[k] += upstream * out.d[k];
    };
    add(d.meanX, pg.meanX);
    add(d.meanY, pg.meanY);
    add(d.conicA, pg.conicA);
    add(d.conicB, pg.conicB);
    add(d.conicC, pg.conicC);
    add(d.opacity, pg.opacity);
    for (int ch = 0; ch < 3; ++ch)
      add(d.rgb[ch], pg.rgb[ch]);
    for (int k = 0; k < 3; ++k) {
      gPos[i * 3 + k] = float(total[kPos + k]);
      gScale[i * 3 + k] = float(total[kScale + k]);
      gColor[i * 3 + k] = float(total[kColor + k]);
    }
    for (int k = 0; k < 4; ++k)
      gRot[i * 4 + k] = float(total[kRot + k]);
    gOpacity[i] = float(total[kOpacity]);
    // rgb = color + sum_k basis_k * sh_k: the coefficients' gradient.
    for (int64_t k = 0; k < shDifferentiated; ++k)
      for (int ch = 0; ch < 3; ++ch)
        if (!d.clamped[ch])
          gSh[(i * scene.shCount + k) * 3 + ch] =
              float(pg.rgb[ch] * splats[i].basis[k]);
  }
}

/// The stages of rlx_rt_gaussian_splat, as rlx-cpu-lower-gaussian-splat
/// numbers them.
enum RlxSplatStage : int64_t {
  RLX_SPLAT_RENDER = 0,
  RLX_SPLAT_PREPARE = 1,
  RLX_SPLAT_RASTERIZE = 2,
  RLX_SPLAT_BACKWARD = 3,
};

/// Runs one stage. Pointers are the operands' and result's data (0 where
/// the stage has none): the seven scene operands (for rasterize only
/// `meta`), `extra` (rasterize: prep; backward: d_loss_rgba) and `out`.
/// `n` is the splat count, `shCount` the coefficients per splat (C),
/// `prepLength` the length of the prep buffer (prepare's result or
/// rasterize's operand).
void runStage(int64_t stage, int64_t positions, int64_t scales,
              int64_t rotations, int64_t opacities, int64_t colors, int64_t sh,
              int64_t meta, int64_t extra, int64_t out, int64_t n,
              int64_t shCount, int64_t prepLength, int64_t width,
              int64_t height, int64_t tileSize, int64_t maxSteps,
              int64_t maxList, float radiusScale, float alphaCutoff,
              float transmittanceThreshold, float lossGradClip, int64_t shBand,
              float maxAnisotropy) {
  auto ptr = [](int64_t p) { return reinterpret_cast<float *>(p); };
  Settings s{width,   height,      tileSize,    maxSteps,
             maxList, radiusScale, alphaCutoff, transmittanceThreshold};
  Scene scene{
      ptr(positions), ptr(scales), ptr(rotations), ptr(opacities), ptr(colors),
      ptr(sh),        n,           shCount};
  const float *metaData = ptr(meta);
  float *outData = ptr(out);
  switch (stage) {
  case RLX_SPLAT_RENDER: {
    Camera cam = makeCamera("gaussian_splat_render", metaData, s);
    std::vector<Projected<float>> splats = projectAll(cam, s, scene, -1);
    BinnedStorage storage;
    rasterize(binToStorage(splats, s, storage), s, cam.background, outData);
    return;
  }
  case RLX_SPLAT_PREPARE: {
    Camera cam = makeCamera("gaussian_splat_prepare", metaData, s);
    if (prepLength != packedLength(n, s))
      fail("gaussian_splat_prepare", "the result length does not match the "
                                     "packing (a compiler defect)");
    std::vector<Projected<float>> splats = projectAll(cam, s, scene, -1);
    int64_t tiles = s.numTiles();
    float *records = outData + kHeaderWords;
    float *ranges = records + kRecordWords * n;
    float *list = ranges + 2 * tiles;
    int64_t dropped = binSplats(splats, s, records, ranges, list, s.maxList);
    int64_t kept = 0;
    for (int64_t t = 0; t < tiles; ++t)
      kept = std::max<int64_t>(kept, getInt(ranges + 2 * t + 1));
    int32_t header[kHeaderWords] = {
        kPrepMagic,
        int32_t(n),
        int32_t(s.tilesX()),
        int32_t(s.tilesY()),
        int32_t(kept),
        int32_t(
            std::min<int64_t>(dropped, std::numeric_limits<int32_t>::max())),
        int32_t(width),
        int32_t(height)};
    for (int64_t w = 0; w < kHeaderWords; ++w)
      putInt(outData + w, header[w]);
    return;
  }
  case RLX_SPLAT_RASTERIZE: {
    const float *prep = ptr(extra);
    int64_t prepN = readPrepHeader(prep, prepLength, s);
    int64_t tiles = s.numTiles();
    Binned b{prep + kHeaderWords, prep + kHeaderWords + kRecordWords * prepN,
             prep + kHeaderWords + kRecordWords * prepN + 2 * tiles};
    rasterize(b, s, metaData + 12, outData);
    return;
  }
  case RLX_SPLAT_BACKWARD: {
    Camera cam = makeCamera("gaussian_splat_render_backward", metaData, s);
    renderBackward(cam, s, scene, ptr(extra), lossGradClip, shBand,
                   maxAnisotropy, outData);
    return;
  }
  default:
    fail("gaussian_splat", "unknown stage (a compiler defect)");
  }
}

} // namespace

extern "C" {

/// Runs one stage (runStage). A failure ends the run with its message
/// (RunStatus.cpp); no exception may leave for the compiled code.
__attribute__((visibility("default"))) void rlx_rt_gaussian_splat(
    int64_t stage, int64_t positions, int64_t scales, int64_t rotations,
    int64_t opacities, int64_t colors, int64_t sh, int64_t meta, int64_t extra,
    int64_t out, int64_t n, int64_t shCount, int64_t prepLength, int64_t width,
    int64_t height, int64_t tileSize, int64_t maxSteps, int64_t maxList,
    float radiusScale, float alphaCutoff, float transmittanceThreshold,
    float lossGradClip, int64_t shBand, float maxAnisotropy) {
  try {
    runStage(stage, positions, scales, rotations, opacities, colors, sh, meta,
             extra, out, n, shCount, prepLength, width, height, tileSize,
             maxSteps, maxList, radiusScale, alphaCutoff,
             transmittanceThreshold, lossGradClip, shBand, maxAnisotropy);
  } catch (const SplatFailure &failure) {
    char message[512];
    std::snprintf(message, sizeof(message), "rlx.%s: %s", failure.op,
                  failure.why);
    rlxrt::cpu::recordRunFailure(message);
  } catch (const std::bad_alloc &) {
    rlxrt::cpu::recordRunFailure("rlx.gaussian_splat: out of memory",
                                 /*outOfMemory=*/true);
  }
}

} // extern "C"
