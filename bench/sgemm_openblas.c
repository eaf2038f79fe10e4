/* OpenBLAS cblas_sgemm called directly: the reference rlx's GEMM path is
 * measured against. Usage: sgemm_openblas N RUNS; prints the median ms. */
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
  if (argc != 3) {
    fprintf(stderr, "usage: %s N RUNS\n", argv[0]);
    return 1;
  }
  int n = atoi(argv[1]), runs = atoi(argv[2]);
  if (n <= 0 || runs <= 0) {
    fprintf(stderr, "N and RUNS must be positive\n");
    return 1;
  }
  float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
        *c = malloc(sizeof(float) * n * n);
  double *times = malloc(sizeof(double) * runs);
  if (!a || !b || !c || !times)
    return 1;
  srand(1);
  for (long i = 0; i < (long)n * n; ++i) {
    a[i] = (float)rand() / RAND_MAX - 0.5f;
    b[i] = (float)rand() / RAND_MAX - 0.5f;
  }
  for (int i = 0; i < 3; ++i)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
                b, n, 0.0f, c, n);
  for (int i = 0; i < runs; ++i) {
    double start = now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n,
                b, n, 0.0f, c, n);
    times[i] = now_ms() - start;
  }
  qsort(times, runs, sizeof(double), compare);
  printf("%.4f\n", times[runs / 2]);
  return 0;
}
