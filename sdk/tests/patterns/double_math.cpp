// double arithmetic (soft double in the SDK): + - * / sqrt, comparisons,
// conversions to and from float and integers, and a double accumulator.
#include <math.h>

#include "pattern.h"

static NOINLINE double poly(double x) { return ((x * 0.1 - 1.0 / 3.0) * x + 2.5) * x - 1e-300; }

PATTERN(double_math) {
  double acc = 0.0;
  for (long i = 0; i < n; i++) {
    double d = in[i];
    double p = poly(d);
    double q = d != 0.0 ? 1.0 / d : -0.0;
    double r = sqrt(fabs(d)) + (d > 1e10 ? 1e-10 : 3.0);
    acc += d * 1e-3;
    long long k = d > -1e15 && d < 1e15 ? (long long)d : 0;
    out[i] = (float)(p + q * r - (double)k + (i % 7 == 6 ? acc : 0.0));
  }
}
