// Bit manipulation and integer arithmetic op code leans on: popcount, count
// leading/trailing zeros (NSA, or __clzsi2...), byte swaps, rotates,
// division and remainder by constants (multiply-high sequences), signed
// shifts and saturating clamps, 32- and 64-bit. Outputs bit patterns.
#include "pattern.h"

static NOINLINE uint32_t bits32(uint32_t u, int32_t s) {
  uint32_t r = (uint32_t)__builtin_popcount(u);
  r = r * 33 + (u ? (uint32_t)__builtin_clz(u) : 32u);
  r = r * 33 + (u ? (uint32_t)__builtin_ctz(u) : 32u);
  r ^= __builtin_bswap32(u);
  r += (u << 7) | (u >> 25);
  r ^= u / 10 + u % 7 + (uint32_t)(s / 3) + (uint32_t)(s % 5) + (uint32_t)(s >> 5);
  int32_t clamped = s < -1000 ? -1000 : s > 1000 ? 1000 : s;
  return r + (uint32_t)clamped;
}

static NOINLINE uint64_t bits64(uint64_t u, int64_t s) {
  uint64_t r = (uint64_t)__builtin_popcountll(u);
  r = r * 65 + (u ? (uint64_t)__builtin_clzll(u) : 64u);
  r = r * 65 + (u ? (uint64_t)__builtin_ctzll(u) : 64u);
  r ^= __builtin_bswap64(u);
  r += u / 1000003u + (uint64_t)(s / 7) + (uint64_t)(s % 11) + (uint64_t)(s >> 40);
  return r ^ (u < (uint64_t)s ? 1u : 2u);
}

PATTERN(bit_ops) {
  for (long i = 0; i < n; i++) {
    uint32_t u = bits_of(in[i]);
    uint32_t v = bits_of(in[(i + 7) % n]);
    uint64_t wide = ((uint64_t)v << 32) | u;
    uint64_t r64 = bits64(wide, (int64_t)wide);
    out[i] = store_bits(bits32(u, (int32_t)v) ^ (uint32_t)r64 ^ (uint32_t)(r64 >> 32));
  }
}
