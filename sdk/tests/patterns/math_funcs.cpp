// <math.h> functions the SDK provides (sdk/README.md, "Math accuracy"): the
// test compares with the host's libm within each function's ulp bound, so
// each output element holds one function's result (index i % 8 picks it).
#include <math.h>

#include "pattern.h"

PATTERN(math_funcs) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    switch (i % 8) {
      case 0: out[i] = expf(x); break;
      case 1: out[i] = logf(x); break;
      case 2: out[i] = sinf(x); break;
      case 3: out[i] = tanhf(x); break;
      case 4: out[i] = sqrtf(x); break;
      case 5: out[i] = powf(fabsf(x), 0.75f); break;
      case 6: out[i] = atan2f(x, 1.5f); break;
      default: out[i] = floorf(x) + fmodf(x, 3.0f); break;
    }
  }
}
