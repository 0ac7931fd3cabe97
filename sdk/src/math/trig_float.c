/* sinf, cosf, tanf. Arguments beyond pi/4 are reduced exactly (trig_reduce.c)
 * to r = r_hi + r_lo in [-pi/4, pi/4]; then
 *   sin r = r + r^3 S(r^2),  cos r = 1 - r^2/2 + r^4 C(r^2)
 * (degree-3 fits, math_tables.h), with r_lo entering to first order. */
#include "math_internal.h"
#include "math_tables.h"

#define PIO4_BITS 0x3f490fdbu /* pi/4 rounded */

static float sin_kernel(float r, float r_lo) {
  float w = r * r;
  return r + (r_lo + r * w * POLYF(sinf_poly, w));
}

static float cos_kernel(float r, float r_lo) {
  float w = r * r;
  float hz = 0.5f * w;
  float v = 1.0f - hz;
  /* (1 - v) - hz recovers the rounding error of v = 1 - hz. */
  return v + (((1.0f - v) - hz) + (w * w * POLYF(cosf_poly, w) - r * r_lo));
}

/* n mod 4 and r for |x| > pi/4 (finite). */
static int reduce(float x, float *r, float *r_lo) {
  uint32_t u = as_u32(x);
  uint32_t m = (u & 0x7fffffu) | 0x800000u;
  int e = (int)((u >> 23) & 0xffu) - 150;
  int64_t fh;
  uint64_t fl;
  int n = q7_reduce_pio2(m, e, &fh, &fl);
  q7_reduced_to_float(fh, fl, r, r_lo);
  if (u & 0x80000000u) { /* x = -|x|: reduce |x| and mirror */
    *r = -*r;
    *r_lo = -*r_lo;
    n = (4 - n) & 3;
  }
  return n;
}

float Q7_RT(sinf)(float x) {
  uint32_t ax = as_u32(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) return x - x; /* NaN for inf and NaN */
  if (ax < 0x39800000u) return x;       /* |x| < 2^-12: sin x rounds to x */
  if (ax <= PIO4_BITS) return sin_kernel(x, 0.0f);
  float r, r_lo;
  switch (reduce(x, &r, &r_lo)) {
    case 0: return sin_kernel(r, r_lo);
    case 1: return cos_kernel(r, r_lo);
    case 2: return -sin_kernel(r, r_lo);
    default: return -cos_kernel(r, r_lo);
  }
}

float Q7_RT(cosf)(float x) {
  uint32_t ax = as_u32(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) return x - x;
  if (ax < 0x39800000u) return 1.0f;
  if (ax <= PIO4_BITS) return cos_kernel(x, 0.0f);
  float r, r_lo;
  switch (reduce(x, &r, &r_lo)) {
    case 0: return cos_kernel(r, r_lo);
    case 1: return -sin_kernel(r, r_lo);
    case 2: return -cos_kernel(r, r_lo);
    default: return sin_kernel(r, r_lo);
  }
}

float Q7_RT(tanf)(float x) {
  uint32_t ax = as_u32(x) & 0x7fffffffu;
  if (ax >= 0x7f800000u) return x - x;
  if (ax < 0x39800000u) return x;
  float r = x, r_lo = 0.0f;
  int n = 0;
  if (ax > PIO4_BITS) n = reduce(x, &r, &r_lo);
  float s = sin_kernel(r, r_lo), c = cos_kernel(r, r_lo);
  return (n & 1) ? -c / s : s / c;
}
