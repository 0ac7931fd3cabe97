/* Bit-level conversions between binary32 and the two 16-bit float formats,
 * rounding to nearest, ties to even. Integer operations only, so they are exact
 * on any host and need no FPU support for 16-bit types. Shared by c10::Half,
 * c10::BFloat16 and the host numerics tests. */
#ifndef Q7_FLOAT16_H
#define Q7_FLOAT16_H

#include <stdint.h>

static inline uint32_t q7_float_to_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
}

static inline float q7_bits_to_float(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
}

/* binary32 -> binary16. NaNs stay NaNs (quieted, top payload bits kept);
 * overflow goes to infinity; results below the smallest subnormal round to 0. */
static inline uint16_t q7_f32_bits_to_f16_bits(uint32_t f) {
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t exp = (f >> 23) & 0xffu;
  uint32_t man = f & 0x7fffffu;
  if (exp == 0xffu) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
  if (exp >= 143u) return (uint16_t)(sign | 0x7c00u); /* >= 2^16: beyond the largest finite */
  if (exp >= 113u) {                                  /* normal half */
    uint32_t q = ((exp - 112u) << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (q & 1u))) q++; /* may carry into inf */
    return (uint16_t)(sign | q);
  }
  /* Subnormal half (or zero): value = sig * 2^(exp-150), unit 2^-24. */
  uint32_t sig = exp ? (man | 0x800000u) : man;
  uint32_t shift = 126u - (exp ? exp : 1u);
  if (shift > 24u) return (uint16_t)sign; /* below half the smallest subnormal */
  uint32_t q = sig >> shift;
  uint32_t rest = sig & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (q & 1u))) q++;
  return (uint16_t)(sign | q);
}

/* binary16 -> binary32, exact. */
static inline uint32_t q7_f16_bits_to_f32_bits(uint16_t h) {
  uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
  uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
  uint32_t man = (uint32_t)h & 0x3ffu;
  if (exp == 0x1fu) return sign | 0x7f800000u | (man << 13);
  if (exp == 0u) {
    if (man == 0u) return sign;
    exp = 113u; /* normalise: value = man * 2^-24 */
    while (!(man & 0x400u)) {
      man <<= 1;
      exp--;
    }
    return sign | (exp << 23) | ((man & 0x3ffu) << 13);
  }
  return sign | ((exp + 112u) << 23) | (man << 13);
}

/* binary32 -> bfloat16 (the top half of a binary32). NaN -> 0x7fc0. */
static inline uint16_t q7_f32_bits_to_bf16_bits(uint32_t f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

static inline uint32_t q7_bf16_bits_to_f32_bits(uint16_t b) { return (uint32_t)b << 16; }

#endif
