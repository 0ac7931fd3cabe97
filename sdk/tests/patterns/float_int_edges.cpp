// float <-> int conversions at the edges. int -> float (i32, u32, i64, u64)
// round to nearest even on both sides. float -> int of NaN, +-inf and
// out-of-range values is undefined in C, so those go through the SDK's
// documented rule (truncate, NaN -> 0, saturate), written out here so the
// host computes the same; in-range values use plain casts.
#include <limits.h>

#include "pattern.h"

template <typename I>
static I saturating(float x, float lo, float hi_excl, I min, I max) {
  if (x != x) return 0;
  if (x < lo) return min;
  if (x >= hi_excl) return max;
  return (I)x;  // in range: a plain cast
}

PATTERN(float_int_edges) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    uint32_t u = bits_of(x);
    int32_t i32 = saturating<int32_t>(x, -2147483648.0f, 2147483648.0f, INT32_MIN, INT32_MAX);
    uint32_t u32 = saturating<uint32_t>(x, 0.0f, 4294967296.0f, 0, UINT32_MAX);
    int64_t i64 = saturating<int64_t>(x, -9223372036854775808.0f, 9223372036854775808.0f, INT64_MIN, INT64_MAX);
    uint64_t u64 = saturating<uint64_t>(x, 0.0f, 18446744073709551616.0f, 0, UINT64_MAX);
    uint64_t wide = ((uint64_t)u << 32) | (u * 2654435761u);
    float back = (float)(int32_t)u + (float)u + (float)(int64_t)wide + (float)wide;
    uint64_t h = (uint64_t)i32 ^ ((uint64_t)u32 << 1) ^ (uint64_t)i64 ^ (u64 >> 1);
    out[i] = (i & 1) ? store_bits((uint32_t)(h ^ (h >> 32))) : back;
  }
}
