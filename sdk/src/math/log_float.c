/* logf, log2f, log10f, log1pf in single precision.
 *
 * x = 2^k * (1 + f) with 1 + f in [sqrt(2)/2, sqrt(2)); with s = f / (2 + f),
 * log(1 + f) = 2 atanh(s) = f - hfsq + s (hfsq + R), hfsq = f^2/2 and
 * R = z L(z), z = s^2, L a degree-3 fit (math_tables.h). f is exact, so the
 * leading term carries no rounding error. */
#include "math_internal.h"
#include "math_tables.h"

#define LN2_HI 6.93145752e-01f /* 0x3f317200: k * LN2_HI is exact */
#define LN2_LO 1.4286067653e-06f
#define HALF_SQRT2_BITS 0x3f3504f3u

/* For finite x > 0: k and f with x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)). */
static float reduce(float x, int *k) {
  uint32_t u = as_u32(x);
  int scale = 0;
  if (u < 0x00800000u) { /* subnormal: scale into the normal range */
    u = as_u32(x * 0x1p25f);
    scale = -25;
  }
  /* Subtracting the bits of sqrt(2)/2 makes the exponent field step exactly
   * where the mantissa crosses sqrt(2). */
  uint32_t t = u - HALF_SQRT2_BITS;
  *k = ((int32_t)t >> 23) + scale;
  return as_f32((t & 0x007fffffu) + HALF_SQRT2_BITS) - 1.0f; /* exact (Sterbenz) */
}

/* log(1 + f) = f - (hfsq - tail), for |f| <= sqrt(2) - 1. */
static float tail(float f, float *hfsq) {
  float s = f / (2.0f + f);
  float z = s * s;
  *hfsq = 0.5f * f * f;
  return s * (*hfsq + z * POLYF(logf_poly, z));
}

/* Special values shared by the logarithms; returns nonzero when *result is set. */
static int special(float x, float *result) {
  uint32_t u = as_u32(x);
  if (u == 0 || u == 0x80000000u) {
    *result = -__builtin_inff();
    return 1;
  }
  if (u >= 0x7f800000u) { /* +inf, NaN, or negative */
    *result = (u == 0x7f800000u || x != x) ? x + x : __builtin_nanf("");
    return 1;
  }
  return 0;
}

float Q7_RT(logf)(float x) {
  float result;
  if (special(x, &result)) return result;
  int k;
  float f = reduce(x, &k);
  float hfsq, t = tail(f, &hfsq);
  float kf = (float)k;
  return kf * LN2_HI - ((hfsq - (t + kf * LN2_LO)) - f);
}

/* log2 and log10 need more than a float's worth of log(1 + f): hi keeps the
 * top 12 bits of f - hfsq (so products with the split constants stay exact)
 * and lo the rest. */
static void log1p_split(float f, float *hi, float *lo) {
  float hfsq, t = tail(f, &hfsq);
  float h = f - hfsq;
  h = as_f32(as_u32(h) & 0xfffff000u);
  *hi = h;
  *lo = ((f - h) - hfsq) + t;
}

float Q7_RT(log2f)(float x) {
  float result;
  if (special(x, &result)) return result;
  int k;
  float f = reduce(x, &k);
  float hi, lo;
  log1p_split(f, &hi, &lo);
  const float inv_ln2_hi = 1.4423828125e+00f; /* 0x3fb8a000: 12 bits */
  const float inv_ln2_lo = 3.1222839607e-04f; /* 1/ln2 - inv_ln2_hi */
  return ((lo + hi) * inv_ln2_lo + lo * inv_ln2_hi) + hi * inv_ln2_hi + (float)k;
}

float Q7_RT(log10f)(float x) {
  float result;
  if (special(x, &result)) return result;
  int k;
  float f = reduce(x, &k);
  float hi, lo;
  log1p_split(f, &hi, &lo);
  const float inv_ln10_hi = 4.3420410156e-01f; /* 0x3ede5000: 12 bits */
  const float inv_ln10_lo = 9.0380337497e-05f; /* 1/ln10 - inv_ln10_hi */
  const float log10_2_hi = 3.0102920532e-01f;  /* 0x3e9a2080: 17 bits, k * hi exact */
  const float log10_2_lo = 7.9034168721e-07f;  /* log10(2) - log10_2_hi */
  float kf = (float)k;
  return kf * log10_2_lo + ((lo + hi) * inv_ln10_lo + lo * inv_ln10_hi) + hi * inv_ln10_hi + kf * log10_2_hi;
}

float Q7_RT(log1pf)(float x) {
  uint32_t u = as_u32(x);
  if (x != x) return x + x;
  if (x <= -1.0f) return choose_f(x == -1.0f, -__builtin_inff(), __builtin_nanf(""));
  if (u == 0x7f800000u) return x;
  if (Q7_RT(fabsf)(x) < 0x1p-24f) return x;
  int k = 0;
  float f, c = 0.0f;
  if (x > -0.2928932f && x < 0.41421356f) {
    f = x; /* 1 + x already in [sqrt(2)/2, sqrt(2)): no reduction, f exact */
  } else {
    float y = 1.0f + x;
    f = reduce(y, &k);
    /* y is 1 + x rounded; c = (1 + x) - y exactly (each subtraction below
     * is exact by Sterbenz's lemma), and c / y corrects log(y). */
    c = y < 2.0f ? x - (y - 1.0f) : 1.0f - (y - x);
    c /= y;
    if (k >= 25) c = 0.0f; /* beyond float precision */
  }
  float hfsq, t = tail(f, &hfsq);
  float kf = (float)k;
  return kf * LN2_HI - ((hfsq - (t + (kf * LN2_LO + c))) - f);
}
