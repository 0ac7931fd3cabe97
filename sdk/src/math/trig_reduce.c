/* Payne-Hanek argument reduction x = n * pi/2 + r, in integer arithmetic only
 * (so it is exact to 128 fraction bits for every finite float and double).
 *
 * With x = m * 2^e (m < 2^53) and 2/pi = sum b_i 2^-i, the bits b_i with
 * i <= e - 2 only add multiples of 4 to x * 2/pi, so a 192-bit window of 2/pi
 * starting at bit max(1, e - 1) gives n mod 4 and the fraction to far more
 * than 128 bits. */
#include "math_internal.h"
#include "math_tables.h"

#define WINDOW_WORDS 6 /* 192 bits of 2/pi */

/* 32 bits of 2/pi starting at bit index `bit` (bit 1 = the first after the point). */
static uint32_t two_over_pi_at(int bit) {
  int index = bit - 1, word = index / 32, shift = index % 32;
  uint32_t hi = word < 40 ? two_over_pi_bits[word] : 0;
  uint32_t lo = word + 1 < 40 ? two_over_pi_bits[word + 1] : 0;
  return shift ? (hi << shift) | (lo >> (32 - shift)) : hi;
}

/* 32 bits of the little-endian word array p (n words) starting at bit `bit`. */
static uint32_t bits_at(const uint32_t *p, int n, int bit) {
  int word = bit / 32, shift = bit % 32;
  uint32_t lo = word < n ? p[word] : 0;
  uint32_t hi = word + 1 < n ? p[word + 1] : 0;
  return shift ? (lo >> shift) | (hi << (32 - shift)) : lo;
}

int q7_reduce_pio2(uint64_t m, int e, int64_t *frac_hi, uint64_t *frac_lo) {
  int start = e - 1 > 1 ? e - 1 : 1;
  /* The window as a little-endian 192-bit integer W. */
  uint32_t w[WINDOW_WORDS];
  for (int i = 0; i < WINDOW_WORDS; i++) w[WINDOW_WORDS - 1 - i] = two_over_pi_at(start + 32 * i);
  /* P = m * W (little-endian, 8 words). */
  uint32_t mw[2] = {(uint32_t)m, (uint32_t)(m >> 32)};
  uint32_t p[WINDOW_WORDS + 2] = {0};
  for (int i = 0; i < 2; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < WINDOW_WORDS; j++) {
      uint64_t t = (uint64_t)mw[i] * w[j] + p[i + j] + carry;
      p[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    p[i + WINDOW_WORDS] = (uint32_t)carry;
  }
  /* x * 2/pi = P * 2^-t (mod 4), t = start + 191 - e fraction bits. */
  int t = start + 191 - e;
  int n = (int)(bits_at(p, 8, t) & 3u);
  uint64_t hi = ((uint64_t)bits_at(p, 8, t - 32) << 32) | bits_at(p, 8, t - 64);
  uint64_t lo = ((uint64_t)bits_at(p, 8, t - 96) << 32) | bits_at(p, 8, t - 128);
  if (hi >> 63) n = (n + 1) & 3; /* fraction >= 1/2: to the next multiple, fraction - 1 */
  *frac_hi = (int64_t)hi;       /* two's complement: the fraction minus 1 when it was >= 1/2 */
  *frac_lo = lo;
  return n;
}

/* |fraction| * pi/2 as q2:q1 (top 128 bits of the product, q2's top bit set)
 * and a scale: the value is q2 * 2^scale + q1 * 2^(scale - 64). Returns 1 for a
 * negative fraction, -1 for zero. */
static int times_pio2(int64_t frac_hi, uint64_t frac_lo, uint64_t *q2_out, uint64_t *q1_out, int *scale_out) {
  int negative = frac_hi < 0;
  uint64_t mh = (uint64_t)frac_hi, ml = frac_lo;
  if (negative) { /* magnitude of the 128-bit two's complement value */
    ml = 0 - ml;
    mh = ~mh + (ml == 0);
  }
  uint32_t a[4] = {(uint32_t)ml, (uint32_t)(ml >> 32), (uint32_t)mh, (uint32_t)(mh >> 32)};
  uint32_t b[2] = {(uint32_t)PIO2_Q62, (uint32_t)(PIO2_Q62 >> 32)};
  uint32_t prod[6] = {0};
  for (int i = 0; i < 2; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < 4; j++) {
      uint64_t t = (uint64_t)b[i] * a[j] + prod[i + j] + carry;
      prod[i + j] = (uint32_t)t;
      carry = t >> 32;
    }
    prod[i + 4] = (uint32_t)carry;
  }
  /* value = prod * 2^-190 (128 fraction bits of M, 62 of pi/2): with q2:q1 the
   * top 128 bits, value = q2 * 2^-62 + q1 * 2^-126. */
  uint64_t q2 = ((uint64_t)prod[5] << 32) | prod[4];
  uint64_t q1 = ((uint64_t)prod[3] << 32) | prod[2];
  int scale = -62;
  if (q2 == 0 && q1 == 0) return -1;
  while (!(q2 >> 63)) {
    q2 = (q2 << 1) | (q1 >> 63);
    q1 <<= 1;
    scale--;
  }
  *q2_out = q2;
  *q1_out = q1;
  *scale_out = scale;
  return negative;
}

void q7_reduced_to_double(int64_t frac_hi, uint64_t frac_lo, double *r_hi, double *r_lo) {
  uint64_t q2, q1;
  int scale;
  int negative = times_pio2(frac_hi, frac_lo, &q2, &q1, &scale);
  if (negative < 0) {
    *r_hi = *r_lo = 0.0;
    return;
  }
  /* hi = q2 rounded to 53 bits (q1 breaks ties), lo = the exact rest. A carry
   * to 2^53 makes h << 11 wrap to 0, and the signed difference below is then
   * still right (q2 - 2^64). */
  uint64_t h = q2 >> 11, rest = q2 & 0x7ff;
  if (rest > 0x400 || (rest == 0x400 && ((h & 1) || q1))) h++;
  int64_t diff = (int64_t)(q2 - (h << 11));
  double dh = (double)h * pow2(scale + 11);
  double dl = ((double)diff + (double)(q1 >> 11) * 0x1p-53) * pow2(scale);
  *r_hi = negative ? -dh : dh;
  *r_lo = negative ? -dl : dl;
}

void q7_reduced_to_float(int64_t frac_hi, uint64_t frac_lo, float *r_hi, float *r_lo) {
  uint64_t q2, q1;
  int scale;
  int negative = times_pio2(frac_hi, frac_lo, &q2, &q1, &scale);
  if (negative < 0) {
    *r_hi = *r_lo = 0.0f;
    return;
  }
  uint32_t top = (uint32_t)(q2 >> 32), next = (uint32_t)q2;
  uint32_t h = top >> 8, rest = top & 0xff;
  if (rest > 0x80 || (rest == 0x80 && ((h & 1) || next || q1))) h++;
  int32_t diff = (int32_t)(top - (h << 8)); /* within +-2^8, wraps like above */
  float fh = (float)h * pow2f(scale + 40);
  float fl = ((float)diff + (float)(next >> 8) * 0x1p-24f) * pow2f(scale + 32);
  *r_hi = negative ? -fh : fh;
  *r_lo = negative ? -fl : fl;
}
