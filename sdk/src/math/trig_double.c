/* sin, cos, tan in double precision: exact reduction (trig_reduce.c) beyond
 * pi/4 and degree-7 fits for sin and cos (math_tables.h). */
#include "math_internal.h"
#include "math_tables.h"

#define PIO4 0.7853981633974483

static double sin_kernel(double r, double r_lo) {
  double w = r * r;
  return r + (r_lo + r * w * POLY(sin_poly, w));
}

static double cos_kernel(double r, double r_lo) {
  double w = r * r;
  double hz = 0.5 * w;
  double v = 1.0 - hz;
  return v + (((1.0 - v) - hz) + (w * w * POLY(cos_poly, w) - r * r_lo));
}

static int reduce(double x, double *r, double *r_lo) {
  uint64_t u = as_u64(x);
  uint64_t m = (u & 0x000fffffffffffffull) | 0x0010000000000000ull;
  int e = (int)((u >> 52) & 0x7ff) - 1075;
  int64_t fh;
  uint64_t fl;
  int n = q7_reduce_pio2(m, e, &fh, &fl);
  q7_reduced_to_double(fh, fl, r, r_lo);
  if (u >> 63) {
    *r = -*r;
    *r_lo = -*r_lo;
    n = (4 - n) & 3;
  }
  return n;
}

double Q7_RT(sin)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x || ax == __builtin_inf()) return x - x;
  if (ax < 0x1p-27) return x;
  if (ax <= PIO4) return sin_kernel(x, 0.0);
  double r, r_lo;
  switch (reduce(x, &r, &r_lo)) {
    case 0: return sin_kernel(r, r_lo);
    case 1: return cos_kernel(r, r_lo);
    case 2: return -sin_kernel(r, r_lo);
    default: return -cos_kernel(r, r_lo);
  }
}

double Q7_RT(cos)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x || ax == __builtin_inf()) return x - x;
  if (ax < 0x1p-27) return 1.0;
  if (ax <= PIO4) return cos_kernel(x, 0.0);
  double r, r_lo;
  switch (reduce(x, &r, &r_lo)) {
    case 0: return cos_kernel(r, r_lo);
    case 1: return -sin_kernel(r, r_lo);
    case 2: return -cos_kernel(r, r_lo);
    default: return sin_kernel(r, r_lo);
  }
}

double Q7_RT(tan)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x || ax == __builtin_inf()) return x - x;
  if (ax < 0x1p-27) return x;
  double r = x, r_lo = 0.0;
  int n = 0;
  if (ax > PIO4) n = reduce(x, &r, &r_lo);
  double s = sin_kernel(r, r_lo), c = cos_kernel(r, r_lo);
  return (n & 1) ? -c / s : s / c;
}
