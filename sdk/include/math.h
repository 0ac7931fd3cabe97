/* q7 SDK: <math.h>. Single-precision functions compute in float (the core has a
 * single-precision FPU); double-precision ones use the SDK's software double.
 * Accuracy (measured by crates/q7-build/tests/sdk_numerics.rs against the host
 * libm over the whole domain): see sdk/README.md. Rounding-mode and errno
 * behaviour: round to nearest only; errno is never set. */
#ifndef Q7_MATH_H
#define Q7_MATH_H

#include <q7/cdefs.h>

#define HUGE_VALF __builtin_huge_valf()
#define HUGE_VAL __builtin_huge_val()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4

typedef float float_t;
typedef double double_t;

Q7_BEGIN_C

/* Functions with both a float (f suffix) and a double version. */
#define Q7_MATH_1(name) float name##f(float x) Q7_NOEXCEPT; double name(double x) Q7_NOEXCEPT;
#define Q7_MATH_2(name) float name##f(float x, float y) Q7_NOEXCEPT; double name(double x, double y) Q7_NOEXCEPT;
#define Q7_MATH_FUNCTIONS                                                                          \
  Q7_MATH_1(exp) Q7_MATH_1(exp2) Q7_MATH_1(expm1) Q7_MATH_1(log) Q7_MATH_1(log2) Q7_MATH_1(log10)   \
  Q7_MATH_1(log1p) Q7_MATH_1(sqrt) Q7_MATH_1(cbrt) Q7_MATH_1(sin) Q7_MATH_1(cos) Q7_MATH_1(tan)     \
  Q7_MATH_1(asin) Q7_MATH_1(acos) Q7_MATH_1(atan) Q7_MATH_1(sinh) Q7_MATH_1(cosh) Q7_MATH_1(tanh)   \
  Q7_MATH_1(asinh) Q7_MATH_1(acosh) Q7_MATH_1(atanh)                                               \
  Q7_MATH_1(fabs) Q7_MATH_1(floor) Q7_MATH_1(ceil) Q7_MATH_1(trunc) Q7_MATH_1(round)                 \
  Q7_MATH_1(rint) Q7_MATH_1(nearbyint)                                                             \
  Q7_MATH_2(pow) Q7_MATH_2(atan2) Q7_MATH_2(fmod) Q7_MATH_2(remainder) Q7_MATH_2(fmin)              \
  Q7_MATH_2(fmax) Q7_MATH_2(fdim) Q7_MATH_2(copysign) Q7_MATH_2(hypot)
Q7_MATH_FUNCTIONS

/* Single precision only: the SDK has no double erf, erfc or fma (in C++ the
 * double overloads are deleted rather than silently computed in float). */
float erff(float x) Q7_NOEXCEPT;
float erfcf(float x) Q7_NOEXCEPT;
float fmaf(float x, float y, float z) Q7_NOEXCEPT;
float ldexpf(float x, int e) Q7_NOEXCEPT;
double ldexp(double x, int e) Q7_NOEXCEPT;
float scalbnf(float x, int e) Q7_NOEXCEPT;
double scalbn(double x, int e) Q7_NOEXCEPT;
float frexpf(float x, int *e) Q7_NOEXCEPT;
double frexp(double x, int *e) Q7_NOEXCEPT;
float modff(float x, float *ipart) Q7_NOEXCEPT;
double modf(double x, double *ipart) Q7_NOEXCEPT;
long lroundf(float x) Q7_NOEXCEPT;
long lround(double x) Q7_NOEXCEPT;
long lrintf(float x) Q7_NOEXCEPT;
long lrint(double x) Q7_NOEXCEPT;
float nanf(const char *tag) Q7_NOEXCEPT;
double nan(const char *tag) Q7_NOEXCEPT;

Q7_END_C

#undef Q7_MATH_1
#undef Q7_MATH_2

#ifndef __cplusplus
/* Classification macros (C). In C++ they are functions, below. */
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define isgreater(x, y) __builtin_isgreater(x, y)
#define isgreaterequal(x, y) __builtin_isgreaterequal(x, y)
#define isless(x, y) __builtin_isless(x, y)
#define islessequal(x, y) __builtin_islessequal(x, y)
#define isunordered(x, y) __builtin_isunordered(x, y)
#else
/* C++: float overloads of the math functions in the global namespace (as
 * libc++'s <math.h> provides), so that exp(x) on a float stays in float. */
#define Q7_MATH_1(name)                                                   \
  inline float name(float x) noexcept { return ::name##f(x); }
#define Q7_MATH_2(name)                                                   \
  inline float name(float x, float y) noexcept { return ::name##f(x, y); }
Q7_MATH_FUNCTIONS
#undef Q7_MATH_1
#undef Q7_MATH_2
inline float abs(float x) noexcept { return ::fabsf(x); }
inline double abs(double x) noexcept { return ::fabs(x); }
inline float fma(float x, float y, float z) noexcept { return ::fmaf(x, y, z); }
inline float erf(float x) noexcept { return ::erff(x); }
inline float erfc(float x) noexcept { return ::erfcf(x); }
double fma(double x, double y, double z) = delete;
double erf(double x) = delete;
double erfc(double x) = delete;
inline float ldexp(float x, int e) noexcept { return ::ldexpf(x, e); }
inline float scalbn(float x, int e) noexcept { return ::scalbnf(x, e); }
inline float frexp(float x, int *e) noexcept { return ::frexpf(x, e); }
inline float modf(float x, float *i) noexcept { return ::modff(x, i); }
inline long lround(float x) noexcept { return ::lroundf(x); }
inline long lrint(float x) noexcept { return ::lrintf(x); }
#define Q7_CLASSIFY(name, builtin)                               \
  inline bool name(float x) noexcept { return builtin(x); }      \
  inline bool name(double x) noexcept { return builtin(x); }
Q7_CLASSIFY(isnan, __builtin_isnan)
Q7_CLASSIFY(isinf, __builtin_isinf)
Q7_CLASSIFY(isfinite, __builtin_isfinite)
Q7_CLASSIFY(isnormal, __builtin_isnormal)
Q7_CLASSIFY(signbit, __builtin_signbit)
#undef Q7_CLASSIFY
inline int fpclassify(float x) noexcept {
  return __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x);
}
inline int fpclassify(double x) noexcept {
  return __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x);
}
inline bool isunordered(double x, double y) noexcept { return __builtin_isunordered(x, y); }
#endif

#undef Q7_MATH_FUNCTIONS

#endif
