//===- DnnlConvolution.cpp - f32 convolutions through oneDNN --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx-cpu-lower-convolutions` replaces f32 rlx.conv, rlx.conv2d_backward_input
// and rlx.conv2d_backward_weight by calls to these functions, which run
// oneDNN's direct convolution primitives (forward, backward data, backward
// weights) on the graph's NCHW buffers.
//
// oneDNN's fast kernels work on blocked layouts (nChw16c and blocked
// weights on AVX-512): a primitive created with `format_tag::any` gets them,
// and the NCHW operands are reordered into them and the result back, as
// PyTorch's oneDNN path does for NCHW tensors. Where the blocking pads the
// channels (3 input channels become 16) or the images are small, the
// primitive on the graph's own NCHW layout (oneDNN's GEMM-based kernels)
// is faster; the first call of each geometry times both, and a later call
// times them again before the faster is kept (choose). The primitive, its
// reorders and the blocked buffers are kept per geometry (sizes and strides of
// the three operands, stride, padding, dilation, groups) in a per-thread cache.
// Weights are reordered on every call: a parameter buffer keeps its address
// while a training step or a caller rewrites its values.
//
// oneDNN runs its loops on GNU OpenMP (libgomp), compiled graphs on LLVM
// OpenMP: two pools, both sized by OMP_NUM_THREADS. Each spins briefly after
// its regions (the LLVM pool 1 ms, ThreadSettings.cpp; libgomp its default
// GOMP_SPINCOUNT); alternating convolutions and loops measured no
// difference with other spin settings (docs/rlx-run.md), so nothing is set
// here.
//
//===----------------------------------------------------------------------===//

#include "RunStatus.h"

#include "rlx/Runtime/MemRefDescriptor.h"

#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

using rlxrt::MemRefDescriptor;

namespace {

/// Which of the three convolution primitives a call runs.
enum class ConvKind : int64_t {
  Forward = 0,
  BackwardData = 1,
  BackwardWeights = 2
};

/// The convolution's geometry, as the forward op states it.
struct ConvGeometry {
  int64_t stride[2], padding[2], dilation[2], groups;
};

/// A forward convolution's three tensors, whichever of them a primitive
/// reads or writes: src `[N, C_in, H, W]`, weights `[C_out, C_in/g, kH,
/// kW]`, dst `[N, C_out, H_out, W_out]`.
struct ConvTensors {
  MemRefDescriptor<float, 4> *src, *weights, *dst;
};

dnnl::memory::dims dimsOf(const MemRefDescriptor<float, 4> &m) {
  return {m.sizes[0], m.sizes[1], m.sizes[2], m.sizes[3]};
}

dnnl::memory::dims stridesOf(const MemRefDescriptor<float, 4> &m) {
  return {m.strides[0], m.strides[1], m.strides[2], m.strides[3]};
}

/// The weight buffer as oneDNN's grouped `[G, C_out/G, C_in/G, kH, kW]`
/// (a view: the group dim steps over C_out/G output channels), or the plain
/// 4-D weights without groups.
dnnl::memory::desc weightsDesc(const MemRefDescriptor<float, 4> &w,
                               int64_t groups) {
  using dt = dnnl::memory::data_type;
  if (groups == 1)
    return dnnl::memory::desc(dimsOf(w), dt::f32, stridesOf(w));
  return dnnl::memory::desc(
      {groups, w.sizes[0] / groups, w.sizes[1], w.sizes[2], w.sizes[3]},
      dt::f32,
      {w.strides[0] * (w.sizes[0] / groups), w.strides[0], w.strides[1],
       w.strides[2], w.strides[3]});
}

/// The same dims with the layout left to the primitive.
dnnl::memory::desc anyLayout(const dnnl::memory::desc &desc) {
  return dnnl::memory::desc(desc.dims(), dnnl::memory::data_type::f32,
                            dnnl::memory::format_tag::any);
}

/// One operand of a cached primitive: the graph's layout, the primitive's,
/// and (when they differ) the reorder between them and the buffer in the
/// primitive's layout.
struct Operand {
  dnnl::memory::desc user, inner;
  dnnl::reorder reorder;
  dnnl::memory buffer;

  void prepare(const dnnl::engine &engine, bool isOutput) {
    if (inner == user)
      return;
    buffer = dnnl::memory(inner, engine);
    reorder = isOutput ? dnnl::reorder(buffer, dnnl::memory(user, engine))
                       : dnnl::reorder(dnnl::memory(user, engine), buffer);
  }

  /// The memory the primitive reads or writes for the user's `data`,
  /// reordering an input in first.
  dnnl::memory bind(const dnnl::engine &engine, dnnl::stream &stream,
                    float *data, bool isOutput) {
    dnnl::memory userMemory(user, engine, data);
    if (inner == user)
      return userMemory;
    if (!isOutput)
      reorder.execute(stream, userMemory, buffer);
    return buffer;
  }

  void writeBack(const dnnl::engine &engine, dnnl::stream &stream,
                 float *data) {
    if (inner == user)
      return;
    dnnl::memory userMemory(user, engine, data);
    reorder.execute(stream, buffer, userMemory);
  }
};

/// The layouts a primitive works in: the ones oneDNN picks (blocked), with
/// reorders from and to the graph's, or the graph's own.
enum class Layout { Blocked, Plain };

/// A primitive for one geometry, with its three operands in src, weights,
/// dst order.
struct CachedConvolution {
  dnnl::primitive primitive;
  Operand operands[3];
  /// The argument ids of src, weights and dst for this primitive kind.
  int args[3];
  /// Which operand the primitive writes.
  int output;
  /// oneDNN's name of the kernel it runs (`jit:avx512_core`, `ref:any`).
  std::string implementation;

  /// Runs the primitive on the buffers `data` (src, weights, dst).
  void run(const dnnl::engine &engine, dnnl::stream &stream,
           float *const (&data)[3]) {
    std::unordered_map<int, dnnl::memory> bound;
    for (int i = 0; i < 3; ++i)
      bound[args[i]] = operands[i].bind(engine, stream, data[i], i == output);
    primitive.execute(stream, bound);
    operands[output].writeBack(engine, stream, data[output]);
    stream.wait();
  }
};

std::unique_ptr<CachedConvolution>
createConvolution(const dnnl::engine &engine, ConvKind kind,
                  const ConvTensors &t, const ConvGeometry &g, Layout layout) {
  using namespace dnnl;
  memory::desc src(dimsOf(*t.src), memory::data_type::f32, stridesOf(*t.src));
  memory::desc dst(dimsOf(*t.dst), memory::data_type::f32, stridesOf(*t.dst));
  memory::desc weights = weightsDesc(*t.weights, g.groups);
  memory::dims strides = {g.stride[0], g.stride[1]};
  // oneDNN counts dilation from 0 (no gap between taps).
  memory::dims dilates = {g.dilation[0] - 1, g.dilation[1] - 1};
  memory::dims padL = {g.padding[0], g.padding[1]};
  memory::dims padR = padL;
  bool blocked = layout == Layout::Blocked;
  memory::desc srcAny = blocked ? anyLayout(src) : src,
               weightsAny = blocked ? anyLayout(weights) : weights,
               dstAny = blocked ? anyLayout(dst) : dst;

  auto cached = std::make_unique<CachedConvolution>();
  // Backward primitives take the forward one as a hint of its layouts.
  convolution_forward::primitive_desc forward(
      convolution_forward::desc(
          prop_kind::forward_training, algorithm::convolution_direct, srcAny,
          weightsAny, dstAny, strides, dilates, padL, padR),
      engine);
  memory::desc inner[3];
  switch (kind) {
  case ConvKind::Forward:
    cached->primitive = convolution_forward(forward);
    cached->implementation = forward.impl_info_str();
    inner[0] = forward.src_desc();
    inner[1] = forward.weights_desc();
    inner[2] = forward.dst_desc();
    cached->args[0] = DNNL_ARG_SRC;
    cached->args[1] = DNNL_ARG_WEIGHTS;
    cached->args[2] = DNNL_ARG_DST;
    cached->output = 2;
    break;
  case ConvKind::BackwardData: {
    convolution_backward_data::primitive_desc pd(
        convolution_backward_data::desc(algorithm::convolution_direct, srcAny,
                                        weightsAny, dstAny, strides, dilates,
                                        padL, padR),
        engine, forward);
    cached->primitive = convolution_backward_data(pd);
    cached->implementation = pd.impl_info_str();
    inner[0] = pd.diff_src_desc();
    inner[1] = pd.weights_desc();
    inner[2] = pd.diff_dst_desc();
    cached->args[0] = DNNL_ARG_DIFF_SRC;
    cached->args[1] = DNNL_ARG_WEIGHTS;
    cached->args[2] = DNNL_ARG_DIFF_DST;
    cached->output = 0;
    break;
  }
  case ConvKind::BackwardWeights: {
    convolution_backward_weights::primitive_desc pd(
        convolution_backward_weights::desc(algorithm::convolution_direct,
                                           srcAny, weightsAny, dstAny, strides,
                                           dilates, padL, padR),
        engine, forward);
    cached->primitive = convolution_backward_weights(pd);
    cached->implementation = pd.impl_info_str();
    inner[0] = pd.src_desc();
    inner[1] = pd.diff_weights_desc();
    inner[2] = pd.diff_dst_desc();
    cached->args[0] = DNNL_ARG_SRC;
    cached->args[1] = DNNL_ARG_DIFF_WEIGHTS;
    cached->args[2] = DNNL_ARG_DIFF_DST;
    cached->output = 1;
    break;
  }
  }
  memory::desc user[3] = {src, weights, dst};
  for (int i = 0; i < 3; ++i) {
    cached->operands[i].user = user[i];
    cached->operands[i].inner = inner[i];
    cached->operands[i].prepare(engine, i == cached->output);
  }
  return cached;
}

/// The primitives of one geometry. While the choice between the blocked
/// and the plain layout is open, both candidates are kept with the fastest
/// run each has had; once it is made, only the chosen one.
struct ConvChoice {
  /// Blocked, plain (either may be null: not available, or dropped).
  std::unique_ptr<CachedConvolution> candidates[2];
  double best[2] = {INFINITY, INFINITY};
  /// The candidate calls run.
  int chosen = 0;
  int calls = 0;

  /// Whether one candidate is left: the choice is made.
  bool settled() const { return !candidates[0] || !candidates[1]; }
};

/// The per-thread oneDNN engine, stream and primitive cache. Per thread,
/// so graphs run concurrently on several threads never share a primitive's
/// blocked buffers.
struct DnnlContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<std::vector<int64_t>, ConvChoice> cache;
};

DnnlContext &context() {
  thread_local DnnlContext ctx;
  return ctx;
}

/// The cache key: kind, the sizes and strides of the three operands, and
/// the geometry.
std::vector<int64_t> keyOf(ConvKind kind, const ConvTensors &t,
                           const ConvGeometry &g) {
  std::vector<int64_t> key = {static_cast<int64_t>(kind)};
  for (const MemRefDescriptor<float, 4> *m : {t.src, t.weights, t.dst}) {
    key.insert(key.end(), m->sizes, m->sizes + 4);
    key.insert(key.end(), m->strides, m->strides + 4);
  }
  key.insert(key.end(), {g.stride[0], g.stride[1], g.padding[0], g.padding[1],
                         g.dilation[0], g.dilation[1], g.groups});
  return key;
}

int64_t elementCount(const MemRefDescriptor<float, 4> &m) {
  return m.sizes[0] * m.sizes[1] * m.sizes[2] * m.sizes[3];
}

/// Zeroes a (possibly strided) 4-D buffer.
void zero(MemRefDescriptor<float, 4> &m) {
  for (int64_t a = 0; a < m.sizes[0]; ++a)
    for (int64_t b = 0; b < m.sizes[1]; ++b)
      for (int64_t c = 0; c < m.sizes[2]; ++c)
        for (int64_t d = 0; d < m.sizes[3]; ++d)
          m.data()[a * m.strides[0] + b * m.strides[1] + c * m.strides[2] +
                   d * m.strides[3]] = 0.0f;
}

/// The layout RLX_DNNL_CONV_LAYOUT asks for (`blocked`, `plain`), or none
/// (`auto`, unset): measure.
std::optional<Layout> forcedLayout() {
  const char *value = std::getenv("RLX_DNNL_CONV_LAYOUT");
  if (value && std::strcmp(value, "blocked") == 0)
    return Layout::Blocked;
  if (value && std::strcmp(value, "plain") == 0)
    return Layout::Plain;
  return std::nullopt;
}

/// The call of a geometry that takes the second look at both candidates:
/// the first call's timing can be disturbed for its whole duration (another
/// process's burst, a cold page cache), the second look comes later, in
/// the graph's steady state.
constexpr int kSecondLookCall = 3;

/// Creates the candidates of a geometry: the blocked primitive, and the
/// plain one where oneDNN has more than its reference kernel for it. With
/// one candidate (or a layout forced), the choice is settled.
void createCandidates(DnnlContext &ctx, ConvChoice &choice, ConvKind kind,
                      const ConvTensors &t, const ConvGeometry &g) {
  static const std::optional<Layout> forced = forcedLayout();
  if (forced) {
    choice.chosen = *forced == Layout::Blocked ? 0 : 1;
    choice.candidates[choice.chosen] =
        createConvolution(ctx.engine, kind, t, g, *forced);
    return;
  }
  choice.candidates[0] =
      createConvolution(ctx.engine, kind, t, g, Layout::Blocked);
  try {
    choice.candidates[1] =
        createConvolution(ctx.engine, kind, t, g, Layout::Plain);
  } catch (const dnnl::error &) {
  }
  if (choice.candidates[1] &&
      choice.candidates[1]->implementation.find("ref") != std::string::npos)
    choice.candidates[1].reset();
}

/// Times both candidates on the call's own buffers, alternately (a warm-up
/// round, then at least 2 timed rounds, up to 6 while this look has taken
/// less than 0.2 s), each keeping its fastest run over every look so far,
/// and chooses: the blocked primitive (PyTorch's) unless the plain one is
/// clearly faster, as timings on a busy machine are noisy. The blocked
/// kernels are the fast ones in general, but pad the channels to a
/// multiple of 16 (3 input channels of a stem convolution become 16, which
/// makes its input gradient 2x slower than the plain GEMM-based kernel),
/// and on small images (7x7 and 14x14 ResNet layers) the reorders cost more
/// than they save.
void look(DnnlContext &ctx, ConvChoice &choice, float *const (&data)[3]) {
  auto started = std::chrono::steady_clock::now();
  auto secondsSince = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  for (int round = 0; round < 3 || (round < 7 && secondsSince(started) < 0.2);
       ++round)
    for (int i = 0; i < 2; ++i) {
      auto start = std::chrono::steady_clock::now();
      choice.candidates[i]->run(ctx.engine, ctx.stream, data);
      if (round > 0)
        choice.best[i] = std::min(choice.best[i], secondsSince(start));
    }
  choice.chosen = choice.best[1] < 0.9 * choice.best[0] ? 1 : 0;
}

/// Whether RLX_DNNL_CONV_VERBOSE asks for a line per layout choice.
bool verboseChoices() {
  const char *value = std::getenv("RLX_DNNL_CONV_VERBOSE");
  return value && *value && std::strcmp(value, "0") != 0;
}

/// The primitive this call of a geometry runs. The layout is chosen on the
/// geometry's first call and looked at again on call kSecondLookCall, after
/// which the other candidate is dropped; per thread, like the cache.
CachedConvolution &choose(DnnlContext &ctx, ConvChoice &choice, ConvKind kind,
                          const ConvTensors &t, const ConvGeometry &g,
                          float *const (&data)[3]) {
  if (choice.calls++ == 0)
    createCandidates(ctx, choice, kind, t, g);
  if (choice.settled())
    return *choice.candidates[choice.chosen];
  if (choice.calls == 1 || choice.calls == kSecondLookCall)
    look(ctx, choice, data);
  if (choice.calls == kSecondLookCall) {
    static const bool verbose = verboseChoices();
    if (verbose) {
      static const char *const kinds[] = {"forward", "backward data",
                                          "backward weights"};
      std::fprintf(
          stderr,
          "rlx: oneDNN convolution (%s) src %lldx%lldx%lldx%lld, "
          "weights %lldx%lldx%lldx%lld: blocked %.3f ms, plain %.3f "
          "ms: %s\n",
          kinds[static_cast<int>(kind)], (long long)t.src->sizes[0],
          (long long)t.src->sizes[1], (long long)t.src->sizes[2],
          (long long)t.src->sizes[3], (long long)t.weights->sizes[0],
          (long long)t.weights->sizes[1], (long long)t.weights->sizes[2],
          (long long)t.weights->sizes[3], choice.best[0] * 1e3,
          choice.best[1] * 1e3, choice.chosen == 0 ? "blocked" : "plain");
    }
    choice.candidates[1 - choice.chosen].reset();
  }
  return *choice.candidates[choice.chosen];
}

void convolve(ConvKind kind, const ConvTensors &t, const ConvGeometry &g) {
  MemRefDescriptor<float, 4> *output = kind == ConvKind::Forward ? t.dst
                                       : kind == ConvKind::BackwardData
                                           ? t.src
                                           : t.weights;
  if (elementCount(*output) == 0)
    return;
  // An empty sum (no batch, or no input channel) writes zeros.
  if (elementCount(*t.src) == 0 || elementCount(*t.weights) == 0 ||
      elementCount(*t.dst) == 0) {
    zero(*output);
    return;
  }
  try {
    DnnlContext &ctx = context();
    float *const data[3] = {t.src->data(), t.weights->data(), t.dst->data()};
    choose(ctx, ctx.cache[keyOf(kind, t, g)], kind, t, g, data)
        .run(ctx.engine, ctx.stream, data);
    return;
  } catch (const dnnl::error &error) {
    static const char *const names[] = {"forward", "backward data",
                                        "backward weights"};
    // The run ends with the error (RunStatus.cpp); formatted without
    // allocating, as the error may be the lack of memory.
    char message[512];
    std::snprintf(message, sizeof(message),
                  "oneDNN convolution (%s) failed: %s",
                  names[static_cast<int>(kind)], error.what());
    rlxrt::cpu::recordRunFailure(message, error.status == dnnl_out_of_memory);
  } catch (const std::bad_alloc &) {
    rlxrt::cpu::recordRunFailure("oneDNN convolution: out of memory",
                                 /*outOfMemory=*/true);
  }
}

} // namespace

extern "C" {

#define RLX_CONV_GEOMETRY_PARAMS                                               \
  int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,                \
      int64_t dilationH, int64_t dilationW, int64_t groups
#define RLX_CONV_GEOMETRY                                                      \
  ConvGeometry {                                                               \
    {strideH, strideW}, {padH, padW}, {dilationH, dilationW}, groups           \
  }

/// y = conv(x, w).
void _mlir_ciface_rlx_rt_conv2d_forward_f32(MemRefDescriptor<float, 4> *x,
                                            MemRefDescriptor<float, 4> *w,
                                            MemRefDescriptor<float, 4> *y,
                                            RLX_CONV_GEOMETRY_PARAMS) {
  convolve(ConvKind::Forward, {x, w, y}, RLX_CONV_GEOMETRY);
}

/// dx = the gradient of conv(x, w) w.r.t. x, for the output gradient dy.
void _mlir_ciface_rlx_rt_conv2d_backward_data_f32(
    MemRefDescriptor<float, 4> *dy, MemRefDescriptor<float, 4> *w,
    MemRefDescriptor<float, 4> *dx, RLX_CONV_GEOMETRY_PARAMS) {
  convolve(ConvKind::BackwardData, {dx, w, dy}, RLX_CONV_GEOMETRY);
}

/// dw = the gradient of conv(x, w) w.r.t. w, for the output gradient dy.
void _mlir_ciface_rlx_rt_conv2d_backward_weights_f32(
    MemRefDescriptor<float, 4> *x, MemRefDescriptor<float, 4> *dy,
    MemRefDescriptor<float, 4> *dw, RLX_CONV_GEOMETRY_PARAMS) {
  convolve(ConvKind::BackwardWeights, {x, dw, dy}, RLX_CONV_GEOMETRY);
}

#undef RLX_CONV_GEOMETRY
#undef RLX_CONV_GEOMETRY_PARAMS

} // extern "C"
