/* Host checks of the SDK's soft-float and integer builtins against the host's
 * hardware: every result must be bit-identical (NaNs: any NaN). Built by
 * crates/q7-build/tests/sdk_numerics.rs with the SDK sources compiled under
 * -DQ7_HOST_TEST (symbols renamed q7_test_<name>). */
#include "numerics_common.h"
#include "q7/float16.h"

#define DECL(ret, name, ...) ret q7_test_##name(__VA_ARGS__);
DECL(double, __adddf3, double, double)
DECL(double, __subdf3, double, double)
DECL(double, __muldf3, double, double)
DECL(double, __divdf3, double, double)
DECL(double, __negdf2, double)
DECL(int, __eqdf2, double, double)
DECL(int, __nedf2, double, double)
DECL(int, __ltdf2, double, double)
DECL(int, __ledf2, double, double)
DECL(int, __gtdf2, double, double)
DECL(int, __gedf2, double, double)
DECL(int, __unorddf2, double, double)
DECL(double, __extendsfdf2, float)
DECL(float, __truncdfsf2, double)
DECL(int32_t, __fixdfsi, double)
DECL(uint32_t, __fixunsdfsi, double)
DECL(int64_t, __fixdfdi, double)
DECL(uint64_t, __fixunsdfdi, double)
DECL(double, __floatsidf, int32_t)
DECL(double, __floatunsidf, uint32_t)
DECL(double, __floatdidf, int64_t)
DECL(double, __floatundidf, uint64_t)
DECL(float, __divsf3, float, float)
DECL(int64_t, __fixsfdi, float)
DECL(uint64_t, __fixunssfdi, float)
DECL(float, __floatdisf, int64_t)
DECL(float, __floatundisf, uint64_t)
DECL(int64_t, __muldi3, int64_t, int64_t)
DECL(int64_t, __divdi3, int64_t, int64_t)
DECL(int64_t, __moddi3, int64_t, int64_t)
DECL(uint64_t, __udivdi3, uint64_t, uint64_t)
DECL(uint64_t, __umoddi3, uint64_t, uint64_t)
DECL(uint64_t, __ashldi3, uint64_t, int)
DECL(uint64_t, __lshrdi3, uint64_t, int)
DECL(int64_t, __ashrdi3, int64_t, int)
DECL(int, __clzsi2, uint32_t)
DECL(int, __ctzsi2, uint32_t)
DECL(int, __clzdi2, uint64_t)
DECL(int, __ctzdi2, uint64_t)
DECL(int, __popcountsi2, uint32_t)
DECL(int, __popcountdi2, uint64_t)
DECL(uint32_t, __bswapsi2, uint32_t)
DECL(uint64_t, __bswapdi2, uint64_t)

#define RANDOM_CASES 200000

static int same_double(double a, double b) { return (isnan(a) && isnan(b)) || dbits(a) == dbits(b); }
static int same_float(float a, float b) { return (isnan(a) && isnan(b)) || fbits(a) == fbits(b); }

typedef double (*binary_d)(double, double);

static double host_add(double a, double b) { return a + b; }
static double host_sub(double a, double b) { return a - b; }
static double host_mul(double a, double b) { return a * b; }
static double host_div(double a, double b) { return a / b; }

static void one_binary(check *c, binary_d soft, binary_d hard, double a, double b) {
  double got = soft(a, b), want = hard(a, b);
  c->cases++;
  if (!same_double(got, want)) {
    char detail[200];
    snprintf(detail, sizeof detail, "a=%016" PRIx64 " b=%016" PRIx64 " got=%016" PRIx64 " want=%016" PRIx64, dbits(a),
             dbits(b), dbits(got), dbits(want));
    check_fail(c, detail);
  }
}

static int test_binary(const char *name, binary_d soft, binary_d hard) {
  check c;
  check_init(&c, name);
  for (size_t i = 0; i < N_SPECIAL_DOUBLES; i++)
    for (size_t j = 0; j < N_SPECIAL_DOUBLES; j++)
      one_binary(&c, soft, hard, bitsd(special_doubles[i]), bitsd(special_doubles[j]));
  for (long i = 0; i < RANDOM_CASES; i++) {
    double a = random_double();
    one_binary(&c, soft, hard, a, related_double(a));
    one_binary(&c, soft, hard, random_double(), random_double());
  }
  return check_report(&c);
}

static int test_compare(void) {
  check c;
  check_init(&c, "dcmp(eq,ne,lt,le,gt,ge,unord)");
  for (long i = 0; i < 2 * RANDOM_CASES + (long)(N_SPECIAL_DOUBLES * N_SPECIAL_DOUBLES); i++) {
    double a, b;
    if (i < (long)(N_SPECIAL_DOUBLES * N_SPECIAL_DOUBLES)) {
      a = bitsd(special_doubles[i / N_SPECIAL_DOUBLES]);
      b = bitsd(special_doubles[i % N_SPECIAL_DOUBLES]);
    } else {
      a = random_double();
      b = (i & 1) ? related_double(a) : random_double();
      if ((i & 7) == 0) b = a;
    }
    c.cases++;
    int ok = (q7_test___eqdf2(a, b) == 0) == (a == b) && (q7_test___nedf2(a, b) != 0) == (a != b) &&
             (q7_test___ltdf2(a, b) < 0) == (a < b) && (q7_test___ledf2(a, b) <= 0) == (a <= b) &&
             (q7_test___gtdf2(a, b) > 0) == (a > b) && (q7_test___gedf2(a, b) >= 0) == (a >= b) &&
             (q7_test___unorddf2(a, b) != 0) == (isnan(a) || isnan(b));
    if (!ok) {
      char detail[200];
      snprintf(detail, sizeof detail, "a=%016" PRIx64 " b=%016" PRIx64, dbits(a), dbits(b));
      check_fail(&c, detail);
    }
  }
  return check_report(&c);
}

#define EXPECT(cond, fmt, ...)                             \
  do {                                                     \
    c.cases++;                                             \
    if (!(cond)) {                                         \
      char detail_[200];                                   \
      snprintf(detail_, sizeof detail_, fmt, __VA_ARGS__); \
      check_fail(&c, detail_);                             \
    }                                                      \
  } while (0)

static int test_double_conversions(void) {
  check c;
  check_init(&c, "double<->float/int conversions");
  for (long i = 0; i < 4 * RANDOM_CASES + (long)N_SPECIAL_DOUBLES; i++) {
    double d = i < (long)N_SPECIAL_DOUBLES ? bitsd(special_doubles[i]) : random_double();
    float f = i < (long)N_SPECIAL_DOUBLES ? (float)d : random_float();
    EXPECT(same_double(q7_test___extendsfdf2(f), (double)f), "extend %08x", fbits(f));
    EXPECT(same_float(q7_test___truncdfsf2(d), (float)d), "trunc %016" PRIx64, dbits(d));
    if (d > -2147483649.0 && d < 2147483648.0)
      EXPECT(q7_test___fixdfsi(d) == (int32_t)d, "fixdfsi %016" PRIx64, dbits(d));
    if (d > -1.0 && d < 4294967296.0)
      EXPECT(q7_test___fixunsdfsi(d) == (uint32_t)d, "fixunsdfsi %016" PRIx64, dbits(d));
    if (d > -9223372036854775808.0 - 1.0 && d < 9223372036854775808.0)
      EXPECT(q7_test___fixdfdi(d) == (int64_t)d, "fixdfdi %016" PRIx64, dbits(d));
    if (d > -1.0 && d < 18446744073709551616.0)
      EXPECT(q7_test___fixunsdfdi(d) == (uint64_t)d, "fixunsdfdi %016" PRIx64, dbits(d));
    uint64_t r = rng64() >> (rng32() % 64);
    int64_t s = (rng32() & 1) ? (int64_t)r : -(int64_t)r;
    EXPECT(same_double(q7_test___floatsidf((int32_t)s), (double)(int32_t)s), "floatsidf %d", (int32_t)s);
    EXPECT(same_double(q7_test___floatunsidf((uint32_t)r), (double)(uint32_t)r), "floatunsidf %u", (uint32_t)r);
    EXPECT(same_double(q7_test___floatdidf(s), (double)s), "floatdidf %" PRId64, s);
    EXPECT(same_double(q7_test___floatundidf(r), (double)r), "floatundidf %" PRIu64, r);
  }
  /* Saturation (documented SDK behaviour; C leaves it undefined). */
  EXPECT(q7_test___fixdfsi(1e300) == INT32_MAX && q7_test___fixdfsi(-1e300) == INT32_MIN &&
             q7_test___fixdfsi(NAN) == 0 && q7_test___fixunsdfsi(-5.0) == 0 &&
             q7_test___fixdfdi(-1e300) == INT64_MIN && q7_test___fixunsdfdi(1e300) == UINT64_MAX,
         "%s", "saturation");
  return check_report(&c);
}

static int test_float_helpers(void) {
  check c;
  check_init(&c, "__divsf3 and float<->int64");
  for (long i = 0; i < 4 * RANDOM_CASES; i++) {
    float a = random_float(), b = (i & 1) ? random_float() : bitsf(fbits(a) ^ (rng32() & 0x807fffffu));
    if (i < 64) a = bitsf((uint32_t)special_doubles[i % N_SPECIAL_DOUBLES] ^ 0), b = (float)bitsd(special_doubles[i % 13]);
    float got = q7_test___divsf3(a, b), want = a / b;
    EXPECT(same_float(got, want), "div %08x/%08x got %08x want %08x", fbits(a), fbits(b), fbits(got), fbits(want));
    if (a > -9223372036854775808.0f - 1.0f && a < 9223372036854775808.0f)
      EXPECT(q7_test___fixsfdi(a) == (int64_t)a, "fixsfdi %08x", fbits(a));
    if (a > -1.0f && a < 18446744073709551616.0f)
      EXPECT(q7_test___fixunssfdi(a) == (uint64_t)a, "fixunssfdi %08x", fbits(a));
    uint64_t r = rng64() >> (rng32() % 64);
    int64_t s = (rng32() & 1) ? (int64_t)r : -(int64_t)r;
    EXPECT(same_float(q7_test___floatdisf(s), (float)s), "floatdisf %" PRId64, s);
    EXPECT(same_float(q7_test___floatundisf(r), (float)r), "floatundisf %" PRIu64, r);
  }
  return check_report(&c);
}

static int test_int64(void) {
  check c;
  check_init(&c, "64-bit mul/div/mod/shift/bits");
  for (long i = 0; i < 4 * RANDOM_CASES; i++) {
    uint64_t a = rng64() >> (rng32() % 64), b = rng64() >> (rng32() % 64);
    if (i % 5 == 0) b = rng32() >> (rng32() % 32);
    int64_t sa = (rng32() & 1) ? -(int64_t)a : (int64_t)a, sb = (rng32() & 1) ? -(int64_t)b : (int64_t)b;
    int shift = (int)(rng32() % 64);
    EXPECT((uint64_t)q7_test___muldi3(sa, sb) == (uint64_t)sa * (uint64_t)sb, "mul %" PRIx64 " %" PRIx64, a, b);
    if (b) {
      EXPECT(q7_test___udivdi3(a, b) == a / b && q7_test___umoddi3(a, b) == a % b, "udiv %" PRIu64 "/%" PRIu64, a, b);
      if (!(sa == INT64_MIN && sb == -1))
        EXPECT(q7_test___divdi3(sa, sb) == sa / sb && q7_test___moddi3(sa, sb) == sa % sb,
               "div %" PRId64 "/%" PRId64, sa, sb);
    }
    EXPECT(q7_test___ashldi3(a, shift) == a << shift && q7_test___lshrdi3(a, shift) == a >> shift &&
               q7_test___ashrdi3(sa, shift) == sa >> shift,
           "shift %" PRIx64 " by %d", a, shift);
    uint32_t w = (uint32_t)a;
    EXPECT(q7_test___popcountsi2(w) == __builtin_popcount(w) && q7_test___popcountdi2(a) == __builtin_popcountll(a) &&
               q7_test___bswapsi2(w) == __builtin_bswap32(w) && q7_test___bswapdi2(a) == __builtin_bswap64(a) &&
               (w == 0 || (q7_test___clzsi2(w) == __builtin_clz(w) && q7_test___ctzsi2(w) == __builtin_ctz(w))) &&
               (a == 0 || (q7_test___clzdi2(a) == __builtin_clzll(a) && q7_test___ctzdi2(a) == __builtin_ctzll(a))),
           "bits %" PRIx64, a);
  }
  EXPECT(q7_test___divdi3(INT64_MIN, 1) == INT64_MIN && q7_test___moddi3(INT64_MIN, 3) == INT64_MIN % 3 &&
             q7_test___udivdi3(~0ull, 1) == ~0ull && q7_test___udivdi3(~0ull, ~0ull) == 1,
         "%s", "edges");
  return check_report(&c);
}

/* Independent references for the 16-bit conversions: the host's _Float16
 * (when the compiler has it) and a nearest-neighbour search for bfloat16. */
static uint16_t bf16_reference(float f) {
  if (isnan(f)) return 0x7fc0;
  uint32_t u = fbits(f);
  uint16_t down = (uint16_t)(u >> 16), up = (uint16_t)(down + 1);
  double x = f, lo = bitsf((uint32_t)down << 16), hi = bitsf((uint32_t)up << 16);
  if ((u & 0xffff) == 0) return down;
  double dlo = fabs(x - lo), dhi = isinf(hi) ? fabs(x - ldexp(1.0, 128) * (x < 0 ? -1 : 1)) : fabs(x - hi);
  if (dlo < dhi) return down;
  if (dhi < dlo) return up;
  return (down & 1) ? up : down;
}

static int test_float16(void) {
  check c;
  check_init(&c, "binary16/bfloat16 conversions");
  for (uint32_t h = 0; h < 0x10000; h++) { /* every half and bfloat16, both ways */
    float f = bitsf(q7_f16_bits_to_f32_bits((uint16_t)h));
#ifdef __FLT16_MAX__
    _Float16 hh;
    uint16_t hb = (uint16_t)h;
    memcpy(&hh, &hb, 2);
    EXPECT(same_float(f, (float)hh), "f16->f32 %04x", h);
#endif
    uint16_t back = q7_f32_bits_to_f16_bits(fbits(f));
    EXPECT(isnan(f) ? (back & 0x7c00) == 0x7c00 && (back & 0x3ff) : back == h, "f16 round trip %04x", h);
    float g = bitsf(q7_bf16_bits_to_f32_bits((uint16_t)h));
    EXPECT(isnan(g) || q7_f32_bits_to_bf16_bits(fbits(g)) == h, "bf16 round trip %04x", h);
  }
  for (long i = 0; i < 20 * RANDOM_CASES; i++) {
    float f = (i & 1) ? random_float() : bitsf(rng32());
    uint16_t got = q7_f32_bits_to_bf16_bits(fbits(f));
    EXPECT(got == bf16_reference(f), "f32->bf16 %08x got %04x", fbits(f), got);
#ifdef __FLT16_MAX__
    _Float16 want = (_Float16)f;
    uint16_t wb;
    memcpy(&wb, &want, 2);
    uint16_t h = q7_f32_bits_to_f16_bits(fbits(f));
    EXPECT(isnan(f) ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : h == wb, "f32->f16 %08x got %04x want %04x", fbits(f), h,
           wb);
#endif
  }
  return check_report(&c);
}

int main(void) {
  int failed = 0;
  failed += test_binary("__adddf3", q7_test___adddf3, host_add);
  failed += test_binary("__subdf3", q7_test___subdf3, host_sub);
  failed += test_binary("__muldf3", q7_test___muldf3, host_mul);
  failed += test_binary("__divdf3", q7_test___divdf3, host_div);
  {
    check c;
    check_init(&c, "__negdf2");
    for (long i = 0; i < RANDOM_CASES; i++) {
      double a = random_double();
      EXPECT(dbits(q7_test___negdf2(a)) == (dbits(a) ^ 0x8000000000000000ull), "%016" PRIx64, dbits(a));
    }
    failed += check_report(&c);
  }
  failed += test_compare();
  failed += test_double_conversions();
  failed += test_float_helpers();
  failed += test_int64();
  failed += test_float16();
  return failed ? 1 : 0;
}
