// bool <-> float: comparisons stored as bools, bools converted back to float
// (uitofp i1), logical operators on float truthiness, and bool arrays.
#include "pattern.h"

static NOINLINE bool is_small(float x) { return x > -1.0f && x < 1.0f; }

PATTERN(bool_float) {
  bool seen_nan = false;
  for (long i = 0; i < n; i++) {
    float x = in[i];
    bool truthy = x;  // x != 0, true for NaN
    bool flags[3] = {truthy, is_small(x), x != x};
    seen_nan = seen_nan || flags[2];
    float f = (float)flags[0] + 2.0f * (float)flags[1] + 4.0f * (float)flags[2];
    out[i] = f + (float)!truthy * 8.0f + (seen_nan ? 16.0f : 0.0f);
  }
}
