/* exp, exp2, expm1 in double precision (the SDK's software double).
 * Same scheme as exp_float.c with a degree-10 fit: x = k ln2 + r, |r| <= ln2/2,
 * e^x = 2^k (1 + r + r^2 P(r)). */
#include "math_internal.h"
#include "math_tables.h"

#define LN2_HI 0.6931471803691238     /* 32 significant bits: k * LN2_HI exact */
#define LN2_LO 1.9082149292705877e-10 /* ln2 - LN2_HI */
#define INV_LN2 1.4426950408889634
#define ROUND_MAGIC 6755399441055744.0 /* 1.5 * 2^52 */

static double scale(double y, int k) {
  if (k > 1023) return y * 2.0 * pow2(k - 1);
  if (k < -1021) return y * pow2(k + 512) * 0x1p-512; /* the last multiply rounds into subnormals */
  return y * pow2(k);
}

/* e^r - 1 for |r| <= ln2/2, plus the first-order effect of a correction c. */
static double expm1_reduced(double r, double c) {
  double p = r * r * POLY(exp_poly, r);
  return r + (c + p + c * (r + p));
}

/* Shared reduction: k, r (rounded) and the correction c = (hi - lo) - r. */
static int reduce(double x, double *r, double *c) {
  double kf = (x * INV_LN2 + ROUND_MAGIC) - ROUND_MAGIC;
  double hi = x - kf * LN2_HI;
  double lo = kf * LN2_LO;
  *r = hi - lo;
  *c = (hi - *r) - lo;
  return (int)kf;
}

double Q7_RT(exp)(double x) {
  if (x != x) return x + x;
  if (x > 709.782712893384) return __builtin_inf();
  if (x < -745.1332191019412) return 0.0;
  if (Q7_RT(fabs)(x) < 0x1p-54) return 1.0 + x;
  double r, c;
  int k = reduce(x, &r, &c);
  return scale(1.0 + expm1_reduced(r, c), k);
}

double Q7_RT(exp2)(double x) {
  if (x != x) return x + x;
  if (x >= 1024.0) return __builtin_inf();
  if (x < -1075.0) return 0.0;
  double kf = (x + ROUND_MAGIC) - ROUND_MAGIC;
  double f = x - kf; /* exact, |f| <= 1/2 */
  /* r = f ln2 as hi + lo: f * LN2_HI is not exact, so split f. */
  double f_hi = as_f64(as_u64(f) & 0xfffffffff8000000ull); /* 26 bits */
  double f_lo = f - f_hi;
  double r_hi = f_hi * LN2_HI;                              /* exact: 26 x 32 bits */
  double r_lo = f_lo * LN2_HI + f * LN2_LO;
  double r = r_hi + r_lo;
  double c = (r_hi - r) + r_lo;
  return scale(1.0 + expm1_reduced(r, c), (int)kf);
}

double Q7_RT(expm1)(double x) {
  if (x != x) return x + x;
  if (x > 709.782712893384) return __builtin_inf();
  if (x < -38.0) return -1.0;
  double ax = Q7_RT(fabs)(x);
  if (ax < 0x1p-54) return x;
  if (ax <= 0.34657359027997264) return expm1_reduced(x, 0.0);
  double r, c;
  int k = reduce(x, &r, &c);
  double e = expm1_reduced(r, c);
  if (k == -1) return 0.5 * (e - 1.0);
  if (k < -1 || k > 56) return scale(1.0 + e, k) - 1.0;
  if (k < 53) return scale((1.0 - pow2(-k)) + e, k);
  return scale((e - pow2(-k)) + 1.0, k);
}

/* e^(hi + lo) for |lo| << |hi| (pow's double-double exponent). */
double q7_exp_dd(double hi, double lo) {
  if (hi != hi) return hi;
  if (hi > 709.79) return __builtin_inf();
  if (hi < -745.2) return 0.0;
  double r, c;
  int k = reduce(hi, &r, &c);
  return scale(1.0 + expm1_reduced(r, c + lo), k);
}
