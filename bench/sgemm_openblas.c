/* OpenBLAS cblas_sgemm called directly: the reference rlx's GEMM path is
 * measured against. Usage: sgemm_openblas N RUNS (an N^3 GEMM) or
 * sgemm_openblas M N K RUNS ([M,K] x [K,N]); prints the median ms. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: %s N RUNS | %s M N K RUNS\n", argv[0], argv[0]);
    return 1;
  }
  int m = atoi(argv[1]), n = m, k = m, runs = atoi(argv[argc - 1]);
  if (argc == 5) {
    n = atoi(argv[2]);
    k = atoi(argv[3]);
  }
  if (m <= 0 || n <= 0 || k <= 0 || runs <= 0) {
    fprintf(stderr, "sizes and RUNS must be positive\n");
    return 1;
  }
  float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n),
        *c = malloc(sizeof(float) * m * n);
  double *times = malloc(sizeof(double) * runs);
  if (!a || !b || !c || !times)
    return 1;
  srand(1);
  for (long i = 0; i < (long)m * k; ++i)
    a[i] = (float)rand() / RAND_MAX - 0.5f;
  for (long i = 0; i < (long)k * n; ++i)
    b[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < 3; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k,
                b, n, 0.0f, c, n);
  for (int i = 0; i < runs; ++i) {
    double start = now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k,
                b, n, 0.0f, c, n);
    times[i] = now_ms() - start;
  }
  qsort(times, runs, sizeof(double), compare);
  printf("%.4f\n", times[runs / 2]);
  return 0;
}
