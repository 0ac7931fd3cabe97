/* Software binary64 add, subtract, multiply, divide and negate. Results are
 * correctly rounded (to nearest, ties to even), subnormals included; invalid
 * operations return the default NaN, NaN operands propagate (quieted). */
#include "soft_double.h"

double Q7_RT(__adddf3)(double a, double b);
double Q7_RT(__subdf3)(double a, double b);
double Q7_RT(__muldf3)(double a, double b);
double Q7_RT(__divdf3)(double a, double b);
double Q7_RT(__negdf2)(double a);

static uint64_t add_bits(uint64_t a, uint64_t b) {
  if (sd_is_nan(a) || sd_is_nan(b)) return sd_propagate_nan(a, b);
  if (sd_is_inf(a)) return sd_is_inf(b) && ((a ^ b) & SD_SIGN) ? SD_DEFAULT_NAN : a;
  if (sd_is_inf(b)) return b;
  if (sd_is_zero(a)) return sd_is_zero(b) ? (a & b) : b; /* -0 + -0 = -0, else +0 */
  if (sd_is_zero(b)) return a;

  /* Order by magnitude: |a| >= |b|. The bit patterns order like magnitudes. */
  if ((a & ~SD_SIGN) < (b & ~SD_SIGN)) {
    uint64_t t = a;
    a = b;
    b = t;
  }
  uint64_t sign = a & SD_SIGN;
  int32_t ea, eb;
  uint64_t sa, sb;
  sd_unpack(a, &ea, &sa);
  sd_unpack(b, &eb, &sb);
  /* One bit of headroom for the carry of an addition. The low ten bits of an
   * unpacked significand are zero, so these shifts lose nothing but what the
   * sticky bit records. */
  sa >>= 1;
  sb = sd_shift_right_sticky(sb >> 1, ea - eb);
  int32_t exp = ea + 1;
  uint64_t sum;
  if ((a ^ b) & SD_SIGN) {
    sum = sa - sb;
    if (sum == 0) return 0; /* exact cancellation gives +0 */
  } else {
    sum = sa + sb;
  }
  return sd_normalize_round_pack(sign, exp, sum);
}

double Q7_RT(__adddf3)(double a, double b) { return as_f64(add_bits(as_u64(a), as_u64(b))); }

double Q7_RT(__subdf3)(double a, double b) { return as_f64(add_bits(as_u64(a), as_u64(b) ^ SD_SIGN)); }

double Q7_RT(__negdf2)(double a) { return as_f64(as_u64(a) ^ SD_SIGN); }

/* 64 x 64 -> 128-bit product of two significands below 2^53. */
static void mul_53x53(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  uint32_t a0 = (uint32_t)a, a1 = (uint32_t)(a >> 32), b0 = (uint32_t)b, b1 = (uint32_t)(b >> 32);
  uint64_t p00 = (uint64_t)a0 * b0, p01 = (uint64_t)a0 * b1, p10 = (uint64_t)a1 * b0, p11 = (uint64_t)a1 * b1;
  uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
  *lo = (uint32_t)p00 | (mid << 32);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

double Q7_RT(__muldf3)(double x, double y) {
  uint64_t a = as_u64(x), b = as_u64(y);
  uint64_t sign = (a ^ b) & SD_SIGN;
  if (sd_is_nan(a) || sd_is_nan(b)) return as_f64(sd_propagate_nan(a, b));
  if (sd_is_inf(a) || sd_is_inf(b)) {
    if (sd_is_zero(a) || sd_is_zero(b)) return as_f64(SD_DEFAULT_NAN);
    return as_f64(sign | SD_INF);
  }
  if (sd_is_zero(a) || sd_is_zero(b)) return as_f64(sign);
  int32_t ea, eb;
  uint64_t sa, sb, hi, lo;
  sd_unpack(a, &ea, &sa);
  sd_unpack(b, &eb, &sb);
  mul_53x53(sa >> 10, sb >> 10, &hi, &lo); /* product in [2^104, 2^106) */
  /* Bit 105 of the product to bit 62 of sig: shift right by 43 with sticky. */
  uint64_t sig = (hi << 21) | (lo >> 43) | ((lo & ((1ull << 43) - 1)) != 0);
  return as_f64(sd_normalize_round_pack(sign, ea + eb - 1022, sig));
}

double Q7_RT(__divdf3)(double x, double y) {
  uint64_t a = as_u64(x), b = as_u64(y);
  uint64_t sign = (a ^ b) & SD_SIGN;
  if (sd_is_nan(a) || sd_is_nan(b)) return as_f64(sd_propagate_nan(a, b));
  if (sd_is_inf(a)) return as_f64(sd_is_inf(b) ? SD_DEFAULT_NAN : sign | SD_INF);
  if (sd_is_inf(b)) return as_f64(sign);
  if (sd_is_zero(b)) return as_f64(sd_is_zero(a) ? SD_DEFAULT_NAN : sign | SD_INF);
  if (sd_is_zero(a)) return as_f64(sign);
  int32_t ea, eb;
  uint64_t sa, sb;
  sd_unpack(a, &ea, &sa);
  sd_unpack(b, &eb, &sb);
  /* Long division of the 53-bit significands: 64 quotient bits, the first
   * worth 2^0, then a sticky bit for the remainder. */
  uint64_t num = sa >> 10, den = sb >> 10, quotient = 0;
  for (int i = 0; i < 64; i++) {
    quotient += quotient;
    if (num >= den) {
      num -= den;
      quotient |= 1;
    }
    num += num;
  }
  /* quotient = (sa/sb) * 2^63, in [2^62, 2^64). */
  uint64_t sig = sd_shift_right_sticky(quotient, 1) | (num != 0);
  return as_f64(sd_normalize_round_pack(sign, ea - eb + 1023, sig));
}
