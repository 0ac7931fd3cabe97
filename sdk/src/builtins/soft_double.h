/* Internals of the software double precision (IEEE 754 binary64, round to
 * nearest, ties to even; no exception flags): field helpers over bits.h and the
 * common rounding step. Only integer arithmetic is used.
 *
 * A finite value in flight is (sign, exp, sig) with value = sig * 2^(exp-1085),
 * sig normalised so that bit 62 is its leading one; bits below bit 10 are
 * rounding bits, bit 0 doubles as a sticky bit ("something nonzero was shifted
 * out"). For a normal binary64, exp is its biased exponent. */
#ifndef Q7_SRC_SOFT_DOUBLE_H
#define Q7_SRC_SOFT_DOUBLE_H

#include <stdint.h>
#include "bits.h"
#include "builtin_names.h"

#define SD_SIGN 0x8000000000000000ull
#define SD_EXP_MASK 0x7ff0000000000000ull
#define SD_FRAC_MASK 0x000fffffffffffffull
#define SD_QUIET 0x0008000000000000ull
#define SD_INF 0x7ff0000000000000ull
#define SD_DEFAULT_NAN 0x7ff8000000000000ull

static inline uint32_t sd_exp_field(uint64_t x) { return (uint32_t)(x >> 52) & 0x7ffu; }
static inline int sd_is_nan(uint64_t x) { return (x & ~SD_SIGN) > SD_INF; }
static inline int sd_is_inf(uint64_t x) { return (x & ~SD_SIGN) == SD_INF; }
static inline int sd_is_zero(uint64_t x) { return (x & ~SD_SIGN) == 0; }

static inline int sd_clz64(uint64_t x) {
  uint32_t hi = (uint32_t)(x >> 32), lo = (uint32_t)x;
  return hi ? __builtin_clz(hi) : lo ? 32 + __builtin_clz(lo) : 64;
}

/* x >> n, with a 1 in bit 0 if any 1 was shifted out. */
static inline uint64_t sd_shift_right_sticky(uint64_t x, int n) {
  if (n <= 0) return x;
  if (n >= 64) return x != 0;
  return (x >> n) | ((x << (64 - n)) != 0);
}

/* Unpacks a finite nonzero binary64 into exp and a significand normalised at bit 62. */
static inline void sd_unpack(uint64_t x, int32_t *exp, uint64_t *sig) {
  int32_t e = (int32_t)sd_exp_field(x);
  uint64_t frac = x & SD_FRAC_MASK;
  if (e == 0) { /* subnormal: scale up */
    int shift = sd_clz64(frac) - 1;
    *sig = frac << shift;
    *exp = 1 - (shift - 10);
  } else {
    *sig = (frac | 0x0010000000000000ull) << 10;
    *exp = e;
  }
}

/* Rounds (sign, exp, sig) to binary64: sig's leading one at bit 62. */
static inline uint64_t sd_round_pack(uint64_t sign, int32_t exp, uint64_t sig) {
  if (exp >= 0x7ff) return sign | SD_INF;
  if (exp < 1) {
    sig = sd_shift_right_sticky(sig, 1 - exp);
    exp = 1;
  }
  uint32_t rest = (uint32_t)sig & 0x3ffu;
  sig >>= 10;
  if (rest > 0x200u || (rest == 0x200u && (sig & 1u))) sig++;
  /* The implicit bit adds 1 to the exponent field; a rounding carry to 2^53
   * adds one more, which turns the largest finite value into infinity. */
  return sign | (((uint64_t)(uint32_t)(exp - 1) << 52) + sig);
}

/* Normalises a nonzero sig to bit 62 and rounds. */
static inline uint64_t sd_normalize_round_pack(uint64_t sign, int32_t exp, uint64_t sig) {
  int shift = sd_clz64(sig) - 1;
  if (shift > 0) return sd_round_pack(sign, exp - shift, sig << shift);
  return sd_round_pack(sign, exp - shift, sd_shift_right_sticky(sig, -shift));
}

/* The NaN an operation on NaN operands returns: the first NaN, made quiet. */
static inline uint64_t sd_propagate_nan(uint64_t a, uint64_t b) {
  return (sd_is_nan(a) ? a : b) | SD_QUIET;
}

#endif
