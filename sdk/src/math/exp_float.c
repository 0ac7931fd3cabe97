/* expf, exp2f, expm1f in single precision.
 *
 * exp: x = k*ln2 + r with |r| <= ln2/2 (Cody-Waite: k*LN2_HI is exact), then
 * e^x = 2^k * (1 + r + r^2 P(r)), P a degree-5 fit (math_tables.h). */
#include "math_internal.h"
#include "math_tables.h"

#define LN2_HI 6.93145752e-01f  /* 0x3f317200: 16 significant bits, k*LN2_HI exact */
#define LN2_LO 1.4286067653e-06f /* ln2 - LN2_HI */
#define INV_LN2 1.44269502e+00f
#define ROUND_MAGIC 12582912.0f /* 1.5 * 2^23: x + MAGIC - MAGIC rounds to an integer */

/* 2^k * y for y in [0.5, 4) and k in [-152, 129], rounding once. */
static float scale(float y, int k) {
  if (k > 127) return y * 2.0f * pow2f(k - 1);
  if (k < -125) return y * pow2f(k + 60) * 0x1p-60f; /* the last multiply rounds into subnormals */
  return y * pow2f(k);
}

float Q7_RT(expf)(float x) {
  if (x != x) return x + x;
  if (x > 88.7228394f) return __builtin_inff();
  if (x < -103.972084f) return 0.0f;
  if (Q7_RT(fabsf)(x) < 0x1p-25f) return 1.0f + x;
  float kf = (x * INV_LN2 + ROUND_MAGIC) - ROUND_MAGIC;
  int k = (int)kf;
  float hi = x - kf * LN2_HI; /* exact */
  float lo = kf * LN2_LO;
  float r = hi - lo;
  float q = r + r * r * POLYF(expf_poly, r); /* e^r - 1 */
  return scale(1.0f + q, k);
}

/* e^r - 1 for |r| <= ln2/2 with relative accuracy. */
static float expm1_reduced(float r) { return r + r * r * POLYF(expf_poly, r); }

float Q7_RT(expm1f)(float x) {
  if (x != x) return x + x;
  if (x > 88.7228394f) return __builtin_inff();
  if (x < -17.3286800f) return -1.0f; /* e^x below half an ulp of 1 */
  float ax = Q7_RT(fabsf)(x);
  if (ax < 0x1p-25f) return x;
  if (ax <= 0.34657359f) return expm1_reduced(x); /* k = 0: r = x exactly */
  float kf = (x * INV_LN2 + ROUND_MAGIC) - ROUND_MAGIC;
  int k = (int)kf;
  float hi = x - kf * LN2_HI;
  float lo = kf * LN2_LO;
  float r = hi - lo;
  float c = (hi - r) - lo; /* the part of hi - lo that r lost */
  float e = expm1_reduced(r);
  e = e + c * (1.0f + e); /* e^(r+c) - 1 ~ e + c e^r */
  /* 2^k (1 + e) - 1, arranged so that no step loses what the next needs. */
  if (k == -1) return 0.5f * (e - 1.0f);
  if (k < -1 || k > 56) return scale(1.0f + e, k) - 1.0f;
  if (k < 24) return scale((1.0f - pow2f(-k)) + e, k);
  return scale((e - pow2f(-k)) + 1.0f, k);
}

float Q7_RT(exp2f)(float x) {
  if (x != x) return x + x;
  if (x >= 128.0f) return __builtin_inff();
  if (x < -150.0f) return 0.0f;
  float kf = (x + ROUND_MAGIC) - ROUND_MAGIC; /* nearest integer */
  int k = (int)kf;
  float f = x - kf; /* exact, |f| <= 1/2 */
  return scale(1.0f + f * POLYF(exp2f_poly, f), k);
}
