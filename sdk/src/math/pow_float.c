/* powf, hypotf, fmaf and cbrtf.
 *
 * powf evaluates exp(y * log(x)) in the SDK's double precision, whose error
 * (a few 2^-53 relative, times |y log x| <= ~150) is far below a float ulp, so
 * the result is the correctly rounded one except in rare near-halfway cases.
 * Common exponents (0, 1, 2, 1/2, -1) take exact single-precision paths. */
#include "math_internal.h"

static int is_integer(float y) { return Q7_RT(truncf)(y) == y; }
static int is_odd_integer(float y) {
  if (!is_integer(y) || Q7_RT(fabsf)(y) >= 0x1p24f) return 0;
  return ((int32_t)y & 1) != 0;
}

float Q7_RT(powf)(float x, float y) {
  if (y == 0.0f || x == 1.0f) return 1.0f; /* even for NaN */
  if (x != x || y != y) return x + y;
  if (y == 1.0f) return x;
  if (y == 2.0f) return x * x;
  if (y == -1.0f) return 1.0f / x;
  float ax = Q7_RT(fabsf)(x), ay = Q7_RT(fabsf)(y);
  int negative = x < 0.0f && is_odd_integer(y); /* result sign */
  if (ay == __builtin_inff()) {
    if (ax == 1.0f) return 1.0f;
    return choose_f((ax > 1.0f) == (y > 0.0f), __builtin_inff(), 0.0f);
  }
  if (ax == __builtin_inff() || x == 0.0f) {
    /* |x| = inf or 0: the result is 0 or inf, with the sign rule above. */
    int big = (ax == __builtin_inff()) == (y > 0.0f);
    float r = choose_f(big, __builtin_inff(), 0.0f);
    return choose_f(negative || (x == 0.0f && signbit(x) && is_odd_integer(y)), -r, r);
  }
  if (x < 0.0f && !is_integer(y)) return __builtin_nanf("");
  if (y == 0.5f) return Q7_RT(sqrtf)(x); /* x >= 0 here */
  if (ax == 1.0f) return choose_f(negative, -1.0f, 1.0f); /* x = -1 with an integer y */
  double r = Q7_RT(exp)((double)y * Q7_RT(log)((double)ax));
  float f = (float)r;
  return negative ? -f : f;
}

/* sqrt(x^2 + y^2) in double: exact squares and sum up to one double rounding,
 * then one more to float. */
float Q7_RT(hypotf)(float x, float y) {
  float ax = Q7_RT(fabsf)(x), ay = Q7_RT(fabsf)(y);
  if (ax == __builtin_inff() || ay == __builtin_inff()) return __builtin_inff();
  if (x != x || y != y) return x + y;
  double dx = ax, dy = ay;
  return (float)Q7_RT(sqrt)(dx * dx + dy * dy);
}

/* x*y + z rounded once: the product is exact in double; the sum is made
 * "round to odd" in double (sticky in the last bit), so that the final
 * rounding to float is the correct one. */
float Q7_RT(fmaf)(float x, float y, float z) {
  double p = (double)x * (double)y;
  double dz = z;
  double s = p + dz;
  if (s != s || s == __builtin_inf() || s == -__builtin_inf() || s == 0.0) return (float)s;
  /* The exact error of the sum (TwoSum). */
  double pp = s - dz;
  double zz = s - pp;
  double err = (p - pp) + (dz - zz);
  uint64_t bits = as_u64(s);
  if (err != 0.0 && !(bits & 1)) {
    /* Move s one ulp towards the exact sum: that makes its last bit 1 while
     * keeping it on the same side of every float rounding boundary. */
    if ((err > 0.0) == (s > 0.0))
      bits += 1;
    else
      bits -= 1;
    s = as_f64(bits);
  }
  return (float)s;
}

/* Cube root: a bit-level estimate refined by Newton steps in double. */
float Q7_RT(cbrtf)(float x) {
  uint32_t u = as_u32(x);
  uint32_t sign = u & 0x80000000u, ax = u & 0x7fffffffu;
  if (ax >= 0x7f800000u || ax == 0) return x + x; /* inf, NaN, +-0 */
  double d = Q7_RT(fabsf)(x);
  int scale = 0;
  if (ax < 0x00800000u) { /* subnormal */
    d *= 0x1p54;
    scale = -18;
  }
  /* Estimate: divide the exponent by 3 on the bit pattern. */
  uint32_t eb = as_u32((float)d);
  double t = as_f32(eb / 3 + 0x2a5137a0u);
  for (int i = 0; i < 3; i++) t = t - (t * t * t - d) / (3.0 * t * t);
  float r = (float)(t * pow2(scale));
  return sign ? -r : r;
}
