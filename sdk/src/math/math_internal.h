/* Internals of the SDK math library: bit access, polynomial evaluation and
 * the prototypes (under their Q7_RT names, see builtin_names.h) that the
 * functions use to call each other. */
#ifndef Q7_SRC_MATH_INTERNAL_H
#define Q7_SRC_MATH_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include "../builtins/bits.h"
#include "../builtins/builtin_names.h"


/* c ? a : b for floats, without a select instruction the compiler could fold
 * into a select between two float constants: clang-22's Xtensa backend cannot
 * lower that ("Cannot select: TargetConstantPool [2 x float]"). The empty asm
 * hides the mask. Use it wherever both alternatives may be constants. */
static inline float choose_f(int c, float a, float b) {
  uint32_t mask = 0u - (uint32_t)(c != 0);
  __asm__("" : "+r"(mask));
  return as_f32((as_u32(a) & mask) | (as_u32(b) & ~mask));
}

/* Horner evaluation, coefficients highest degree first. */
static inline float polyf(const float *c, int n, float x) {
  float r = c[0];
  for (int i = 1; i < n; i++) r = r * x + c[i];
  return r;
}
static inline double poly(const double *c, int n, double x) {
  double r = c[0];
  for (int i = 1; i < n; i++) r = r * x + c[i];
  return r;
}
#define POLYF(table, x) polyf(table, (int)(sizeof table / sizeof table[0]), x)
#define POLY(table, x) poly(table, (int)(sizeof table / sizeof table[0]), x)

/* 2^k as a float / double, for k in the normal range. */
static inline float pow2f(int k) { return as_f32((uint32_t)(k + 127) << 23); }
static inline double pow2(int k) { return as_f64((uint64_t)(k + 1023) << 52); }

/* Payne-Hanek reduction (trig_reduce.c): x = n * pi/2 + r for finite x with
 * |x| >= pi/4, where x = m * 2^e (m an integer below 2^53). Returns n mod 4;
 * r = fraction * pi/2, the fraction in [-1/2, 1/2) as a signed 128-bit fixed
 * point number (hi:lo, units of 2^-127). */
int q7_reduce_pio2(uint64_t m, int e, int64_t *frac_hi, uint64_t *frac_lo);
/* e^(hi + lo) (exp_double.c). */
double q7_exp_dd(double hi, double lo);

/* r = fraction * pi/2 as an unevaluated sum hi + lo. */
void q7_reduced_to_double(int64_t frac_hi, uint64_t frac_lo, double *r_hi, double *r_lo);
void q7_reduced_to_float(int64_t frac_hi, uint64_t frac_lo, float *r_hi, float *r_lo);

#define Q7_F1(name) float Q7_RT(name)(float x);
#define Q7_D1(name) double Q7_RT(name)(double x);
Q7_F1(expf) Q7_F1(exp2f) Q7_F1(expm1f) Q7_F1(logf) Q7_F1(log2f) Q7_F1(log10f) Q7_F1(log1pf)
Q7_F1(sqrtf) Q7_F1(cbrtf) Q7_F1(sinf) Q7_F1(cosf) Q7_F1(tanf) Q7_F1(asinf) Q7_F1(acosf) Q7_F1(atanf)
Q7_F1(sinhf) Q7_F1(coshf) Q7_F1(tanhf) Q7_F1(asinhf) Q7_F1(acoshf) Q7_F1(atanhf) Q7_F1(erff) Q7_F1(erfcf)
Q7_F1(fabsf) Q7_F1(floorf) Q7_F1(ceilf) Q7_F1(truncf) Q7_F1(roundf) Q7_F1(rintf) Q7_F1(nearbyintf)
Q7_D1(exp) Q7_D1(exp2) Q7_D1(expm1) Q7_D1(log) Q7_D1(log2) Q7_D1(log10) Q7_D1(log1p) Q7_D1(sqrt)
Q7_D1(sin) Q7_D1(cos) Q7_D1(tan) Q7_D1(asin) Q7_D1(acos) Q7_D1(atan) Q7_D1(sinh) Q7_D1(cosh) Q7_D1(tanh)
Q7_D1(fabs) Q7_D1(floor) Q7_D1(ceil) Q7_D1(trunc) Q7_D1(round) Q7_D1(rint) Q7_D1(nearbyint)
#undef Q7_F1
#undef Q7_D1
float Q7_RT(powf)(float x, float y);
float Q7_RT(atan2f)(float y, float x);
float Q7_RT(fmodf)(float x, float y);
float Q7_RT(remainderf)(float x, float y);
float Q7_RT(fminf)(float x, float y);
float Q7_RT(fmaxf)(float x, float y);
float Q7_RT(fdimf)(float x, float y);
float Q7_RT(copysignf)(float x, float y);
float Q7_RT(hypotf)(float x, float y);
float Q7_RT(fmaf)(float x, float y, float z);
float Q7_RT(ldexpf)(float x, int e);
float Q7_RT(scalbnf)(float x, int e);
float Q7_RT(frexpf)(float x, int *e);
float Q7_RT(modff)(float x, float *ipart);
long Q7_RT(lroundf)(float x);
long Q7_RT(lrintf)(float x);
float Q7_RT(nanf)(const char *tag);
double Q7_RT(pow)(double x, double y);
double Q7_RT(atan2)(double y, double x);
double Q7_RT(fmod)(double x, double y);
double Q7_RT(remainder)(double x, double y);
double Q7_RT(fmin)(double x, double y);
double Q7_RT(fmax)(double x, double y);
double Q7_RT(fdim)(double x, double y);
double Q7_RT(copysign)(double x, double y);
double Q7_RT(hypot)(double x, double y);
double Q7_RT(ldexp)(double x, int e);
double Q7_RT(scalbn)(double x, int e);
double Q7_RT(frexp)(double x, int *e);
double Q7_RT(modf)(double x, double *ipart);
long Q7_RT(lround)(double x);
long Q7_RT(lrint)(double x);
double Q7_RT(nan)(const char *tag);

#endif
