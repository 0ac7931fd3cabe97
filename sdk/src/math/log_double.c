/* log, log2, log10, log1p in double precision (the SDK's software double).
 * Same scheme as log_float.c with a degree-8 fit for L(z). */
#include "math_internal.h"
#include "math_tables.h"

#define LN2_HI 0.6931471803691238     /* 32 significant bits */
#define LN2_LO 1.9082149292705877e-10
#define HALF_SQRT2_BITS 0x3fe6a09e667f3bcdull

static double reduce(double x, int *k) {
  uint64_t u = as_u64(x);
  int s = 0;
  if (u < 0x0010000000000000ull) {
    u = as_u64(x * 0x1p54);
    s = -54;
  }
  uint64_t t = u - HALF_SQRT2_BITS;
  *k = (int)((int64_t)t >> 52) + s;
  return as_f64((t & 0x000fffffffffffffull) + HALF_SQRT2_BITS) - 1.0;
}

static double tail(double f, double *hfsq) {
  double s = f / (2.0 + f);
  double z = s * s;
  *hfsq = 0.5 * f * f;
  return s * (*hfsq + z * POLY(log_poly, z));
}

static int special(double x, double *result) {
  uint64_t u = as_u64(x);
  if ((u << 1) == 0) {
    *result = -__builtin_inf();
    return 1;
  }
  if (u >= 0x7ff0000000000000ull) {
    *result = (u == 0x7ff0000000000000ull || x != x) ? x + x : __builtin_nan("");
    return 1;
  }
  return 0;
}

double Q7_RT(log)(double x) {
  double result;
  if (special(x, &result)) return result;
  int k;
  double f = reduce(x, &k);
  double hfsq, t = tail(f, &hfsq);
  double kf = (double)k;
  return kf * LN2_HI - ((hfsq - (t + kf * LN2_LO)) - f);
}

static void log1p_split(double f, double *hi, double *lo) {
  double hfsq, t = tail(f, &hfsq);
  double h = f - hfsq;
  h = as_f64(as_u64(h) & 0xffffffff00000000ull); /* 21 significant bits */
  *hi = h;
  *lo = ((f - h) - hfsq) + t;
}

double Q7_RT(log2)(double x) {
  double result;
  if (special(x, &result)) return result;
  int k;
  double f = reduce(x, &k);
  double hi, lo;
  log1p_split(f, &hi, &lo);
  const double inv_ln2_hi = 1.4426946640014648;    /* 21 bits */
  const double inv_ln2_lo = 3.768874985636099e-07;
  double kf = (double)k;
  double y = hi * inv_ln2_hi;
  double w = kf + y;
  return w + (((kf - w) + y) + ((lo + hi) * inv_ln2_lo + lo * inv_ln2_hi));
}

double Q7_RT(log10)(double x) {
  double result;
  if (special(x, &result)) return result;
  int k;
  double f = reduce(x, &k);
  double hi, lo;
  log1p_split(f, &hi, &lo);
  const double inv_ln10_hi = 0.4342944622039795; /* 21 bits */
  const double inv_ln10_lo = 1.9699272335463627e-08;
  const double log10_2_hi = 0.30102999560767785; /* 33 bits: k * hi exact */
  const double log10_2_lo = 5.630334806675098e-11;
  double kf = (double)k;
  double y = kf * log10_2_hi;
  double v = hi * inv_ln10_hi;
  double w = y + v;
  return w + (((y - w) + v) + (kf * log10_2_lo + (lo + hi) * inv_ln10_lo + lo * inv_ln10_hi));
}

double Q7_RT(log1p)(double x) {
  if (x != x) return x + x;
  if (x <= -1.0) return x == -1.0 ? -__builtin_inf() : __builtin_nan("");
  if (x == __builtin_inf()) return x;
  if (Q7_RT(fabs)(x) < 0x1p-54) return x;
  int k = 0;
  double f, c = 0.0;
  if (x > -0.2928932188134524 && x < 0.41421356237309503) {
    f = x;
  } else {
    double y = 1.0 + x;
    f = reduce(y, &k);
    c = y < 2.0 ? x - (y - 1.0) : 1.0 - (y - x);
    c /= y;
    if (k >= 54) c = 0.0;
  }
  double hfsq, t = tail(f, &hfsq);
  double kf = (double)k;
  return kf * LN2_HI - ((hfsq - (t + (kf * LN2_LO + c))) - f);
}
