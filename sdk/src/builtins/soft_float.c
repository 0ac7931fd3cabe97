/* Single-precision helpers the FPU lacks: division (there is no divide
 * instruction) and conversions between float and 64-bit integers. Division is
 * correctly rounded (nearest, ties to even) with subnormals; NaN handling as
 * in soft_double_arith.c. Float-to-integer conversions truncate, give 0 for
 * NaN and saturate out of range. */
#include <stdint.h>
#include "bits.h"
#include "builtin_names.h"

float Q7_RT(__divsf3)(float a, float b);
int64_t Q7_RT(__fixsfdi)(float a);
uint64_t Q7_RT(__fixunssfdi)(float a);
float Q7_RT(__floatdisf)(int64_t a);
float Q7_RT(__floatundisf)(uint64_t a);

#define SF_SIGN 0x80000000u
#define SF_INF 0x7f800000u
#define SF_QUIET 0x00400000u
#define SF_DEFAULT_NAN 0x7fc00000u

static int sf_is_nan(uint32_t x) { return (x & ~SF_SIGN) > SF_INF; }
static int sf_is_inf(uint32_t x) { return (x & ~SF_SIGN) == SF_INF; }
static int sf_is_zero(uint32_t x) { return (x & ~SF_SIGN) == 0; }

/* Finite nonzero float -> exp and a 24-bit significand with its leading one at
 * bit 23 (subnormals normalised, exp may drop below 1). */
static void sf_unpack(uint32_t x, int32_t *exp, uint32_t *sig) {
  int32_t e = (int32_t)((x >> 23) & 0xffu);
  uint32_t m = x & 0x7fffffu;
  if (e == 0) {
    int shift = __builtin_clz(m) - 8;
    *sig = m << shift;
    *exp = 1 - shift;
  } else {
    *sig = m | 0x800000u;
    *exp = e;
  }
}

/* Rounds sig (leading one at bit 30, value = sig * 2^(exp-157)) to a float. */
static uint32_t sf_round_pack(uint32_t sign, int32_t exp, uint32_t sig) {
  if (exp >= 0xff) return sign | SF_INF;
  if (exp < 1) {
    int shift = 1 - exp;
    sig = shift >= 32 ? (sig != 0) : (sig >> shift) | ((sig << (32 - shift)) != 0);
    exp = 1;
  }
  uint32_t rest = sig & 0x7fu;
  sig >>= 7;
  if (rest > 0x40u || (rest == 0x40u && (sig & 1u))) sig++;
  return sign | (((uint32_t)(exp - 1) << 23) + sig);
}

float Q7_RT(__divsf3)(float x, float y) {
  uint32_t a = as_u32(x), b = as_u32(y);
  uint32_t sign = (a ^ b) & SF_SIGN;
  if (sf_is_nan(a) || sf_is_nan(b)) return as_f32((sf_is_nan(a) ? a : b) | SF_QUIET);
  if (sf_is_inf(a)) return as_f32(sf_is_inf(b) ? SF_DEFAULT_NAN : sign | SF_INF);
  if (sf_is_inf(b)) return as_f32(sign);
  if (sf_is_zero(b)) return as_f32(sf_is_zero(a) ? SF_DEFAULT_NAN : sign | SF_INF);
  if (sf_is_zero(a)) return as_f32(sign);
  int32_t ea, eb;
  uint32_t ma, mb;
  sf_unpack(a, &ea, &ma);
  sf_unpack(b, &eb, &mb);
  /* 32 quotient bits of ma/mb, the first worth 2^0; remainder -> sticky. */
  uint32_t num = ma, quotient = 0;
  for (int i = 0; i < 32; i++) {
    quotient += quotient;
    if (num >= mb) {
      num -= mb;
      quotient |= 1u;
    }
    num += num;
  }
  /* quotient = (ma/mb) * 2^31 in [2^30, 2^32): bring the leading one to bit 30. */
  int32_t exp = ea - eb + 127;
  uint32_t sig;
  if (quotient & 0x80000000u) {
    sig = (quotient >> 1) | (quotient & 1u) | (num != 0);
  } else {
    sig = quotient | (num != 0);
    exp -= 1;
  }
  return as_f32(sf_round_pack(sign, exp, sig));
}

/* Truncated |a| as a 64-bit magnitude; *overflow when it needs > bits bits. */
static uint64_t sf_truncate(uint32_t x, int bits, int *overflow) {
  *overflow = 0;
  int32_t e = (int32_t)((x >> 23) & 0xffu);
  if (e < 127) return 0;
  int32_t unbiased = e - 127;
  if (unbiased >= bits) {
    *overflow = 1;
    return 0;
  }
  uint64_t m = (x & 0x7fffffu) | 0x800000u;
  return unbiased >= 23 ? m << (unbiased - 23) : m >> (23 - unbiased);
}

int64_t Q7_RT(__fixsfdi)(float a) {
  uint32_t x = as_u32(a);
  if (sf_is_nan(x)) return 0;
  int overflow;
  uint64_t m = sf_truncate(x, 64, &overflow);
  if (x & SF_SIGN) return overflow || m > 0x8000000000000000ull ? INT64_MIN : (int64_t)(0 - m);
  return overflow || m > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m;
}

uint64_t Q7_RT(__fixunssfdi)(float a) {
  uint32_t x = as_u32(a);
  if (sf_is_nan(x) || (x & SF_SIGN)) return 0;
  int overflow;
  uint64_t m = sf_truncate(x, 64, &overflow);
  return overflow ? UINT64_MAX : m;
}

static uint32_t sf_from_magnitude(uint32_t sign, uint64_t m) {
  if (m == 0) return sign;
  uint32_t hi = (uint32_t)(m >> 32), lo = (uint32_t)m;
  int lz = hi ? __builtin_clz(hi) : 32 + __builtin_clz(lo);
  uint64_t top = m << lz; /* leading one at bit 63 */
  /* Keep 31 bits (leading one at bit 30) plus sticky. */
  uint32_t sig = (uint32_t)(top >> 33) | ((top & ((1ull << 33) - 1)) != 0);
  /* m = sig * 2^(33-lz) = sig * 2^(exp-157) */
  return sf_round_pack(sign, 190 - lz, sig);
}

float Q7_RT(__floatdisf)(int64_t a) {
  uint32_t sign = a < 0 ? SF_SIGN : 0;
  return as_f32(sf_from_magnitude(sign, a < 0 ? 0 - (uint64_t)a : (uint64_t)a));
}

float Q7_RT(__floatundisf)(uint64_t a) { return as_f32(sf_from_magnitude(0, a)); }
