/* Exact products and sums of doubles (no FMA): the building blocks of the
 * extra-precision steps in pow and hypot. Values are unevaluated sums
 * hi + lo with |lo| <= ulp(hi)/2. */
#ifndef Q7_SRC_DOUBLE_DOUBLE_H
#define Q7_SRC_DOUBLE_DOUBLE_H

#include "math_internal.h"

/* hi + lo = a + b exactly (any magnitudes). */
static inline void two_sum(double a, double b, double *hi, double *lo) {
  double s = a + b;
  double bb = s - a;
  *hi = s;
  *lo = (a - (s - bb)) + (b - bb);
}

/* Veltkamp split: a = h + l, each with at most 26 significant bits. */
static inline void split26(double a, double *h, double *l) {
  double c = 134217729.0 * a; /* 2^27 + 1 */
  double big = c - a;
  *h = c - big;
  *l = a - *h;
}

/* hi + lo = a * b exactly (Dekker), barring overflow. */
static inline void two_prod(double a, double b, double *hi, double *lo) {
  double ah, al, bh, bl;
  double p = a * b;
  split26(a, &ah, &al);
  split26(b, &bh, &bl);
  *hi = p;
  *lo = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

#endif
