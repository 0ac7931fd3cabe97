/* Exact binary-to-decimal conversion for printf's %f, %e and %g.
 *
 * A double is m * 2^e2 with m < 2^53. Its integer part is converted by
 * repeated division by 10^4 and its fraction by repeated multiplication by
 * 10^4, both on arrays of 16-bit halfwords so that every step is a 32-bit
 * operation (the core has 32-bit multiply and divide only). The digits are
 * exact, so rounding to the requested precision (ties to even) matches glibc. */
#include <stdint.h>
#include <string.h>
#include "format.h"

#define MAX_HALVES 72 /* 1077 integer bits or 1074 fraction bits, in 16-bit pieces */

typedef struct {
  /* integer part: base-10^4 limbs, most significant first */
  uint16_t int_limbs[80];
  int int_count, int_next;
  /* fraction: value = frac / 2^(16 * frac_count), little-endian halfwords */
  uint16_t frac[MAX_HALVES];
  int frac_count;
  /* pending digits of the current limb */
  char pending[4];
  int pending_count, pending_next;
  int first_limb; /* the leading integer limb prints without leading zeros */
} digit_source;

static void limb_digits(digit_source *src, uint32_t limb, int strip_leading) {
  char d[4] = {(char)('0' + limb / 1000), (char)('0' + limb / 100 % 10), (char)('0' + limb / 10 % 10),
               (char)('0' + limb % 10)};
  int start = 0;
  if (strip_leading)
    while (start < 3 && d[start] == '0') start++;
  src->pending_count = 0;
  for (int i = start; i < 4; i++) src->pending[src->pending_count++] = d[i];
  src->pending_next = 0;
}

static int fraction_is_zero(const digit_source *src) {
  for (int i = 0; i < src->frac_count; i++)
    if (src->frac[i]) return 0;
  return 1;
}

/* Next exact digit; integer digits first, then fraction digits, then zeros. */
static char next_digit(digit_source *src) {
  while (src->pending_next == src->pending_count) {
    if (src->int_next < src->int_count) {
      limb_digits(src, src->int_limbs[src->int_next], src->int_next == 0 && src->first_limb);
      src->int_next++;
    } else if (!fraction_is_zero(src)) {
      uint32_t carry = 0;
      for (int i = 0; i < src->frac_count; i++) {
        uint32_t t = (uint32_t)src->frac[i] * 10000u + carry;
        src->frac[i] = (uint16_t)t;
        carry = t >> 16;
      }
      limb_digits(src, carry, 0);
    } else {
      return '0';
    }
  }
  return src->pending[src->pending_next++];
}

/* Whether anything nonzero remains after the digits taken so far. */
static int rest_is_nonzero(const digit_source *src) {
  for (int i = src->pending_next; i < src->pending_count; i++)
    if (src->pending[i] != '0') return 1;
  for (int i = src->int_next; i < src->int_count; i++)
    if (src->int_limbs[i]) return 1;
  return !fraction_is_zero(src);
}

static void init_source(digit_source *src, uint64_t m, int e2) {
  uint16_t value[MAX_HALVES];
  int n = 0;
  memset(src, 0, sizeof *src);
  src->first_limb = 1;
  if (e2 >= 0) { /* integer m << e2 */
    int word_shift = e2 / 16, bit_shift = e2 % 16;
    for (int i = 0; i < word_shift; i++) value[n++] = 0;
    uint32_t carry = 0;
    for (int i = 0; i < 4; i++) {
      uint32_t h = (uint32_t)(m >> (16 * i)) & 0xffffu;
      uint32_t t = (h << bit_shift) | carry;
      value[n++] = (uint16_t)t;
      carry = t >> 16;
    }
    value[n++] = (uint16_t)carry;
  } else {
    int k = -e2;
    /* Integer part m >> k. */
    uint64_t ipart = k >= 64 ? 0 : m >> k;
    for (int i = 0; i < 4; i++) value[n++] = (uint16_t)(ipart >> (16 * i));
    /* Fraction (m mod 2^k) / 2^k, widened to a multiple of 16 bits. */
    uint64_t fpart = k >= 64 ? m : m & ((1ull << k) - 1);
    int halves = (k + 15) / 16, pad = halves * 16 - k;
    int word_shift = pad / 16, bit_shift = pad % 16;
    for (int i = 0; i < halves; i++) src->frac[i] = 0;
    uint32_t carry = 0;
    for (int i = 0; i < 4 && word_shift + i < halves; i++) {
      uint32_t h = (uint32_t)(fpart >> (16 * i)) & 0xffffu;
      uint32_t t = (h << bit_shift) | carry;
      src->frac[word_shift + i] = (uint16_t)t;
      carry = t >> 16;
    }
    if (word_shift + 4 < halves) src->frac[word_shift + 4] = (uint16_t)carry;
    src->frac_count = halves;
  }
  /* Integer part to base 10^4 by repeated division (16-bit steps). */
  while (n > 0 && value[n - 1] == 0) n--;
  uint16_t limbs_reversed[80];
  int count = 0;
  while (n > 0) {
    uint32_t rem = 0;
    for (int i = n - 1; i >= 0; i--) {
      uint32_t t = (rem << 16) | value[i];
      value[i] = (uint16_t)(t / 10000u);
      rem = t % 10000u;
    }
    limbs_reversed[count++] = (uint16_t)rem;
    while (n > 0 && value[n - 1] == 0) n--;
  }
  for (int i = 0; i < count; i++) src->int_limbs[i] = limbs_reversed[count - 1 - i];
  src->int_count = count;
}

void q7_decimal_digits(double value, char mode, int precision, q7_decimal *out) {
  uint64_t bits;
  memcpy(&bits, &value, 8);
  uint32_t e = (uint32_t)(bits >> 52) & 0x7ffu;
  uint64_t m = bits & 0x000fffffffffffffull;
  if (precision > Q7_PRINTF_MAX_PRECISION) precision = Q7_PRINTF_MAX_PRECISION;
  out->count = 0;
  out->exp10 = 0;
  if (e == 0 && m == 0) { /* zero: the requested digits are all 0 */
    int n = mode == 'e' ? precision + 1 : precision;
    for (int i = 0; i < n; i++) out->digits[out->count++] = '0';
    out->exp10 = mode == 'e' ? 1 : 0;
    return;
  }
  int e2;
  if (e == 0) {
    e2 = -1074;
  } else {
    m |= 1ull << 52;
    e2 = (int)e - 1075;
  }
  digit_source src;
  init_source(&src, m, e2);

  /* Position of the first significant digit. */
  int exp10;
  char first;
  if (src.int_count > 0) {
    exp10 = 0;
    for (int i = 0; i < src.int_count; i++) exp10 += 4;
    uint32_t lead = src.int_limbs[0];
    exp10 -= lead >= 1000 ? 0 : lead >= 100 ? 1 : lead >= 10 ? 2 : 3;
    first = next_digit(&src);
  } else {
    exp10 = 0;
    while ((first = next_digit(&src)) == '0') exp10--;
  }

  int wanted = mode == 'e' ? precision + 1 : exp10 + precision;
  int count = 0;
  char round_digit;
  if (wanted <= 0) {
    /* The value is below one unit of the last kept place: only rounding
     * decides (the kept part is 0, an even digit). */
    round_digit = wanted == 0 ? first : '0';
    int sticky = wanted == 0 ? rest_is_nonzero(&src) : 1;
    if (round_digit > '5' || (round_digit == '5' && sticky)) {
      out->digits[0] = '1';
      out->count = 1;
      out->exp10 = 1 - precision; /* one unit of the last place: 0.1 * 10^(1-precision) */
    } else {
      out->count = 0;
      out->exp10 = -precision;
    }
    return;
  }
  out->digits[count++] = first;
  while (count < wanted) out->digits[count++] = next_digit(&src);
  round_digit = next_digit(&src);
  int sticky = rest_is_nonzero(&src);
  char last = out->digits[count - 1];
  if (round_digit > '5' || (round_digit == '5' && (sticky || ((last - '0') & 1)))) {
    int i = count - 1;
    while (i >= 0 && out->digits[i] == '9') out->digits[i--] = '0';
    if (i >= 0) {
      out->digits[i]++;
    } else { /* 99..9 rounded up to 100..0 */
      out->digits[0] = '1';
      exp10++;
      if (mode == 'f') out->digits[count++] = '0';
    }
  }
  out->count = count;
  out->exp10 = exp10;
}
