/* Conversions between software binary64 and float / integers. Float and
 * integer results from binary64 round to nearest-even (to float) or truncate
 * toward zero (to integers). Integer conversions of NaN give 0; out-of-range
 * values saturate to the integer type's limits. */
#include "soft_double.h"

double Q7_RT(__extendsfdf2)(float a);
float Q7_RT(__truncdfsf2)(double a);
int32_t Q7_RT(__fixdfsi)(double a);
uint32_t Q7_RT(__fixunsdfsi)(double a);
int64_t Q7_RT(__fixdfdi)(double a);
uint64_t Q7_RT(__fixunsdfdi)(double a);
double Q7_RT(__floatsidf)(int32_t a);
double Q7_RT(__floatunsidf)(uint32_t a);
double Q7_RT(__floatdidf)(int64_t a);
double Q7_RT(__floatundidf)(uint64_t a);

double Q7_RT(__extendsfdf2)(float a) {
  uint32_t f = as_u32(a);
  uint64_t sign = (uint64_t)(f & 0x80000000u) << 32;
  uint32_t exp = (f >> 23) & 0xffu;
  uint64_t man = f & 0x7fffffu;
  if (exp == 0xffu) return as_f64(sign | SD_INF | (man << 29) | (man ? SD_QUIET : 0));
  if (exp == 0) {
    if (man == 0) return as_f64(sign);
    int shift = __builtin_clz((uint32_t)man) - 8; /* bring the leading one to bit 23 */
    man = (man << shift) & 0x7fffffu;
    exp = 1u - (uint32_t)shift;
    return as_f64(sign | ((uint64_t)(exp + 896u) << 52) | (man << 29));
  }
  return as_f64(sign | ((uint64_t)(exp + 896u) << 52) | (man << 29));
}

float Q7_RT(__truncdfsf2)(double a) {
  uint64_t x = as_u64(a);
  uint32_t sign = (uint32_t)(x >> 32) & 0x80000000u;
  if (sd_is_nan(x)) return as_f32(sign | 0x7fc00000u | (uint32_t)((x & SD_FRAC_MASK) >> 29));
  if (sd_is_inf(x)) return as_f32(sign | 0x7f800000u);
  if (sd_is_zero(x)) return as_f32(sign);
  int32_t exp;
  uint64_t sig;
  sd_unpack(x, &exp, &sig);
  int32_t fexp = exp - 1023 + 127; /* sig's bit 62 is the float's implicit bit */
  if (fexp >= 0xff) return as_f32(sign | 0x7f800000u);
  if (fexp < 1) {
    sig = sd_shift_right_sticky(sig, 1 - fexp);
    fexp = 1;
  }
  /* Keep 24 bits (62..39); 39 rounding bits; the sticky bit 0 is included. */
  uint64_t rest = sig & ((1ull << 39) - 1);
  uint32_t m = (uint32_t)(sig >> 39);
  uint64_t half = 1ull << 38;
  if (rest > half || (rest == half && (m & 1u))) m++;
  return as_f32(sign | (((uint32_t)(fexp - 1) << 23) + m));
}

/* Truncates a finite binary64 toward zero into a 64-bit magnitude; *overflow
 * is set when the magnitude needs more than `bits` bits. */
static uint64_t truncate_magnitude(uint64_t x, int bits, int *overflow) {
  *overflow = 0;
  uint32_t e = sd_exp_field(x);
  if (e < 1023) return 0; /* |x| < 1 */
  int32_t unbiased = (int32_t)e - 1023;
  if (unbiased >= bits) {
    *overflow = 1;
    return 0;
  }
  uint64_t m = (x & SD_FRAC_MASK) | 0x0010000000000000ull;
  return unbiased >= 52 ? m << (unbiased - 52) : m >> (52 - unbiased);
}

int64_t Q7_RT(__fixdfdi)(double a) {
  uint64_t x = as_u64(a);
  if (sd_is_nan(x)) return 0;
  int overflow;
  uint64_t m = truncate_magnitude(x, 64, &overflow);
  if (x & SD_SIGN) {
    if (overflow || m > 0x8000000000000000ull) return INT64_MIN;
    return (int64_t)(0 - m);
  }
  if (overflow || m > (uint64_t)INT64_MAX) return INT64_MAX;
  return (int64_t)m;
}

uint64_t Q7_RT(__fixunsdfdi)(double a) {
  uint64_t x = as_u64(a);
  if (sd_is_nan(x)) return 0;
  int overflow;
  uint64_t m = truncate_magnitude(x, 64, &overflow);
  if (x & SD_SIGN) return 0;
  return overflow ? UINT64_MAX : m;
}

int32_t Q7_RT(__fixdfsi)(double a) {
  int64_t v = Q7_RT(__fixdfdi)(a);
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

uint32_t Q7_RT(__fixunsdfsi)(double a) {
  uint64_t v = Q7_RT(__fixunsdfdi)(a);
  return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Rounds an unsigned 64-bit magnitude to binary64. */
static uint64_t from_magnitude(uint64_t sign, uint64_t m) {
  if (m == 0) return sign;
  int shift = sd_clz64(m);
  /* Leading one to bit 62: sig = m * 2^(shift-1), so m = sig * 2^(1086-shift-1085). */
  uint64_t sig = sd_shift_right_sticky(m << shift, 1);
  return sd_round_pack(sign, 1086 - shift, sig);
}

double Q7_RT(__floatdidf)(int64_t a) {
  uint64_t sign = a < 0 ? SD_SIGN : 0;
  uint64_t m = a < 0 ? 0 - (uint64_t)a : (uint64_t)a;
  return as_f64(from_magnitude(sign, m));
}

double Q7_RT(__floatundidf)(uint64_t a) { return as_f64(from_magnitude(0, a)); }
double Q7_RT(__floatsidf)(int32_t a) { return Q7_RT(__floatdidf)(a); }
double Q7_RT(__floatunsidf)(uint32_t a) { return Q7_RT(__floatundidf)(a); }
