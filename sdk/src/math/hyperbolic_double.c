/* sinh, cosh, tanh in double precision (the scheme of hyperbolic_float.c). */
#include "double_double.h"

#define LN2_HI 0.6931471803691238 /* 32 significant bits */
#define LN2_LO 1.9082149292705877e-10

/* e^|x| / 2 = e^(|x| - ln2), with the subtraction kept exact. */
static double half_exp(double ax) {
  double hi, lo;
  two_sum(ax, -LN2_HI, &hi, &lo);
  return q7_exp_dd(hi, lo - LN2_LO);
}

#define SINH_LIMIT 710.4758600739439        /* largest x with e^x / 2 finite */

double Q7_RT(sinh)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x || ax == __builtin_inf()) return x + x;
  double h = x < 0 ? -0.5 : 0.5;
  if (ax < 0x1p-28) return x;
  if (ax < 22.0) {
    double t = Q7_RT(expm1)(ax);
    if (ax < 1.0) return h * (2.0 * t - t * t / (t + 1.0));
    return h * (t + t / (t + 1.0));
  }
  if (ax <= SINH_LIMIT) return x < 0 ? -half_exp(ax) : half_exp(ax);
  return x * 0x1p1023 * 0x1p1023;
}

double Q7_RT(cosh)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x) return x + x;
  if (ax == __builtin_inf()) return ax;
  if (ax < 0x1p-28) return 1.0;
  if (ax < 0.34657359027997264) {
    double t = Q7_RT(expm1)(ax);
    double w = 1.0 + t;
    return 1.0 + (t * t) / (w + w);
  }
  if (ax < 22.0) {
    double t = Q7_RT(exp)(ax);
    return 0.5 * t + 0.5 / t;
  }
  if (ax <= SINH_LIMIT) return half_exp(ax);
  return __builtin_inf();
}

double Q7_RT(tanh)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x) return x + x;
  double z;
  if (ax >= 22.0) {
    z = 1.0;
  } else if (ax < 0x1p-28) {
    return x;
  } else if (ax >= 1.0) {
    double t = Q7_RT(expm1)(2.0 * ax);
    z = 1.0 - 2.0 / (t + 2.0);
  } else {
    double t = Q7_RT(expm1)(-2.0 * ax);
    z = -t / (t + 2.0);
  }
  return x < 0 ? -z : z;
}

#define LN2 0.6931471805599453

double Q7_RT(asinh)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x || ax == __builtin_inf()) return x + x;
  if (ax < 0x1p-28) return x;
  double r;
  if (ax > 0x1p28) {
    r = Q7_RT(log)(ax) + LN2;
  } else if (ax > 2.0) {
    r = Q7_RT(log)(2.0 * ax + 1.0 / (Q7_RT(sqrt)(ax * ax + 1.0) + ax));
  } else {
    double t = ax * ax;
    r = Q7_RT(log1p)(ax + t / (1.0 + Q7_RT(sqrt)(1.0 + t)));
  }
  return x < 0 ? -r : r;
}

double Q7_RT(acosh)(double x) {
  if (x != x) return x + x;
  if (x < 1.0) return (x - x) / (x - x);
  if (x == __builtin_inf()) return x;
  if (x >= 0x1p28) return Q7_RT(log)(x) + LN2;
  if (x > 2.0) return Q7_RT(log)(2.0 * x - 1.0 / (x + Q7_RT(sqrt)(x * x - 1.0)));
  double t = x - 1.0;
  return Q7_RT(log1p)(t + Q7_RT(sqrt)(2.0 * t + t * t));
}

double Q7_RT(atanh)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x) return x + x;
  if (ax > 1.0) return (x - x) / (x - x);
  if (ax == 1.0) return x / 0.0;
  if (ax < 0x1p-28) return x;
  double r;
  if (ax < 0.5) {
    double t = ax + ax;
    r = 0.5 * Q7_RT(log1p)(t + t * ax / (1.0 - ax));
  } else {
    r = 0.5 * Q7_RT(log1p)((ax + ax) / (1.0 - ax));
  }
  return x < 0 ? -r : r;
}
