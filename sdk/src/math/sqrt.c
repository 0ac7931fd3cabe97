/* Correctly rounded square roots by the digit-by-digit integer method: the
 * significand (scaled to an even exponent) is square-rooted bit by bit with
 * one extra bit and the remainder as sticky information. */
#include "math_internal.h"

/* floor(sqrt(n)) for n < 2^64, and whether the square root is inexact. */
static uint64_t isqrt64(uint64_t n, int *inexact) {
  uint64_t root = 0, bit = 1ull << 62;
  while (bit > n) bit >>= 2;
  while (bit) {
    if (n >= root + bit) {
      n -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  *inexact = n != 0;
  return root;
}

float Q7_RT(sqrtf)(float x) {
  uint32_t u = as_u32(x);
  if (u == 0 || u == 0x80000000u || u == 0x7f800000u) return x; /* +-0, +inf */
  if (u > 0x7f800000u) return (x - x) / (x - x);                /* negative or NaN */
  int e = (int)(u >> 23);
  uint32_t m = u & 0x7fffffu;
  if (e == 0) { /* normalise a subnormal */
    while (!(m & 0x800000u)) m <<= 1, e--;
    e++;
  } else {
    m |= 0x800000u;
  }
  /* x = m * 2^(e-150); make the exponent even. */
  int p = e - 150;
  if (p & 1) {
    m <<= 1;
    p -= 1;
  }
  /* m * 2^38 is in [2^61, 2^63): its root has 31..32 bits; keep 25 (24 + a
   * rounding bit). */
  int inexact;
  uint64_t root = isqrt64((uint64_t)m << 38, &inexact); /* sqrt(x) = root * 2^(p/2 - 19) */
  int shift = 0;
  while ((root >> shift) >= (1u << 25)) shift++;
  int sticky = inexact || (root & ((1ull << shift) - 1)) != 0;
  uint32_t r = (uint32_t)(root >> shift); /* 25 bits */
  int exp = p / 2 - 19 + shift;           /* sqrt(x) ~ r * 2^exp */
  uint32_t half = r & 1u;
  r >>= 1;
  exp += 1;
  if (half && (sticky || (r & 1u))) r++;
  if (r == (1u << 24)) {
    r >>= 1;
    exp++;
  }
  /* value = r * 2^exp with r in [2^23, 2^24): biased exponent exp + 23 + 127 */
  return as_f32(((uint32_t)(exp + 150) << 23) + (r & 0x7fffffu));
}

double Q7_RT(sqrt)(double x) {
  uint64_t u = as_u64(x);
  if (u == 0 || u == 0x8000000000000000ull || u == 0x7ff0000000000000ull) return x;
  if (u > 0x7ff0000000000000ull) return (x - x) / (x - x);
  int e = (int)(u >> 52);
  uint64_t m = u & 0x000fffffffffffffull;
  if (e == 0) {
    while (!(m & 0x0010000000000000ull)) m <<= 1, e--;
    e++;
  } else {
    m |= 0x0010000000000000ull;
  }
  int p = e - 1075;
  if (p & 1) {
    m <<= 1;
    p -= 1;
  }
  /* Root of the 107..108-bit radicand m * 2^54, bit by bit on 128 bits (hi:lo). */
  uint64_t n_hi = m >> 10, n_lo = m << 54;
  uint64_t root = 0, rem_hi = 0, rem_lo = 0;
  for (int i = 0; i < 64; i++) {
    /* Bring down the next two bits of the radicand. */
    rem_hi = (rem_hi << 2) | (rem_lo >> 62);
    rem_lo = (rem_lo << 2) | (n_hi >> 62);
    n_hi = (n_hi << 2) | (n_lo >> 62);
    n_lo <<= 2;
    /* trial = 4*root + 1 (128-bit) */
    uint64_t t_lo = (root << 2) | 1, t_hi = root >> 62;
    root <<= 1;
    if (rem_hi > t_hi || (rem_hi == t_hi && rem_lo >= t_lo)) {
      uint64_t borrow = rem_lo < t_lo;
      rem_lo -= t_lo;
      rem_hi -= t_hi + borrow;
      root |= 1;
    }
  }
  int inexact = (rem_hi | rem_lo) != 0;
  /* root = floor(sqrt(m * 2^54)) < 2^54: sqrt(x) = root * 2^(p/2 - 27). */
  int shift = 0;
  while ((root >> shift) >= (1ull << 54)) shift++;
  int sticky = inexact || (root & ((1ull << shift) - 1)) != 0;
  uint64_t r = root >> shift;
  int exp = p / 2 - 27 + shift;
  while (r < (1ull << 53)) { /* bring to 54 bits (53 + rounding bit) */
    r <<= 1;
    exp--;
  }
  uint64_t half = r & 1;
  r >>= 1;
  exp += 1;
  if (half && (sticky || (r & 1))) r++;
  if (r == (1ull << 53)) {
    r >>= 1;
    exp++;
  }
  return as_f64(((uint64_t)(exp + 1075) << 52) + (r & 0x000fffffffffffffull));
}
