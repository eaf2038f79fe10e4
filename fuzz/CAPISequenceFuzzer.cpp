//===- CAPISequenceFuzzer.cpp - libFuzzer over sequences of C API calls ---===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Reads each input as a program of C API calls on a few graph slots:
// create (load a library compiled once at start-up), free, bind one or
// several arguments with hostile names and sizes, bind a parameter file of
// random bytes, run with buffers, run with hostile shapes (negative, huge,
// overflowing, wrong rank), bench with small counts, query the signature with
// any index, and fail an allocation of the next run. Every call must return
// (a status or a value), never crash, abort, exit or trip a sanitizer; a run
// that succeeds must give the graph's result; and no buffer of the runtime
// outlives the program (rlxGraphGetLiveBufferBytes back to 0).
//
// The graphs: y = x @ w (static, 4x4) and a dynamic add of [?, 4] tensors;
// their libraries are written once to a temporary folder and loaded from it
// (a library stays loaded: loading it again is cheap).
//
//===----------------------------------------------------------------------===//

#include "rlx-c/RLX.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const char *kStatic =
    "func.func @mm(%x: tensor<4x4xf32> {rlx.input = \"x\"},\n"
    "              %w: tensor<4x4xf32> {rlx.param = \"w\"})\n"
    "    -> tensor<4x4xf32> {\n"
    "  %0 = rlx.matmul %x, %w : tensor<4x4xf32>, tensor<4x4xf32>\n"
    "  return %0 : tensor<4x4xf32>\n"
    "}\n";
const char *kDynamic =
    "func.func @add(%x: tensor<?x4xf32> {rlx.input = \"x\"},\n"
    "               %y: tensor<?x4xf32> {rlx.input = \"y\"})\n"
    "    -> tensor<?x4xf32> {\n"
    "  %0 = rlx.binary add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>\n"
    "  return %0 : tensor<?x4xf32>\n"
    "}\n";

std::string libraries[2];
std::string scratch;

[[noreturn]] void die(const char *what, RlxStatus status) {
  std::fprintf(stderr, "capi fuzzer: %s: %s\n", what,
               rlxStatusGetMessage(status));
  std::abort();
}

/// The input, read a byte or a word at a time; zeros once it is used up.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data(data), size(size) {}
  bool done() const { return at >= size; }
  uint8_t byte() { return at < size ? data[at++] : 0; }
  int64_t word() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value = value << 8 | byte();
    return static_cast<int64_t>(value);
  }
  /// A dim: mostly small, sometimes hostile.
  int64_t dim() {
    switch (byte() % 8) {
    case 0:
      return -1 - byte();
    case 1:
      return word();
    case 2:
      return INT64_MAX / (1 + byte());
    default:
      return byte() % 9;
    }
  }

private:
  const uint8_t *data;
  size_t size;
  size_t at = 0;
};

void check(bool condition, const char *what) {
  if (!condition) {
    std::fprintf(stderr, "capi fuzzer: %s\n", what);
    std::abort();
  }
}

/// Consumes a status: any message is fine, a crash is not.
void consume(RlxStatus status) {
  if (status) {
    check(rlxStatusGetMessage(status)[0] != '\0', "a status without message");
    rlxStatusDestroy(status);
  }
}

const char *pickName(Reader &in) {
  static const char *const names[] = {"x",       "w",   "y",       "",
                                      "nothere", "x\n", "output_0"};
  return names[in.byte() % (sizeof(names) / sizeof(*names))];
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  char folder[] = "/tmp/rlx-capi-fuzz-XXXXXX";
  check(mkdtemp(folder) != nullptr, "no temporary folder");
  scratch = folder;
  RlxCompileOptions options;
  rlxCompileOptionsInit(&options);
  options.cache = 0;
  const char *sources[2] = {kStatic, kDynamic};
  for (int i = 0; i < 2; ++i) {
    libraries[i] = scratch + "/graph" + std::to_string(i) + ".so";
    if (RlxStatus status =
            rlxEmitSharedLibraryFromString(sources[i], std::strlen(sources[i]),
                                           &options, libraries[i].c_str()))
      die("cannot compile the graphs", status);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in(data, size);
  RlxGraph slots[3] = {nullptr, nullptr, nullptr};
  std::vector<float> buffer(64 * 1024, 1.0f), out(64 * 1024);
  for (int step = 0; step < 64 && !in.done(); ++step) {
    RlxGraph &graph = slots[in.byte() % 3];
    switch (in.byte() % 11) {
    case 0: // create
      rlxGraphDestroy(graph);
      graph = nullptr;
      consume(rlxGraphLoad(libraries[in.byte() % 2].c_str(), &graph));
      check(graph != nullptr, "a library compiled at start-up did not load");
      break;
    case 1: // free
      rlxGraphDestroy(graph);
      graph = nullptr;
      break;
    case 2: { // bind one argument, any size
      size_t bytes =
          in.byte() % 3 == 0 ? static_cast<size_t>(in.word()) : in.byte() * 4;
      consume(rlxGraphBind(graph, pickName(in),
                           in.byte() % 8 ? buffer.data() : nullptr,
                           bytes % 2 ? bytes : bytes % (buffer.size() * 4)));
      break;
    }
    case 3: { // bind several, any count
      size_t count = in.byte() % 4;
      const char *names[4];
      const void *pointers[4];
      size_t sizes[4];
      for (size_t i = 0; i < count; ++i) {
        names[i] = pickName(in);
        pointers[i] = buffer.data();
        sizes[i] = in.byte() % 4 ? 64 : in.byte();
      }
      consume(rlxGraphBindMany(graph, in.byte() % 8 ? names : nullptr, pointers,
                               sizes, count));
      break;
    }
    case 4: { // bind a parameter file of random bytes
      std::string path = scratch + "/params" + std::to_string(getpid()) +
                         (in.byte() % 2 ? ".gguf" : ".safetensors");
      size_t length = in.byte();
      std::string bytes;
      for (size_t i = 0; i < length; ++i)
        bytes.push_back(static_cast<char>(in.byte()));
      if (FILE *file = std::fopen(path.c_str(), "wb")) {
        std::fwrite(bytes.data(), 1, bytes.size(), file);
        std::fclose(file);
      }
      size_t bound = 0;
      consume(rlxGraphBindParams(graph, path.c_str(), &bound));
      break;
    }
    case 5: { // run with buffers (NULL: the bound data)
      const void *arguments[3] = {in.byte() % 4 ? buffer.data() : nullptr,
                                  in.byte() % 4 ? buffer.data() : nullptr,
                                  buffer.data()};
      void *outputs[2] = {out.data(), out.data()};
      size_t numArguments = in.byte() % 4, numOutputs = in.byte() % 3;
      bool passed = in.byte() % 8;
      out[0] = 0;
      RlxStatus status = rlxGraphRun(graph, passed ? arguments : nullptr,
                                     numArguments, outputs, numOutputs);
      // Both given as all ones: x @ w (the only static graph) is all 4.
      if (!status && passed && arguments[0] && arguments[1])
        check(out[0] == 4.0f, "x @ w of all ones is not 4");
      consume(status);
      break;
    }
    case 6: { // run with hostile shapes
      int64_t shapes[2][3];
      const int64_t *shapePointers[2] = {shapes[0], shapes[1]};
      for (auto &shape : shapes)
        for (int64_t &dim : shape)
          dim = in.dim();
      // Buffers large enough for any shape that passes the checks here:
      // the fuzzer finds where the library trusts a shape it should not.
      bool fits = true;
      for (auto &shape : shapes) {
        int64_t elements = 1;
        for (int d = 0; d < 2; ++d)
          if (shape[d] < 0 ||
              __builtin_mul_overflow(elements, shape[d], &elements))
            fits = false;
        if (elements > static_cast<int64_t>(buffer.size()))
          fits = false;
      }
      if (!fits && in.byte() % 2)
        break; // A shape larger than its buffer is the caller's error.
      const void *arguments[2] = {buffer.data(), buffer.data()};
      RlxOutput outputs[2] = {};
      size_t numOutputs = in.byte() % 3;
      if (fits) {
        consume(rlxGraphRunShaped(graph, arguments,
                                  in.byte() % 8 ? shapePointers : nullptr,
                                  in.byte() % 4, outputs, numOutputs));
      } else {
        // Only shapes whose byte count overflows may exceed the buffer:
        // those must be refused before anything is read.
        bool overflows = false;
        for (auto &shape : shapes) {
          int64_t bytes = 4;
          for (int d = 0; d < 2; ++d)
            overflows |=
                shape[d] > 0 && __builtin_mul_overflow(bytes, shape[d], &bytes);
        }
        if (!overflows)
          break;
        RlxStatus status = rlxGraphRunShaped(graph, arguments, shapePointers, 2,
                                             outputs, numOutputs);
        check(status != nullptr, "a run with an overflowing shape succeeded");
        consume(status);
      }
      for (RlxOutput &output : outputs)
        rlxOutputDestroy(&output);
      break;
    }
    case 7: { // bench with small counts
      RlxBenchResult result;
      void *outputs[1] = {out.data()};
      consume(rlxGraphBench(graph, nullptr, 0, outputs, in.byte() % 2,
                            in.byte() % 3, in.byte() % 3,
                            in.byte() % 8 ? &result : nullptr));
      break;
    }
    case 8: { // the signature, any index
      RlxTensorSpec spec;
      size_t index = in.byte() % 2 ? in.byte() % 4 : in.word();
      consume(
          rlxGraphGetArgument(graph, index, in.byte() % 8 ? &spec : nullptr));
      consume(rlxGraphGetResult(graph, index, &spec));
      (void)rlxGraphIsBound(graph, index);
      size_t found = 0;
      consume(rlxGraphFindArgument(graph, pickName(in), &found));
      (void)rlxGraphGetName(graph);
      break;
    }
    case 9: // fail one of the next allocations of the runtime
      consume(rlxGraphDebugFailAllocation(graph, in.byte() % 4));
      break;
    case 10: // interrupt: no bench runs, so it must be harmless
      rlxGraphInterrupt(graph);
      break;
    }
  }
  // The hook off again, and every buffer of the runtime given back.
  int64_t live = -1;
  for (RlxGraph &graph : slots) {
    if (graph) {
      consume(rlxGraphDebugFailAllocation(graph, -1));
      live = rlxGraphGetLiveBufferBytes(graph);
    }
    rlxGraphDestroy(graph);
  }
  check(live <= 0, "the runtime holds buffers after the program");
  return 0;
}
