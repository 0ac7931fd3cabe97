/* Exact double-precision functions (the counterparts of basic_float.c):
 * rounding to integers, sign and exponent manipulation, min/max,
 * fmod/remainder. All results are exact, computed on the bit patterns. */
#include "math_internal.h"

#define SIGN 0x8000000000000000ull

double Q7_RT(fabs)(double x) { return as_f64(as_u64(x) & ~SIGN); }

double Q7_RT(copysign)(double x, double y) { return as_f64((as_u64(x) & ~SIGN) | (as_u64(y) & SIGN)); }

double Q7_RT(trunc)(double x) {
  uint64_t u = as_u64(x);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  if (e >= 52) return x;
  if (e < 0) return as_f64(u & SIGN);
  return as_f64(u & ~(0x000fffffffffffffull >> e));
}

double Q7_RT(floor)(double x) {
  double t = Q7_RT(trunc)(x);
  return (t != x && x < 0) ? t - 1.0 : t;
}

double Q7_RT(ceil)(double x) {
  double t = Q7_RT(trunc)(x);
  return (t != x && x > 0) ? t + 1.0 : t;
}

double Q7_RT(round)(double x) {
  double t = Q7_RT(trunc)(x);
  if (Q7_RT(fabs)(x - t) >= 0.5) t += x < 0 ? -1.0 : 1.0;
  return t;
}

double Q7_RT(rint)(double x) {
  uint64_t u = as_u64(x);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  if (e >= 52) return x;
  double big = as_f64(0x4330000000000000ull | (u & SIGN)); /* +-2^52 */
  return Q7_RT(copysign)((x + big) - big, x);
}

double Q7_RT(nearbyint)(double x) { return Q7_RT(rint)(x); }
long Q7_RT(lround)(double x) { return (long)Q7_RT(round)(x); }
long Q7_RT(lrint)(double x) { return (long)Q7_RT(rint)(x); }

double Q7_RT(modf)(double x, double *ipart) {
  double t = Q7_RT(trunc)(x);
  *ipart = t;
  if (Q7_RT(fabs)(x) == __builtin_inf()) return Q7_RT(copysign)(0.0, x);
  return Q7_RT(copysign)(x - t, x);
}

double Q7_RT(scalbn)(double x, int e) {
  if (e > 1023) {
    x *= 0x1p1023;
    e -= 1023;
    if (e > 1023) {
      x *= 0x1p1023;
      e -= 1023;
      if (e > 1023) e = 1023;
    }
  } else if (e < -1022) {
    x *= 0x1p-969; /* 2^-1022 * 2^53: keeps the significand exact */
    e += 969;
    if (e < -1022) {
      x *= 0x1p-969;
      e += 969;
      if (e < -1022) e = -1022;
    }
  }
  return x * pow2(e);
}

double Q7_RT(ldexp)(double x, int e) { return Q7_RT(scalbn)(x, e); }

double Q7_RT(frexp)(double x, int *e) {
  uint64_t u = as_u64(x);
  int exp = (int)((u >> 52) & 0x7ff);
  if (exp == 0) {
    if ((u & ~SIGN) == 0) {
      *e = 0;
      return x;
    }
    x *= 0x1p54;
    u = as_u64(x);
    exp = (int)((u >> 52) & 0x7ff) - 54;
  } else if (exp == 0x7ff) {
    *e = 0;
    return x;
  }
  *e = exp - 1022;
  return as_f64((u & 0x800fffffffffffffull) | 0x3fe0000000000000ull);
}

double Q7_RT(fmin)(double x, double y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x == y) return (as_u64(x) & SIGN) ? x : y;
  return x < y ? x : y;
}

double Q7_RT(fmax)(double x, double y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x == y) return (as_u64(x) & SIGN) ? y : x;
  return x > y ? x : y;
}

double Q7_RT(fdim)(double x, double y) {
  if (x != x || y != y) return x + y;
  return x > y ? x - y : 0.0;
}

double Q7_RT(nan)(const char *tag) {
  (void)tag;
  return as_f64(0x7ff8000000000000ull);
}

static double double_fmod(double x, double y, int *odd) {
  uint64_t ux = as_u64(x), uy = as_u64(y);
  uint64_t sx = ux & SIGN, ax = ux & ~SIGN, ay = uy & ~SIGN;
  *odd = 0;
  if (ax >= 0x7ff0000000000000ull || ay > 0x7ff0000000000000ull || ay == 0) return (x * y) / (x * y);
  if (ax < ay) return x;
  int ex = (int)(ax >> 52), ey = (int)(ay >> 52);
  uint64_t mx = ax & 0x000fffffffffffffull, my = ay & 0x000fffffffffffffull;
  const uint64_t implicit = 0x0010000000000000ull;
  if (ex == 0) {
    while (!(mx & implicit)) mx <<= 1, ex--;
    ex++;
  } else {
    mx |= implicit;
  }
  if (ey == 0) {
    while (!(my & implicit)) my <<= 1, ey--;
    ey++;
  } else {
    my |= implicit;
  }
  for (int i = ex - ey; i >= 0; i--) {
    *odd = 0;
    if (mx >= my) {
      mx -= my;
      *odd = 1;
    }
    if (i) mx <<= 1;
  }
  if (mx == 0) return as_f64(sx);
  ex = ey;
  while (!(mx & implicit)) mx <<= 1, ex--;
  if (ex <= 0) {
    mx >>= 1 - ex;
    ex = 0;
  }
  return as_f64(sx | ((uint64_t)ex << 52) | (mx & 0x000fffffffffffffull));
}

double Q7_RT(fmod)(double x, double y) {
  int odd;
  return double_fmod(x, y, &odd);
}

double Q7_RT(remainder)(double x, double y) {
  int odd;
  double r = double_fmod(x, y, &odd);
  double ar = Q7_RT(fabs)(r), ay = Q7_RT(fabs)(y);
  if (r != r || ay == __builtin_inf()) return r;
  if (2.0 * ar > ay || (2.0 * ar == ay && odd)) return Q7_RT(copysign)(ay - ar, -r);
  return r;
}
