// Vector (vector_size) code: a select between two constant vectors and a
// compare mask converted to float, the vector forms of the float-constant
// select that crashed clang-22 (Xtensa has no vector unit: the backend
// splits them into scalars, then hits the same defect).
#include "pattern.h"

typedef float float4 __attribute__((vector_size(16)));
typedef int int4 __attribute__((vector_size(16)));

PATTERN(vector_select) {
  const float4 one = {1.0f, 1.0f, 1.0f, 1.0f}, minus = {-1.0f, -2.0f, -3.0f, -4.0f};
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    float4 v;
    memcpy(&v, in + i, sizeof v);
    float4 s = v > 0.0f ? one : minus;
    int4 mask = v > 0.5f;  // -1 or 0 per lane
    float4 step = __builtin_convertvector(-mask, float4);
    float4 r = s + step * 8.0f;
    memcpy(out + i, &r, sizeof r);
  }
  for (; i < n; i++) out[i] = in[i] > 0.0f ? 1.0f : -1.0f;
}
