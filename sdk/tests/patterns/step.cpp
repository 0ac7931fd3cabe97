// Step functions and masks: `(float)(x > 0.5f)` (uitofp of an i1) and the
// signed form `(float)-(x > 0)` (sitofp of an i1), both of which crashed
// clang-22, plus constant selects that are not +-1.
#include "pattern.h"

static NOINLINE float signed_step(float x) { return (float)-(int)(x > 0.0f); }

PATTERN(step) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    float s = (float)(x > 0.5f);
    float t = x < -2.0f ? 0.25f : 3.0f;
    out[i] = s * 4.0f + signed_step(x) * 2.0f + (x == x ? t : -0.0f);
  }
}
