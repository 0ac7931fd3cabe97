// Arithmetic for c10::Half and c10::BFloat16: each operation converts to float,
// computes, and (for the reduced-type results) rounds back, as PyTorch does.
// Mixed operands with int/float/double get exact-match overloads so that
// expressions like `h * 2` or `b + 1.0f` are not ambiguous.
#ifndef Q7_C10_REDUCED_FLOAT_OPS_H
#define Q7_C10_REDUCED_FLOAT_OPS_H

#include <stdint.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

namespace c10 {

#define Q7_REDUCED_FLOAT_OPS(R)                                                            \
  inline R operator+(const R &a, const R &b) { return R(float(a) + float(b)); }            \
  inline R operator-(const R &a, const R &b) { return R(float(a) - float(b)); }            \
  inline R operator*(const R &a, const R &b) { return R(float(a) * float(b)); }            \
  inline R operator/(const R &a, const R &b) { return R(float(a) / float(b)); }            \
  inline R operator-(const R &a) { return R(-float(a)); }                                  \
  inline R &operator+=(R &a, const R &b) { return a = a + b; }                             \
  inline R &operator-=(R &a, const R &b) { return a = a - b; }                             \
  inline R &operator*=(R &a, const R &b) { return a = a * b; }                             \
  inline R &operator/=(R &a, const R &b) { return a = a / b; }                             \
  inline bool operator==(const R &a, const R &b) { return float(a) == float(b); }          \
  inline bool operator!=(const R &a, const R &b) { return float(a) != float(b); }          \
  inline bool operator<(const R &a, const R &b) { return float(a) < float(b); }            \
  inline bool operator<=(const R &a, const R &b) { return float(a) <= float(b); }          \
  inline bool operator>(const R &a, const R &b) { return float(a) > float(b); }            \
  inline bool operator>=(const R &a, const R &b) { return float(a) >= float(b); }          \
  Q7_REDUCED_FLOAT_MIXED(R, float, float, float)                                           \
  Q7_REDUCED_FLOAT_MIXED(R, double, double, double)                                        \
  Q7_REDUCED_FLOAT_MIXED(R, int, R, float)                                                 \
  Q7_REDUCED_FLOAT_MIXED(R, int64_t, R, float)

// R op T -> Result, computed in float (double for double operands); comparisons
// in C.
#define Q7_REDUCED_FLOAT_MIXED(R, T, Result, C)                                                          \
  inline Result operator+(const R &a, T b) { return Result((C)float(a) + (C)b); }          \
  inline Result operator-(const R &a, T b) { return Result((C)float(a) - (C)b); }          \
  inline Result operator*(const R &a, T b) { return Result((C)float(a) * (C)b); }          \
  inline Result operator/(const R &a, T b) { return Result((C)float(a) / (C)b); }          \
  inline Result operator+(T a, const R &b) { return Result((C)a + (C)float(b)); }          \
  inline Result operator-(T a, const R &b) { return Result((C)a - (C)float(b)); }          \
  inline Result operator*(T a, const R &b) { return Result((C)a * (C)float(b)); }          \
  inline Result operator/(T a, const R &b) { return Result((C)a / (C)float(b)); }          \
  inline bool operator<(const R &a, T b) { return (C)float(a) < (C)b; }                    \
  inline bool operator>(const R &a, T b) { return (C)float(a) > (C)b; }                    \
  inline bool operator<=(const R &a, T b) { return (C)float(a) <= (C)b; }                  \
  inline bool operator>=(const R &a, T b) { return (C)float(a) >= (C)b; }                  \
  inline bool operator==(const R &a, T b) { return (C)float(a) == (C)b; }                  \
  inline bool operator!=(const R &a, T b) { return (C)float(a) != (C)b; }                  \
  inline bool operator<(T a, const R &b) { return (C)a < (C)float(b); }                    \
  inline bool operator>(T a, const R &b) { return (C)a > (C)float(b); }                    \
  inline bool operator<=(T a, const R &b) { return (C)a <= (C)float(b); }                  \
  inline bool operator>=(T a, const R &b) { return (C)a >= (C)float(b); }                  \
  inline bool operator==(T a, const R &b) { return (C)a == (C)float(b); }                  \
  inline bool operator!=(T a, const R &b) { return (C)a != (C)float(b); }

Q7_REDUCED_FLOAT_OPS(Half)
Q7_REDUCED_FLOAT_OPS(BFloat16)

#undef Q7_REDUCED_FLOAT_OPS
#undef Q7_REDUCED_FLOAT_MIXED

}  // namespace c10

#endif
