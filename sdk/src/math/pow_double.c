/* pow and hypot in double precision.
 *
 * pow = exp(y log|x|) with log|x| in double-double (about 100 bits) and the
 * product y log|x| kept as hi + lo, so that the only significant error is the
 * final exp's; special cases follow C99 Annex F. hypot sums the exact squares
 * in double-double and corrects the square root once. */
#include "double_double.h"
#include "math_tables.h"

#define LN2_HI 0.6931471803691238 /* 32 significant bits */
#define LN2_LO 1.9082149292705877e-10
#define HALF_SQRT2_BITS 0x3fe6a09e667f3bcdull

static int is_integer(double y) { return Q7_RT(trunc)(y) == y; }
static int is_odd_integer(double y) {
  if (!is_integer(y) || Q7_RT(fabs)(y) >= 0x1p53) return 0;
  return ((int64_t)y & 1) != 0;
}

/* log(x) for finite x > 0 as hi + lo. */
static void log_dd(double x, double *hi, double *lo) {
  uint64_t u = as_u64(x);
  int k = 0;
  if (u < 0x0010000000000000ull) {
    u = as_u64(x * 0x1p54);
    k = -54;
  }
  uint64_t t = u - HALF_SQRT2_BITS;
  k += (int)((int64_t)t >> 52);
  double f = as_f64((t & 0x000fffffffffffffull) + HALF_SQRT2_BITS) - 1.0; /* exact */
  /* s = f / (2 + f) in double-double. */
  double d_hi = 2.0 + f;
  double d_lo = f - (d_hi - 2.0);
  double s_hi = f / d_hi;
  double p, pe;
  two_prod(s_hi, d_hi, &p, &pe);
  double s_lo = (((f - p) - pe) - s_hi * d_lo) / d_hi;
  /* log(1 + f) = 2s + (2/3) s^3 + s^5 L2(z), z = s^2, where L2 is the fit
   * L(z) = 2/3 + z L2(z) without its constant term. 2s and (2/3) s^3 are
   * carried in double-double; the s^5 part is small enough for double. */
  double z_hi, z_lo, c_hi, c_lo, q_hi, q_lo;
  two_prod(s_hi, s_hi, &z_hi, &z_lo);
  z_lo += 2.0 * s_hi * s_lo;
  two_prod(z_hi, s_hi, &c_hi, &c_lo); /* s^3 */
  c_lo += z_lo * s_hi + z_hi * s_lo;
  const double two_thirds_hi = 0.6666666666666666, two_thirds_lo = 3.700743415417188e-17;
  two_prod(c_hi, two_thirds_hi, &q_hi, &q_lo);
  q_lo += c_lo * two_thirds_hi + c_hi * two_thirds_lo;
  double rest = c_hi * z_hi * poly(log_poly, (int)(sizeof log_poly / sizeof log_poly[0]) - 1, z_hi);
  double a, ae, l_hi, l_lo;
  two_sum(2.0 * s_hi, q_hi, &a, &ae);
  two_sum(a, ae + 2.0 * s_lo + q_lo + rest, &l_hi, &l_lo);
  double kf = (double)k, h, e;
  two_sum(kf * LN2_HI, l_hi, &h, &e);
  two_sum(h, e + l_lo + kf * LN2_LO, hi, lo);
}

double Q7_RT(pow)(double x, double y) {
  if (y == 0.0 || x == 1.0) return 1.0;
  if (x != x || y != y) return x + y;
  if (y == 1.0) return x;
  double ax = Q7_RT(fabs)(x), ay = Q7_RT(fabs)(y);
  int negative = x < 0.0 && is_odd_integer(y);
  if (ay == __builtin_inf()) {
    if (ax == 1.0) return 1.0;
    return (ax > 1.0) == (y > 0.0) ? __builtin_inf() : 0.0;
  }
  if (ax == __builtin_inf() || x == 0.0) {
    int big = (ax == __builtin_inf()) == (y > 0.0);
    double r = big ? __builtin_inf() : 0.0;
    return (negative || (x == 0.0 && signbit(x) && is_odd_integer(y))) ? -r : r;
  }
  if (x < 0.0 && !is_integer(y)) return __builtin_nan("");
  if (y == 2.0) return x * x;
  if (y == 0.5) return Q7_RT(sqrt)(x);
  if (ax == 1.0) return negative ? -1.0 : 1.0; /* x = -1 with an integer y */
  double l_hi, l_lo;
  log_dd(ax, &l_hi, &l_lo);
  double p = y * l_hi;
  double r;
  if (p > 709.8) {
    r = __builtin_inf();
  } else if (p < -745.2) {
    r = 0.0;
  } else {
    double p_hi, p_lo;
    two_prod(y, l_hi, &p_hi, &p_lo);
    r = q7_exp_dd(p_hi, p_lo + y * l_lo);
  }
  return negative ? -r : r;
}

double Q7_RT(hypot)(double x, double y) {
  double ax = Q7_RT(fabs)(x), ay = Q7_RT(fabs)(y);
  if (ax == __builtin_inf() || ay == __builtin_inf()) return __builtin_inf();
  if (x != x || y != y) return x + y;
  if (ax < ay) {
    double t = ax;
    ax = ay;
    ay = t;
  }
  if (ay == 0.0) return ax;
  int ea = (int)(as_u64(ax) >> 52), eb = (int)(as_u64(ay) >> 52);
  if (ea - eb > 60) return ax + ay;
  /* Scale the larger to [1, 2) by powers of two (exact), in two steps so each
   * factor is a normal double. */
  int shift = 0;
  if (ea == 0) { /* both subnormal */
    ax *= 0x1p600;
    ay *= 0x1p600;
    shift = 600;
    ea = (int)(as_u64(ax) >> 52);
  }
  int step = (1023 - ea) / 2;
  double sa = ax * pow2(step) * pow2(1023 - ea - step);
  double sb = ay * pow2(step) * pow2(1023 - ea - step);
  shift += 1023 - ea;
  double a2, a2e, b2, b2e, h, l;
  two_prod(sa, sa, &a2, &a2e);
  two_prod(sb, sb, &b2, &b2e);
  two_sum(a2, b2, &h, &l);
  l += a2e + b2e;
  double s = Q7_RT(sqrt)(h);
  double ss, sse;
  two_prod(s, s, &ss, &sse);
  s += (((h - ss) - sse) + l) / (2.0 * s);
  return Q7_RT(scalbn)(s, -shift);
}

/* Cube root: x = m 2^(3q) with m in [1, 8); a bit-level estimate of cbrt(m),
 * Newton steps, and one last correction with the residual m - t^3 computed
 * exactly in double-double. */
double Q7_RT(cbrt)(double x) {
  uint64_t u = as_u64(x);
  uint64_t sign = u & 0x8000000000000000ull, ax = u & ~0x8000000000000000ull;
  if (ax >= 0x7ff0000000000000ull || ax == 0) return x + x;
  int e = 0;
  if (ax < 0x0010000000000000ull) { /* subnormal */
    ax = as_u64(as_f64(ax) * 0x1p54);
    e = -54;
  }
  e += (int)(ax >> 52) - 1023;
  int q = e >= 0 ? e / 3 : -((-e + 2) / 3); /* floor(e / 3) */
  int r = e - 3 * q;                         /* 0, 1 or 2 */
  double m = as_f64((ax & 0x000fffffffffffffull) | ((uint64_t)(1023 + r) << 52));
  uint32_t hi = (uint32_t)(as_u64(m) >> 32);
  double t = as_f64((uint64_t)(hi / 3 + 715094163u) << 32);
  for (int i = 0; i < 4; i++) t = t - (t * t * t - m) / (3.0 * t * t);
  double t2, t2e, t3, t3e;
  two_prod(t, t, &t2, &t2e);
  two_prod(t2, t, &t3, &t3e);
  t3e += t2e * t;
  t += ((m - t3) - t3e) / (3.0 * t * t);
  double result = t * pow2(q);
  return sign ? -result : result;
}
