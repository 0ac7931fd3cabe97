// Selects between two float constants: the sign function of issue 20, which
// crashed clang-22 ("Cannot select: TargetConstantPool:i32<[2 x float] ...>")
// until q7's IR legalisation. out[i] = x > 0 ? 1 : -1, so -1 for ±0 and NaN.
#include "pattern.h"

PATTERN(float_select) {
  for (long i = 0; i < n; i++) out[i] = in[i] > 0.0f ? 1.0f : -1.0f;
}
