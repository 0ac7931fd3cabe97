/* asinf, acosf, atanf, atan2f in single precision.
 *   asin x = x + x^3 P(x^2) for |x| <= 1/2 (degree-5 fit), and
 *   asin x = pi/2 - 2 asin(sqrt((1 - |x|)/2)) above;
 *   atan: |x| is mapped into [-7/16, 7/16] around atan(0), atan(1/2),
 *   atan(1), atan(3/2) or atan(inf), then atan t = t - t^3 Q(t^2). */
#include "math_internal.h"
#include "math_tables.h"

#define PIO2_HI 1.5707963705e+00f /* pi/2 rounded up */
#define PIO2_LO -4.3711388287e-08f /* pi/2 - PIO2_HI */
#define PIO4_HI 7.8539818525e-01f  /* PIO2_HI / 2 */
#define PI_HI 3.1415927410e+00f
#define PI_LO -8.7422776573e-08f

/* asin(t) - t for |t| <= 1/2. */
static float asin_tail(float t) {
  float z = t * t;
  return t * z * POLYF(asinf_poly, z);
}

float Q7_RT(asinf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (!(ax <= 1.0f)) return (x - x) / (x - x); /* |x| > 1 or NaN */
  if (ax == 1.0f) return x * PIO2_HI + x * PIO2_LO;
  if (ax < 0x1p-12f) return x;
  if (ax <= 0.5f) return x + asin_tail(x);
  /* asin|x| = pi/2 - 2 asin(s), s = sqrt((1 - |x|)/2). The subtraction
   * cancels up to a factor 4, so s is split as s_hi + c with s_hi^2 exact and
   * pi/2 as 2 PIO4_HI + PIO2_LO; PIO4_HI - 2 s_hi is then exact. */
  float z = 0.5f * (1.0f - ax); /* exact */
  float s = Q7_RT(sqrtf)(z);
  float s_hi = as_f32(as_u32(s) & 0xfffff000u);
  float c = (z - s_hi * s_hi) / (s + s_hi);
  float p = asin_tail(s);
  float q = PIO4_HI - 2.0f * s_hi;
  float r = q + (PIO4_HI - ((2.0f * p + 2.0f * c) - PIO2_LO));
  return Q7_RT(copysignf)(r, x);
}

float Q7_RT(acosf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (!(ax <= 1.0f)) return (x - x) / (x - x);
  if (x == 1.0f) return 0.0f;
  if (x == -1.0f) return PI_HI + PI_LO;
  if (ax <= 0.5f) return PIO2_HI - (x - (PIO2_LO - asin_tail(x)));
  if (x < 0) { /* pi - 2 asin(sqrt((1 + x)/2)) */
    float z = 0.5f * (1.0f + x);
    float s = Q7_RT(sqrtf)(z);
    float w = s + asin_tail(s);
    return 2.0f * (PIO2_HI - (w - PIO2_LO));
  }
  /* 2 asin(sqrt((1 - x)/2)), with s split so that s_hi^2 is exact. */
  float z = 0.5f * (1.0f - x);
  float s = Q7_RT(sqrtf)(z);
  float s_hi = as_f32(as_u32(s) & 0xfffff000u);
  float c = (z - s_hi * s_hi) / (s + s_hi); /* s - s_hi, accurately */
  return 2.0f * (s_hi + (asin_tail(s) + c));
}

static const float atan_hi[4] = {4.6364760399e-01f, 7.8539818525e-01f, 9.8279374838e-01f, 1.5707963705e+00f};
static const float atan_lo[4] = {5.0121586881e-09f, -2.1855694143e-08f, -2.5131424053e-08f, -4.3711388287e-08f};

float Q7_RT(atanf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  if (ax >= 0x1p26f) return Q7_RT(copysignf)(atan_hi[3] + atan_lo[3], x);
  if (ax < 0x1p-12f) return x;
  int id;
  float t;
  if (ax < 0.4375f) {
    id = -1;
    t = ax;
  } else if (ax < 0.6875f) {
    id = 0;
    t = (2.0f * ax - 1.0f) / (2.0f + ax);
  } else if (ax < 1.1875f) {
    id = 1;
    t = (ax - 1.0f) / (ax + 1.0f);
  } else if (ax < 2.4375f) {
    id = 2;
    t = (ax - 1.5f) / (1.0f + 1.5f * ax);
  } else {
    id = 3;
    t = -1.0f / ax;
  }
  float z = t * t;
  float tail = t * z * POLYF(atanf_poly, z); /* t - atan(t) */
  float r = id < 0 ? t - tail : atan_hi[id] - ((tail - atan_lo[id]) - t);
  return Q7_RT(copysignf)(r, x);
}

float Q7_RT(atan2f)(float y, float x) {
  if (x != x || y != y) return x + y;
  uint32_t uy = as_u32(y), ux = as_u32(x);
  int x_negative = (ux >> 31) != 0;
  float ay = Q7_RT(fabsf)(y), ax = Q7_RT(fabsf)(x);
  float pio2 = PIO2_HI + PIO2_LO, pi = PI_HI + PI_LO;
  float r;
  if (ay == 0.0f) {
    r = choose_f(x_negative, pi, 0.0f);
  } else if (ax == 0.0f) {
    r = pio2;
  } else if (ax == __builtin_inff()) {
    if (ay == __builtin_inff())
      r = choose_f(x_negative, 3.0f * 0.25f * pi, 0.25f * pi);
    else
      r = choose_f(x_negative, pi, 0.0f);
  } else if (ay == __builtin_inff()) {
    r = pio2;
  } else {
    int ey = (int)((uy >> 23) & 0xff), ex = (int)((ux >> 23) & 0xff);
    if (ey - ex > 26) {
      r = pio2; /* |y/x| beyond 2^26 */
    } else if (x_negative && ex - ey > 26) {
      r = pi; /* |y/x| below 2^-26, on the left */
    } else {
      float a = Q7_RT(atanf)(ay / ax);
      r = x_negative ? PI_HI - (a - PI_LO) : a;
    }
  }
  return Q7_RT(copysignf)(r, y);
}
