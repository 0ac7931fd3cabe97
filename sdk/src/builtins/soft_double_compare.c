/* Software binary64 comparisons with libgcc's return conventions:
 *   __eqdf2/__nedf2: 0 when equal, nonzero otherwise (unordered: nonzero);
 *   __ltdf2/__ledf2: <0 / <=0 when a < b / a <= b (unordered: 1);
 *   __gtdf2/__gedf2: >0 / >=0 when a > b / a >= b (unordered: -1);
 *   __unorddf2: nonzero when either operand is NaN. */
#include "soft_double.h"

int Q7_RT(__eqdf2)(double a, double b);
int Q7_RT(__nedf2)(double a, double b);
int Q7_RT(__ltdf2)(double a, double b);
int Q7_RT(__ledf2)(double a, double b);
int Q7_RT(__gtdf2)(double a, double b);
int Q7_RT(__gedf2)(double a, double b);
int Q7_RT(__unorddf2)(double a, double b);

enum { LESS = -1, EQUAL = 0, GREATER = 1, UNORDERED = 2 };

static int compare(double x, double y) {
  uint64_t a = as_u64(x), b = as_u64(y);
  if (sd_is_nan(a) || sd_is_nan(b)) return UNORDERED;
  if (((a | b) & ~SD_SIGN) == 0) return EQUAL; /* +0 == -0 */
  if (a == b) return EQUAL;
  int a_negative = (a & SD_SIGN) != 0, b_negative = (b & SD_SIGN) != 0;
  if (a_negative != b_negative) return a_negative ? LESS : GREATER;
  /* Same sign: magnitudes order like the bit patterns; negation flips. */
  int magnitude_less = (a & ~SD_SIGN) < (b & ~SD_SIGN);
  return magnitude_less != a_negative ? LESS : GREATER;
}

int Q7_RT(__eqdf2)(double a, double b) { return compare(a, b) != EQUAL; }
int Q7_RT(__nedf2)(double a, double b) { return compare(a, b) != EQUAL; }
int Q7_RT(__ltdf2)(double a, double b) {
  int c = compare(a, b);
  return c == UNORDERED ? 1 : c;
}
int Q7_RT(__ledf2)(double a, double b) {
  int c = compare(a, b);
  return c == UNORDERED ? 1 : c;
}
int Q7_RT(__gtdf2)(double a, double b) {
  int c = compare(a, b);
  return c == UNORDERED ? -1 : c;
}
int Q7_RT(__gedf2)(double a, double b) {
  int c = compare(a, b);
  return c == UNORDERED ? -1 : c;
}
int Q7_RT(__unorddf2)(double a, double b) { return compare(a, b) == UNORDERED; }
