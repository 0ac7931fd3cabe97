/* 64-bit integer helpers the compiler calls on a 32-bit core: multiply,
 * divide/modulo (signed and unsigned), shifts and bit counts. Only 32-bit
 * operations (and the core's 32-bit MUL/DIV instructions) are used inside, so
 * nothing here recurses into itself. Division by zero returns all ones for the
 * quotient and the dividend as the remainder (the hardware has no trap to
 * imitate). */
#include <stdint.h>
#include "builtin_names.h"

typedef union {
  uint64_t all;
  struct {
    uint32_t lo, hi; /* little-endian, like the Xtensa core and x86 hosts */
  } s;
} dword;

uint64_t Q7_RT(__ashldi3)(uint64_t a, int shift);
uint64_t Q7_RT(__lshrdi3)(uint64_t a, int shift);
int64_t Q7_RT(__ashrdi3)(int64_t a, int shift);
int64_t Q7_RT(__muldi3)(int64_t a, int64_t b);
uint64_t Q7_RT(__udivmoddi4)(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t Q7_RT(__udivdi3)(uint64_t n, uint64_t d);
uint64_t Q7_RT(__umoddi3)(uint64_t n, uint64_t d);
int64_t Q7_RT(__divdi3)(int64_t n, int64_t d);
int64_t Q7_RT(__moddi3)(int64_t n, int64_t d);
int64_t Q7_RT(__divmoddi4)(int64_t n, int64_t d, int64_t *rem);
int64_t Q7_RT(__negdi2)(int64_t a);
int Q7_RT(__cmpdi2)(int64_t a, int64_t b);
int Q7_RT(__ucmpdi2)(uint64_t a, uint64_t b);
int Q7_RT(__clzsi2)(uint32_t a);
int Q7_RT(__ctzsi2)(uint32_t a);
int Q7_RT(__clzdi2)(uint64_t a);
int Q7_RT(__ctzdi2)(uint64_t a);
int Q7_RT(__popcountsi2)(uint32_t a);
int Q7_RT(__popcountdi2)(uint64_t a);
uint32_t Q7_RT(__bswapsi2)(uint32_t a);
uint64_t Q7_RT(__bswapdi2)(uint64_t a);

uint64_t Q7_RT(__ashldi3)(uint64_t a, int shift) {
  dword x = {a}, r;
  shift &= 63;
  if (shift == 0) return a;
  if (shift >= 32) {
    r.s.lo = 0;
    r.s.hi = x.s.lo << (shift - 32);
  } else {
    r.s.lo = x.s.lo << shift;
    r.s.hi = (x.s.hi << shift) | (x.s.lo >> (32 - shift));
  }
  return r.all;
}

uint64_t Q7_RT(__lshrdi3)(uint64_t a, int shift) {
  dword x = {a}, r;
  shift &= 63;
  if (shift == 0) return a;
  if (shift >= 32) {
    r.s.hi = 0;
    r.s.lo = x.s.hi >> (shift - 32);
  } else {
    r.s.hi = x.s.hi >> shift;
    r.s.lo = (x.s.lo >> shift) | (x.s.hi << (32 - shift));
  }
  return r.all;
}

int64_t Q7_RT(__ashrdi3)(int64_t a, int shift) {
  dword x = {(uint64_t)a}, r;
  uint32_t fill = (uint32_t)-(int32_t)(x.s.hi >> 31); /* all ones when negative */
  shift &= 63;
  if (shift == 0) return a;
  if (shift >= 32) {
    r.s.hi = fill;
    r.s.lo = (x.s.hi >> (shift - 32)) | (shift == 32 ? 0 : fill << (64 - shift));
  } else {
    r.s.hi = (x.s.hi >> shift) | (fill << (32 - shift));
    r.s.lo = (x.s.lo >> shift) | (x.s.hi << (32 - shift));
  }
  return (int64_t)r.all;
}

/* 32 x 32 -> 64 unsigned product from 16-bit halves: no 64-bit multiply. */
static uint64_t mul32x32(uint32_t a, uint32_t b) {
  uint32_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
  uint32_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint32_t mid = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  dword r;
  r.s.lo = (p00 & 0xffff) | (mid << 16);
  r.s.hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
  return r.all;
}

int64_t Q7_RT(__muldi3)(int64_t a, int64_t b) {
  dword x = {(uint64_t)a}, y = {(uint64_t)b}, r;
  r.all = mul32x32(x.s.lo, y.s.lo);
  r.s.hi += x.s.lo * y.s.hi + x.s.hi * y.s.lo;
  return (int64_t)r.all;
}

static int clz32(uint32_t x) {
  int n = 0;
  if (!x) return 32;
  if (!(x & 0xffff0000u)) { n += 16; x <<= 16; }
  if (!(x & 0xff000000u)) { n += 8; x <<= 8; }
  if (!(x & 0xf0000000u)) { n += 4; x <<= 4; }
  if (!(x & 0xc0000000u)) { n += 2; x <<= 2; }
  if (!(x & 0x80000000u)) n += 1;
  return n;
}

static int clz64(uint64_t x) {
  dword v = {x};
  return v.s.hi ? clz32(v.s.hi) : 32 + clz32(v.s.lo);
}

uint64_t Q7_RT(__udivmoddi4)(uint64_t n, uint64_t d, uint64_t *rem) {
  dword nn = {n}, dd = {d};
  if (d == 0) {
    if (rem) *rem = n;
    return ~(uint64_t)0;
  }
  if (nn.s.hi == 0 && dd.s.hi == 0) { /* the 32-bit divider does it */
    if (rem) *rem = nn.s.lo % dd.s.lo;
    return nn.s.lo / dd.s.lo;
  }
  if (n < d) {
    if (rem) *rem = n;
    return 0;
  }
  /* Restoring shift-subtract division, aligned on the leading bits. */
  int shift = clz64(d) - clz64(n);
  uint64_t divisor = Q7_RT(__ashldi3)(d, shift), quotient = 0;
  for (int i = 0; i <= shift; i++) {
    quotient += quotient;
    if (n >= divisor) {
      n -= divisor;
      quotient |= 1;
    }
    divisor = Q7_RT(__lshrdi3)(divisor, 1);
  }
  if (rem) *rem = n;
  return quotient;
}

uint64_t Q7_RT(__udivdi3)(uint64_t n, uint64_t d) { return Q7_RT(__udivmoddi4)(n, d, 0); }

uint64_t Q7_RT(__umoddi3)(uint64_t n, uint64_t d) {
  uint64_t r;
  Q7_RT(__udivmoddi4)(n, d, &r);
  return r;
}

/* Signed forms: divide magnitudes; the quotient is negative when the signs
 * differ, the remainder takes the dividend's sign (C semantics). */
int64_t Q7_RT(__divmoddi4)(int64_t n, int64_t d, int64_t *rem) {
  uint64_t un = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
  uint64_t ud = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
  uint64_t ur;
  uint64_t uq = Q7_RT(__udivmoddi4)(un, ud, &ur);
  if (rem) *rem = (int64_t)(n < 0 ? 0 - ur : ur);
  return (int64_t)((n < 0) != (d < 0) ? 0 - uq : uq);
}

int64_t Q7_RT(__divdi3)(int64_t n, int64_t d) { return Q7_RT(__divmoddi4)(n, d, 0); }

int64_t Q7_RT(__moddi3)(int64_t n, int64_t d) {
  int64_t r;
  Q7_RT(__divmoddi4)(n, d, &r);
  return r;
}

int64_t Q7_RT(__negdi2)(int64_t a) { return (int64_t)(0 - (uint64_t)a); }

/* libgcc's convention: 0 less, 1 equal, 2 greater. */
int Q7_RT(__cmpdi2)(int64_t a, int64_t b) { return a < b ? 0 : a == b ? 1 : 2; }
int Q7_RT(__ucmpdi2)(uint64_t a, uint64_t b) { return a < b ? 0 : a == b ? 1 : 2; }

int Q7_RT(__clzsi2)(uint32_t a) { return clz32(a); }
int Q7_RT(__clzdi2)(uint64_t a) { return clz64(a); }

int Q7_RT(__ctzsi2)(uint32_t a) {
  if (!a) return 32;
  return 31 - clz32(a & (0u - a));
}

int Q7_RT(__ctzdi2)(uint64_t a) {
  dword v = {a};
  return v.s.lo ? Q7_RT(__ctzsi2)(v.s.lo) : 32 + Q7_RT(__ctzsi2)(v.s.hi);
}

int Q7_RT(__popcountsi2)(uint32_t a) {
  a = a - ((a >> 1) & 0x55555555u);
  a = (a & 0x33333333u) + ((a >> 2) & 0x33333333u);
  a = (a + (a >> 4)) & 0x0f0f0f0fu;
  return (int)((a * 0x01010101u) >> 24);
}

int Q7_RT(__popcountdi2)(uint64_t a) {
  dword v = {a};
  return Q7_RT(__popcountsi2)(v.s.lo) + Q7_RT(__popcountsi2)(v.s.hi);
}

uint32_t Q7_RT(__bswapsi2)(uint32_t a) {
  return (a >> 24) | ((a >> 8) & 0xff00u) | ((a << 8) & 0xff0000u) | (a << 24);
}

uint64_t Q7_RT(__bswapdi2)(uint64_t a) {
  dword v = {a}, r;
  r.s.lo = Q7_RT(__bswapsi2)(v.s.hi);
  r.s.hi = Q7_RT(__bswapsi2)(v.s.lo);
  return r.all;
}
