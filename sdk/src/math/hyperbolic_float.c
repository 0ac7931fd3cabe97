/* sinhf, coshf, tanhf, asinhf, acoshf, atanhf in single precision, from expf,
 * expm1f, logf and log1pf with the usual rearrangements that avoid
 * cancellation near zero and overflow near the top of the range. */
#include "math_internal.h"

#define LN2 6.9314718246e-01f
#define OVERFLOW_THRESHOLD 88.7228394f /* largest x with e^x finite */
#define SINH_LIMIT 89.4159851f          /* largest x with e^x / 2 finite */

float Q7_RT(sinhf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x || ax == __builtin_inff()) return x + x;
  float h = Q7_RT(copysignf)(0.5f, x);
  if (ax < 0x1p-12f) return x;
  if (ax < 9.0f) {
    float t = Q7_RT(expm1f)(ax);
    if (ax < 1.0f) return h * (2.0f * t - t * t / (t + 1.0f));
    return h * (t + t / (t + 1.0f));
  }
  if (ax < OVERFLOW_THRESHOLD) return h * Q7_RT(expf)(ax);
  if (ax <= SINH_LIMIT) {
    float w = Q7_RT(expf)(0.5f * ax);
    return (h * w) * w;
  }
  return x * 0x1p127f * 0x1p127f; /* overflow to +-inf */
}

float Q7_RT(coshf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  if (ax == __builtin_inff()) return ax;
  if (ax < 0x1p-12f) return 1.0f;
  if (ax < 0.34657359f) {
    float t = Q7_RT(expm1f)(ax);
    float w = 1.0f + t;
    return 1.0f + (t * t) / (w + w);
  }
  if (ax < 9.0f) {
    float t = Q7_RT(expf)(ax);
    return 0.5f * t + 0.5f / t;
  }
  if (ax < OVERFLOW_THRESHOLD) return 0.5f * Q7_RT(expf)(ax);
  if (ax <= SINH_LIMIT) {
    float w = Q7_RT(expf)(0.5f * ax);
    return (0.5f * w) * w;
  }
  return __builtin_inff();
}

float Q7_RT(tanhf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  float z;
  if (ax >= 9.0f) {
    z = 1.0f; /* tanh rounds to 1 */
  } else if (ax < 0x1p-12f) {
    return x;
  } else if (ax >= 1.0f) {
    float t = Q7_RT(expm1f)(2.0f * ax);
    z = 1.0f - 2.0f / (t + 2.0f);
  } else {
    float t = Q7_RT(expm1f)(-2.0f * ax);
    z = -t / (t + 2.0f);
  }
  return Q7_RT(copysignf)(z, x);
}

float Q7_RT(asinhf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x || ax == __builtin_inff()) return x + x;
  if (ax < 0x1p-12f) return x;
  float r;
  if (ax > 0x1p12f) {
    r = Q7_RT(logf)(ax) + LN2;
  } else if (ax > 2.0f) {
    r = Q7_RT(logf)(2.0f * ax + 1.0f / (Q7_RT(sqrtf)(ax * ax + 1.0f) + ax));
  } else {
    float t = ax * ax;
    r = Q7_RT(log1pf)(ax + t / (1.0f + Q7_RT(sqrtf)(1.0f + t)));
  }
  return Q7_RT(copysignf)(r, x);
}

float Q7_RT(acoshf)(float x) {
  if (x != x) return x + x;
  if (x < 1.0f) return (x - x) / (x - x);
  if (x == __builtin_inff()) return x;
  if (x >= 0x1p12f) return Q7_RT(logf)(x) + LN2;
  if (x > 2.0f) return Q7_RT(logf)(2.0f * x - 1.0f / (x + Q7_RT(sqrtf)(x * x - 1.0f)));
  float t = x - 1.0f;
  return Q7_RT(log1pf)(t + Q7_RT(sqrtf)(2.0f * t + t * t));
}

float Q7_RT(atanhf)(float x) {
  float ax = Q7_RT(fabsf)(x);
  if (x != x) return x + x;
  if (ax > 1.0f) return (x - x) / (x - x);
  if (ax == 1.0f) return x / 0.0f;
  if (ax < 0x1p-12f) return x;
  float r;
  if (ax < 0.5f) {
    float t = ax + ax;
    r = 0.5f * Q7_RT(log1pf)(t + t * ax / (1.0f - ax));
  } else {
    r = 0.5f * Q7_RT(log1pf)((ax + ax) / (1.0f - ax));
  }
  return Q7_RT(copysignf)(r, x);
}
