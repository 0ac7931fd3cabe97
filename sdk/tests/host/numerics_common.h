/* Shared helpers of the host numerics drivers: a deterministic PRNG, bit casts,
 * interesting values, and reporting. Every check prints one line:
 *   PASS <name> <cases> <max error>      or
 *   FAIL <name> <cases> <failures> <first failing case...>
 * and the Rust test (crates/q7-build/tests/sdk_numerics.rs) asserts on them. */
#ifndef Q7_NUMERICS_COMMON_H
#define Q7_NUMERICS_COMMON_H

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rng64(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static inline uint32_t rng32(void) { return (uint32_t)(rng64() >> 32); }

static inline uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static inline double bitsd(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static inline uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float bitsf(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static const uint64_t special_doubles[] = {
    0x0000000000000000ull, 0x8000000000000000ull, /* +-0 */
    0x0000000000000001ull, 0x8000000000000001ull, /* smallest subnormal */
    0x000fffffffffffffull, 0x800fffffffffffffull, /* largest subnormal */
    0x0010000000000000ull, 0x8010000000000000ull, /* smallest normal */
    0x0008000000000000ull, 0x0000000000000003ull, 0x001fffffffffffffull,
    0x3ff0000000000000ull, 0xbff0000000000000ull, /* +-1 */
    0x3ff0000000000001ull, 0x3fefffffffffffffull, 0x4000000000000000ull, 0x3fe0000000000000ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, /* +-max */
    0x7fe0000000000000ull, 0x7fdfffffffffffffull, 0x3ca0000000000000ull, 0x3cb0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, /* +-inf */
    0x7ff8000000000000ull, 0xfff8000000000000ull, /* quiet NaN */
    0x7ff0000000000001ull, 0x7ff4000000000000ull, /* signalling NaN */
    0x4330000000000000ull, 0x4330000000000001ull, 0x43e0000000000000ull, 0xc3e0000000000000ull,
    0x41dfffffffc00000ull, 0xc1e0000000000000ull, 0x41efffffffe00000ull, 0x43f0000000000000ull,
};
#define N_SPECIAL_DOUBLES (sizeof special_doubles / sizeof special_doubles[0])

/* A double drawn from a mix: raw bits, moderate exponents, near-specials. */
static inline double random_double(void) {
  uint64_t r = rng64();
  switch (rng32() % 6) {
    case 0: return bitsd(r);
    case 1: return bitsd(special_doubles[rng32() % N_SPECIAL_DOUBLES] ^ (r & 0xf));
    case 2: { /* exponent within +-60 of 1.0 */
      uint64_t e = (uint64_t)(1023 - 60 + rng32() % 121) << 52;
      return bitsd((r & 0x800fffffffffffffull) | e);
    }
    case 3: return bitsd(r & 0x801fffffffffffffull); /* subnormal or tiny normal */
    case 4: return bitsd((r & 0x800fffffffffffffull) | ((uint64_t)(2046 - rng32() % 8) << 52)); /* huge */
    default: return (double)(int64_t)r / (double)(1ull << (rng32() % 64));
  }
}

/* Pairs with related exponents exercise cancellation and rounding carries. */
static inline double related_double(double a) {
  uint64_t b = dbits(a);
  switch (rng32() % 4) {
    case 0: return bitsd(b ^ (rng64() & 0xff)); /* a few low bits differ */
    case 1: return bitsd((b ^ 0x8000000000000000ull) ^ (rng64() & 0xfffff));
    case 2: return bitsd(b + ((uint64_t)(rng32() % 60) << 52));
    default: return random_double();
  }
}

static inline float random_float(void) {
  uint32_t r = rng32();
  switch (rng32() % 4) {
    case 0: return bitsf(r);
    case 1: return bitsf((r & 0x807fffffu) | ((uint32_t)(127 - 30 + rng32() % 61) << 23));
    case 2: return bitsf(r & 0x80ffffffu);
    default: return (float)(int32_t)r / (float)(1u << (rng32() % 31));
  }
}

typedef struct {
  const char *name;
  long cases, failures;
  double max_error;
  char first[200];
} check;

static inline void check_init(check *c, const char *name) {
  memset(c, 0, sizeof *c);
  c->name = name;
}

static inline void check_fail(check *c, const char *detail) {
  if (c->failures++ == 0) snprintf(c->first, sizeof c->first, "%s", detail);
}

static inline int check_report(const check *c) {
  if (c->failures)
    printf("FAIL %s %ld %ld %s\n", c->name, c->cases, c->failures, c->first);
  else
    printf("PASS %s %ld %.3g\n", c->name, c->cases, c->max_error);
  return c->failures != 0;
}

#endif
