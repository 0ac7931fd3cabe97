/* erff and erfcf in single precision.
 *   |x| < 0.84375:        erf x = x + x (E(x^2) - 1)      (degree-7 fit)
 *   0.84375 <= |x| < 1.25: erf x = erf(1) + M(|x| - 1)     (degree-8 fit)
 *   1.25 <= |x| < 10.1:    erfc x = exp(-x^2 + T(1/x^2)) / x (degree-10/8 fits)
 * In the tail, x^2 is split (z = x with 12 bits) so that exp(-z^2) takes an
 * exact argument. */
#include "math_internal.h"
#include "math_tables.h"

/* erfc(x) for 1.25 <= x < 10.1. */
static float erfc_tail(float x) {
  float u = 1.0f / (x * x);
  float t = x < 2.857f ? POLYF(erfcf_tail_poly_a, u) : POLYF(erfcf_tail_poly_b, u);
  float z = as_f32(as_u32(x) & 0xfffff000u);
  /* -x^2 = -z^2 + (z - x)(z + x); -z^2 is exact. */
  return Q7_RT(expf)(-z * z) * (Q7_RT(expf)((z - x) * (z + x) + t) / x);
}

/* erf(x) - x for |x| < 0.84375: x (E(x^2) - 1), the fit being of E - 1 itself
 * so that it keeps its relative accuracy. */
static float small_tail(float x) {
  float z = x * x;
  return x * POLYF(erff_small_poly, z);
}

float Q7_RT(erff)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  if (ax == __builtin_inff()) return Q7_RT(copysignf)(1.0f, x);
  float r;
  if (ax < 0.84375f) {
    if (ax < 0x1p-14f) return x + x * erff_small_poly[7];
    return x + small_tail(x);
  }
  if (ax < 1.25f) {
    r = ERF1_F + POLYF(erff_mid_poly, ax - 1.0f);
  } else if (ax < 3.92f) {
    r = 1.0f - erfc_tail(ax);
  } else {
    r = 1.0f;
  }
  return Q7_RT(copysignf)(r, x);
}

float Q7_RT(erfcf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  if (ax == __builtin_inff()) return choose_f(x > 0, 0.0f, 2.0f);
  if (ax < 0.84375f) {
    if (ax < 0x1p-26f) return 1.0f - x;
    if (x < 0.25f) return 1.0f - (x + small_tail(x));
    return 0.5f - ((x - 0.5f) + small_tail(x)); /* x - 0.5 is exact */
  }
  if (ax < 1.25f) {
    float m = POLYF(erff_mid_poly, ax - 1.0f);
    return x > 0 ? (1.0f - ERF1_F) - m : 1.0f + (ERF1_F + m);
  }
  if (x > 0) return x < 10.1f ? erfc_tail(x) : 0.0f;
  return ax < 3.92f ? 2.0f - erfc_tail(ax) : 2.0f;
}
