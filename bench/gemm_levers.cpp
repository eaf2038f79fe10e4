// The BERT layer's GEMMs through each candidate library and lever, side by
// side in one process: OpenBLAS cblas_sgemm (what rlx calls today),
// dnnl_sgemm, and oneDNN's matmul primitive with the weight in plain
// row-major layout, with the weight reordered once to the primitive's
// blocked layout ("packed once"), packed with the bias (and GELU) as
// post-ops ("fused epilogue"), and in bf16 with f32 accumulation (the
// source, and for the attention GEMMs, whose right operand is an activation,
// that operand too, converted to bf16 on every call, inside the timing;
// a constant weight is converted and packed once).
//
// Build and run (docs/perf/cpu.md, "GEMM levers"):
//   c++ -O2 -std=c++17 bench/gemm_levers.cpp -ldnnl -lopenblas -o gemm_levers
//   ./gemm_levers [RUNS] [BATCH...]   (default 50 runs, batches 1 8)
// Prints a Markdown table of medians and minima in ms per GEMM shape (for the
// per-head attention GEMMs: all heads of all sequences together). The
// methods take turns in blocks of 10 timed calls, each block after 2 untimed
// ones: OpenBLAS's threads and oneDNN's OpenMP threads each keep spinning
// for a while after a call, so alternating the libraries call by call would
// time their contention for the cores; taking turns by block spreads a
// change of machine speed (other work on a shared machine) over all
// methods. The minimum is the speed without such interference.
//
// OpenBLAS picks its kernels when it is loaded, from OPENBLAS_CORETYPE
// (bench/openblas_env.py says why); unset, the program sets it as the rlx
// runtime does and runs itself again.

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using dnnl::memory;
using Tag = memory::format_tag;
using DType = memory::data_type;

namespace {

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Shape {
  const char *name;
  int64_t m, n, k, count;
  bool constantWeight; // A parameter (projection) rather than an activation.
  bool gelu;           // Followed by bias + GELU (else bias only).
};

std::vector<float> randomVector(size_t size, std::mt19937 &rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// One oneDNN matmul setup: primitive plus its bound memories.
struct DnnlMatmul {
  dnnl::matmul prim;
  std::unordered_map<int, memory> args;
};

struct Bench {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};

  /// matmul of [batch, m, k] x [batch, k, n] (batch 0: 2-D). `packed`:
  /// weights in the primitive's chosen layout, reordered once here.
  /// `postOps`: bias added and, if `gelu`, GELU (erf) applied in the
  /// output pass. `bf16`: src and weights in bf16, dst f32; the f32 source
  /// is reordered to bf16 in `convertSrc` on every call.
  DnnlMatmul make(int64_t batch, int64_t m, int64_t n, int64_t k, float *a,
                  float *b, float *c, float *bias, bool packed, bool postOps,
                  bool gelu, bool bf16, std::vector<memory> &keep) {
    memory::dims aDims = batch ? memory::dims{batch, m, k} : memory::dims{m, k};
    memory::dims bDims = batch ? memory::dims{batch, k, n} : memory::dims{k, n};
    memory::dims cDims = batch ? memory::dims{batch, m, n} : memory::dims{m, n};
    Tag plain = batch ? Tag::abc : Tag::ab;
    DType in = bf16 ? DType::bf16 : DType::f32;
    memory::desc aMd(aDims, in, plain);
    memory::desc bMd(bDims, in, packed ? Tag::any : plain);
    memory::desc cMd(cDims, DType::f32, plain);
    dnnl::primitive_attr attr;
    memory::desc biasMd;
    if (postOps) {
      biasMd = memory::desc(batch ? memory::dims{1, 1, n} : memory::dims{1, n},
                            DType::f32, plain);
      if (gelu) {
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
        attr.set_post_ops(ops);
      }
    }
    dnnl::matmul::primitive_desc pd =
        postOps ? dnnl::matmul::primitive_desc(
                      dnnl::matmul::desc(aMd, bMd, biasMd, cMd), attr, eng)
                : dnnl::matmul::primitive_desc(
                      dnnl::matmul::desc(aMd, bMd, cMd), attr, eng);
    DnnlMatmul mm{dnnl::matmul(pd), {}};
    memory aF32(memory::desc(aDims, DType::f32, plain), eng, a);
    memory bF32(memory::desc(bDims, DType::f32, plain), eng, b);
    memory aMem = aF32, bMem = bF32;
    if (bf16) {
      aMem = memory(aMd, eng);
      keep.push_back(aF32);
    }
    if (bf16 || pd.weights_desc() != bF32.get_desc()) {
      bMem = memory(pd.weights_desc(), eng);
      dnnl::reorder(bF32, bMem).execute(strm, bF32, bMem);
      strm.wait();
    }
    mm.args = {{DNNL_ARG_SRC, aMem},
               {DNNL_ARG_WEIGHTS, bMem},
               {DNNL_ARG_DST, memory(cMd, eng, c)}};
    if (postOps)
      mm.args[DNNL_ARG_BIAS] = memory(biasMd, eng, bias);
    keep.push_back(aMem);
    keep.push_back(bMem);
    return mm;
  }
};

/// Calls per method in a row, timed, after kWarmUp untimed ones.
constexpr int kBlock = 10, kWarmUp = 2;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  if (!getenv("OPENBLAS_CORETYPE")) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
      execv("/proc/self/exe", argv);
    }
  }
  int runs = argc > 1 ? atoi(argv[1]) : 50;
  std::vector<int64_t> batches;
  for (int i = 2; i < argc; ++i)
    batches.push_back(atoll(argv[i]));
  if (batches.empty())
    batches = {1, 8};
  if (runs <= 0) {
    fprintf(stderr, "usage: %s [RUNS] [BATCH...]\n", argv[0]);
    return 1;
  }

  Bench bench;
  std::mt19937 rng(1);
  printf("runs per method: %d; each cell: median / minimum ms (per-head "
         "rows: all heads together)\n\n",
         runs);
  printf("| B | GEMM | M x N x K | count | OpenBLAS sgemm | dnnl_sgemm | "
         "matmul f32 plain | matmul f32 packed | packed + bias/GELU fused | "
         "matmul bf16 |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int64_t batch : batches) {
    int64_t rows = 128 * batch;
    const Shape shapes[] = {
        {"QKV projection", rows, 2304, 768, 1, true, false},
        {"attention scores", 128, 128, 64, 12 * batch, false, false},
        {"attention values", 128, 64, 128, 12 * batch, false, false},
        {"output projection", rows, 768, 768, 1, true, false},
        {"FFN up", rows, 3072, 768, 1, true, true},
        {"FFN down", rows, 768, 3072, 1, true, false},
    };
    for (const Shape &s : shapes) {
      int64_t heads = s.constantWeight ? 0 : s.count;
      int64_t n = std::max<int64_t>(heads, 1);
      std::vector<float> a = randomVector(n * s.m * s.k, rng);
      std::vector<float> b = randomVector(n * s.k * s.n, rng);
      std::vector<float> bias = randomVector(s.n, rng);
      std::vector<float> c(n * s.m * s.n);
      std::vector<memory> keep;
      float *pa = a.data(), *pb = b.data(), *pc = c.data();
      int64_t m = s.m, nn = s.n, k = s.k;

      std::vector<std::pair<std::string, std::function<void()>>> methods;
      methods.emplace_back("openblas", [&] {
        for (int64_t h = 0; h < n; ++h)
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, k, 1.f,
                      pa + h * m * k, k, pb + h * k * nn, nn, 0.f,
                      pc + h * m * nn, nn);
      });
      methods.emplace_back("dnnl_sgemm", [&] {
        for (int64_t h = 0; h < n; ++h)
          dnnl_sgemm('N', 'N', m, nn, k, 1.f, pa + h * m * k, k,
                     pb + h * k * nn, nn, 0.f, pc + h * m * nn, nn);
      });
      auto addMatmul = [&](const char *name, bool packed, bool post,
                           bool bf16) {
        auto mm = std::make_shared<DnnlMatmul>(
            bench.make(heads, m, nn, k, pa, pb, pc, bias.data(), packed, post,
                       s.gelu, bf16, keep));
        std::shared_ptr<dnnl::reorder> convert, convertWeights;
        memory srcF32, srcBf16, weiF32, weiBf16;
        if (bf16) {
          srcF32 = keep[keep.size() - 3];
          srcBf16 = mm->args.at(DNNL_ARG_SRC);
          convert = std::make_shared<dnnl::reorder>(srcF32, srcBf16);
          if (!s.constantWeight) {
            weiBf16 = mm->args.at(DNNL_ARG_WEIGHTS);
            weiF32 = memory(memory::desc({heads, k, nn}, DType::f32, Tag::abc),
                            bench.eng, pb);
            convertWeights = std::make_shared<dnnl::reorder>(weiF32, weiBf16);
          }
        }
        methods.emplace_back(name, [&, mm, convert, convertWeights, srcF32,
                                    srcBf16, weiF32, weiBf16]() mutable {
          if (convert)
            convert->execute(bench.strm, srcF32, srcBf16);
          if (convertWeights)
            convertWeights->execute(bench.strm, weiF32, weiBf16);
          mm->prim.execute(bench.strm, mm->args);
          bench.strm.wait();
        });
      };
      addMatmul("matmul plain", false, false, false);
      if (s.constantWeight) {
        addMatmul("matmul packed", true, false, false);
        addMatmul("matmul packed fused", true, true, false);
        addMatmul("matmul bf16", true, false, true);
      } else {
        addMatmul("matmul bf16", false, false, true);
      }

      std::vector<std::vector<double>> times(methods.size());
      // Rounds of blocks: a change of machine speed touches every method.
      for (int round = 0; round * kBlock < runs; ++round)
        for (size_t i = 0; i < methods.size(); ++i) {
          for (int w = 0; w < kWarmUp; ++w)
            methods[i].second();
          for (int r = 0; r < kBlock && round * kBlock + r < runs; ++r) {
            double start = nowMs();
            methods[i].second();
            times[i].push_back(nowMs() - start);
          }
        }
      std::map<std::string, std::pair<double, double>> med;
      for (size_t i = 0; i < methods.size(); ++i)
        med[methods[i].first] = {
            median(times[i]),
            *std::min_element(times[i].begin(), times[i].end())};
      auto cell = [&](const char *name) {
        char buf[48] = "n/a";
        if (med.count(name))
          snprintf(buf, sizeof buf, "%.3f / %.3f", med[name].first,
                   med[name].second);
        return std::string(buf);
      };
      printf("| %lld | %s | %lld x %lld x %lld | %lld | %s | %s | %s | %s | "
             "%s | %s |\n",
             (long long)batch, s.name, (long long)m, (long long)nn,
             (long long)k, (long long)s.count, cell("openblas").c_str(),
             cell("dnnl_sgemm").c_str(), cell("matmul plain").c_str(),
             cell("matmul packed").c_str(), cell("matmul packed fused").c_str(),
             cell("matmul bf16").c_str());
      fflush(stdout);
    }
  }
  return 0;
}
