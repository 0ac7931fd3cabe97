/* Exact single-precision functions: rounding to integers, sign and exponent
 * manipulation, min/max, fmod/remainder. All results are exact (no rounding
 * error), computed on the bit patterns. */
#include "math_internal.h"

float Q7_RT(fabsf)(float x) { return as_f32(as_u32(x) & 0x7fffffffu); }

float Q7_RT(copysignf)(float x, float y) { return as_f32((as_u32(x) & 0x7fffffffu) | (as_u32(y) & 0x80000000u)); }

float Q7_RT(truncf)(float x) {
  uint32_t u = as_u32(x);
  int e = (int)((u >> 23) & 0xff) - 127;
  if (e >= 23) return x;                         /* integral, inf or NaN */
  if (e < 0) return as_f32(u & 0x80000000u);     /* |x| < 1 */
  return as_f32(u & ~(0x007fffffu >> e));
}

float Q7_RT(floorf)(float x) {
  float t = Q7_RT(truncf)(x);
  return (t != x && x < 0) ? t - 1.0f : t;
}

float Q7_RT(ceilf)(float x) {
  float t = Q7_RT(truncf)(x);
  return (t != x && x > 0) ? t + 1.0f : t;
}

/* Rounds half away from zero. */
float Q7_RT(roundf)(float x) {
  float t = Q7_RT(truncf)(x);
  float d = Q7_RT(fabsf)(x - t); /* exact: x and t share the exponent range */
  if (d >= 0.5f) t += Q7_RT(copysignf)(1.0f, x);
  return t;
}

/* Rounds half to even (the only rounding mode here). */
float Q7_RT(rintf)(float x) {
  uint32_t u = as_u32(x);
  int e = (int)((u >> 23) & 0xff) - 127;
  if (e >= 23) return x;
  /* Adding and subtracting 2^23 rounds to an integer in the current mode. */
  float big = as_f32(0x4b000000u | (u & 0x80000000u));
  float r = (x + big) - big;
  return Q7_RT(copysignf)(r, x); /* keep -0 for -0.5 <= x < 0 */
}

float Q7_RT(nearbyintf)(float x) { return Q7_RT(rintf)(x); }

long Q7_RT(lroundf)(float x) { return (long)Q7_RT(roundf)(x); }
long Q7_RT(lrintf)(float x) { return (long)Q7_RT(rintf)(x); }

float Q7_RT(modff)(float x, float *ipart) {
  float t = Q7_RT(truncf)(x);
  *ipart = t;
  if (Q7_RT(fabsf)(x) == __builtin_inff()) return Q7_RT(copysignf)(0.0f, x);
  return Q7_RT(copysignf)(x - t, x);
}

float Q7_RT(scalbnf)(float x, int e) {
  /* Scale in steps that stay exact until the final one, which rounds once. */
  if (e > 127) {
    x *= 0x1p127f;
    e -= 127;
    if (e > 127) {
      x *= 0x1p127f;
      e -= 127;
      if (e > 127) e = 127;
    }
  } else if (e < -126) {
    x *= 0x1p-102f; /* 2^-126 * 2^24: keeps the significand exact */
    e += 102;
    if (e < -126) {
      x *= 0x1p-102f;
      e += 102;
      if (e < -126) e = -126;
    }
  }
  return x * pow2f(e);
}

float Q7_RT(ldexpf)(float x, int e) { return Q7_RT(scalbnf)(x, e); }

float Q7_RT(frexpf)(float x, int *e) {
  uint32_t u = as_u32(x);
  int exp = (int)((u >> 23) & 0xff);
  if (exp == 0) {
    if ((u & 0x7fffffffu) == 0) {
      *e = 0;
      return x;
    }
    x *= 0x1p25f; /* normalise a subnormal */
    u = as_u32(x);
    exp = (int)((u >> 23) & 0xff) - 25;
  } else if (exp == 0xff) {
    *e = 0;
    return x;
  }
  *e = exp - 126;
  return as_f32((u & 0x807fffffu) | 0x3f000000u);
}

float Q7_RT(fminf)(float x, float y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x == y) return (as_u32(x) & 0x80000000u) ? x : y; /* fmin(-0, +0) = -0 */
  return x < y ? x : y;
}

float Q7_RT(fmaxf)(float x, float y) {
  if (x != x) return y;
  if (y != y) return x;
  if (x == y) return (as_u32(x) & 0x80000000u) ? y : x;
  return x > y ? x : y;
}

float Q7_RT(fdimf)(float x, float y) {
  if (x != x || y != y) return x + y;
  return x > y ? x - y : 0.0f;
}

float Q7_RT(nanf)(const char *tag) {
  (void)tag;
  return as_f32(0x7fc00000u);
}

/* fmod by long division of the significands; *odd receives the parity of
 * the truncated quotient (for remainder's ties). Exact. */
static float float_fmod(float x, float y, int *odd) {
  uint32_t ux = as_u32(x), uy = as_u32(y);
  uint32_t sx = ux & 0x80000000u;
  uint32_t ax = ux & 0x7fffffffu, ay = uy & 0x7fffffffu;
  *odd = 0;
  if (ax >= 0x7f800000u || ay > 0x7f800000u || ay == 0) return (x * y) / (x * y); /* NaN */
  if (ax < ay) return x; /* includes y = inf */
  int ex = (int)(ax >> 23), ey = (int)(ay >> 23);
  uint32_t mx = ax & 0x7fffffu, my = ay & 0x7fffffu;
  if (ex == 0) { /* normalise subnormals */
    while (!(mx & 0x800000u)) mx <<= 1, ex--;
    ex++;
  } else {
    mx |= 0x800000u;
  }
  if (ey == 0) {
    while (!(my & 0x800000u)) my <<= 1, ey--;
    ey++;
  } else {
    my |= 0x800000u;
  }
  for (int i = ex - ey; i >= 0; i--) {
    *odd = 0;
    if (mx >= my) {
      mx -= my;
      *odd = 1;
    }
    if (i) mx <<= 1;
  }
  /* |x mod y| = mx * 2^(ey - 150), below |y|. */
  if (mx == 0) return as_f32(sx);
  ex = ey;
  while (!(mx & 0x800000u)) mx <<= 1, ex--;
  if (ex <= 0) { /* subnormal: exact, the value is below |y| */
    mx >>= 1 - ex;
    ex = 0;
  }
  return as_f32(sx | ((uint32_t)ex << 23) | (mx & 0x7fffffu));
}

float Q7_RT(fmodf)(float x, float y) {
  int odd;
  return float_fmod(x, y, &odd);
}

/* x - n*y with n = x/y rounded to nearest, ties to even. */
float Q7_RT(remainderf)(float x, float y) {
  int odd;
  float r = float_fmod(x, y, &odd);
  float ar = Q7_RT(fabsf)(r), ay = Q7_RT(fabsf)(y);
  if (r != r || ay == __builtin_inff()) return r;
  /* 2|r| may overflow to inf, which still compares correctly; |y| - |r| is
   * exact (Sterbenz) whenever it is taken. */
  if (2.0f * ar > ay || (2.0f * ar == ay && odd)) return Q7_RT(copysignf)(ay - ar, -r);
  return r;
}
