// 64-bit integer multiply, divide, remainder and shifts (signed and
// unsigned, through __muldi3 __divdi3 __udivdi3 __moddi3 ... and inline
// sequences), on operands built from the input bits. Outputs bit patterns.
#include "pattern.h"

static NOINLINE uint64_t mix(uint64_t a, uint64_t b, unsigned s) {
  uint64_t m = a * b;
  uint64_t q = b ? a / b : 0;
  uint64_t r = b ? a % b : 0;
  return m ^ (q << 7) ^ (r >> 3) ^ (a << s) ^ (b >> s);
}

static NOINLINE int64_t smix(int64_t a, int64_t b, unsigned s) {
  int64_t q = (b == 0 || (b == -1 && a == INT64_MIN)) ? 0 : a / b;
  int64_t r = (b == 0 || b == -1) ? 0 : a % b;
  return q + r * 3 - (a >> s) + (int64_t)((uint64_t)b * 0x9e3779b97f4a7c15ull);
}

PATTERN(int64_ops) {
  for (long i = 0; i < n; i++) {
    uint32_t u = bits_of(in[i]);
    uint32_t v = bits_of(in[(i + 1) % n]);
    uint64_t a = ((uint64_t)u << 32) | v, b = (uint64_t)(v >> (u & 31)) * 2654435761u;
    unsigned s = (u ^ v) & 63;
    uint64_t m = mix(a, b, s) ^ (uint64_t)smix((int64_t)a, (int64_t)(b | (i & 1 ? 0x8000000000000000ull : 0)), s);
    out[i] = store_bits((uint32_t)(m ^ (m >> 32)));
  }
}
