/* Host checks of the SDK math library: each function against the host libm
 * (float functions against the double-precision result rounded to float, so
 * against the correctly rounded value in all but vanishingly rare cases).
 * Errors are distances in units in the last place (ulp) between the two
 * results; each function has a bound it must meet (sdk/README.md repeats the
 * table). NaN results must be NaN, infinities and zeros must match exactly. */
#include <stdlib.h>
#include "numerics_common.h"

#define F1(name) float q7_test_##name(float);
#define D1(name) double q7_test_##name(double);
#include "math_functions.inc"
#undef F1
#undef D1
float q7_test_powf(float, float);
float q7_test_atan2f(float, float);
float q7_test_fmodf(float, float);
float q7_test_remainderf(float, float);
float q7_test_hypotf(float, float);
float q7_test_fminf(float, float);
float q7_test_fmaxf(float, float);
float q7_test_fmaf(float, float, float);
float q7_test_ldexpf(float, int);
float q7_test_frexpf(float, int *);
float q7_test_modff(float, float *);
double q7_test_pow(double, double);
double q7_test_atan2(double, double);
double q7_test_fmod(double, double);
double q7_test_remainder(double, double);
double q7_test_hypot(double, double);
double q7_test_ldexp(double, int);
double q7_test_frexp(double, int *);

/* Signed distance-preserving maps of the bit patterns. */
static int64_t float_key(float f) {
  uint32_t b = fbits(f);
  return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
}
static double double_ulps(double a, double b) {
  uint64_t x = dbits(a), y = dbits(b);
  int64_t kx = (x >> 63) ? -(int64_t)(x & 0x7fffffffffffffffull) : (int64_t)x;
  int64_t ky = (y >> 63) ? -(int64_t)(y & 0x7fffffffffffffffull) : (int64_t)y;
  __int128 d = (__int128)kx - (__int128)ky;
  return (double)(d < 0 ? -d : d);
}

/* Error of `got` against `want` in ulps; huge for a class mismatch. */
static double float_error(float got, float want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : 1e30;
  if (isinf(want) || isinf(got) || want == 0 || got == 0) {
    if (got == want && signbit(got) == signbit(want)) return 0;
    if (want == 0 && got == 0) return 1e30; /* wrong sign of zero */
  }
  int64_t d = float_key(got) - float_key(want);
  return (double)(d < 0 ? -d : d);
}
static double double_error(double got, double want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : 1e30;
  if (got == want) return signbit(got) == signbit(want) ? 0 : 1e30;
  if (isinf(want) || isinf(got)) return 1e30;
  return double_ulps(got, want);
}

/* Counts a case; whether it failed. */
static int record(check *c, double err, double bound) {
  c->cases++;
  if (err > c->max_error) c->max_error = err;
  return err > bound;
}

/* A case, described (printf-style) only when it fails: formatting every
 * case's operands with %a took most of the run. */
#define RECORD(c, err, bound, ...)                \
  do {                                            \
    if (record((c), (err), (bound))) {            \
      char what_[200];                            \
      snprintf(what_, sizeof what_, __VA_ARGS__); \
      check_fail((c), what_);                     \
    }                                             \
  } while (0)

typedef float (*float_fn)(float);
typedef double (*double_fn)(double);

/* A float function: every 4099th bit pattern (all exponents, both signs),
 * specials, and dense random points in [lo, hi]. */
static int test_float1(const char *name, float_fn ours, double_fn ref, double bound, float lo, float hi) {
  check c;
  check_init(&c, name);
  for (uint64_t b = 0; b < 0x100000000ull; b += 4099) {
    float x = bitsf((uint32_t)b);
    float got = ours(x), want = (float)ref((double)x);
    double err = float_error(got, want);
    RECORD(&c, err, bound, "x=%a (%08x) got %a want %a", (double)x, fbits(x), (double)got, (double)want);
  }
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, 1e-45f, -1e-45f, 1.17549435e-38f,
                            3.40282347e38f, -3.40282347e38f, INFINITY, -INFINITY, NAN, 0.75f, 1.5f, 3.0f, 10.0f, 100.0f};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
    float x = specials[i];
    float got = ours(x), want = (float)ref((double)x);
    RECORD(&c, float_error(got, want), bound, "special x=%a got %a want %a", (double)x, (double)got, (double)want);
  }
  for (long i = 0; i < 300000; i++) {
    float x = lo + (hi - lo) * (float)(rng32() >> 8) * 0x1p-24f;
    if (i & 1) x = bitsf(fbits(x) ^ (rng32() & 0xff)); /* perturb the low bits */
    float got = ours(x), want = (float)ref((double)x);
    RECORD(&c, float_error(got, want), bound, "x=%a (%08x) got %a want %a", (double)x, fbits(x), (double)got,
           (double)want);
  }
  return check_report(&c);
}

/* A double function against the host's long double function rounded to
 * double (glibc's double functions are themselves off by up to 1-2 ulp):
 * random exponents over the whole range plus dense random points in [lo, hi]. */
typedef long double (*long_fn)(long double);
typedef long double (*long_fn2)(long double, long double);
static int test_double1(const char *name, double_fn ours, long_fn ref, double bound, double lo, double hi) {
  check c;
  check_init(&c, name);
  for (long i = 0; i < 200000; i++) {
    double x = (i & 1) ? random_double() : lo + (hi - lo) * (double)(rng64() >> 11) * 0x1p-53;
    if (i < (long)N_SPECIAL_DOUBLES) x = bitsd(special_doubles[i]);
    double got = ours(x), want = (double)ref(x);
    RECORD(&c, double_error(got, want), bound, "x=%a got %a want %a", x, got, want);
  }
  return check_report(&c);
}

typedef float (*float_fn2)(float, float);
typedef double (*double_fn2)(double, double);

static int test_float2(const char *name, float_fn2 ours, double_fn2 ref, double bound, float lo, float hi) {
  check c;
  check_init(&c, name);
  for (long i = 0; i < 600000; i++) {
    float x, y;
    if (i % 3 == 0) {
      x = random_float();
      y = random_float();
    } else {
      x = lo + (hi - lo) * (float)(rng32() >> 8) * 0x1p-24f;
      y = lo + (hi - lo) * (float)(rng32() >> 8) * 0x1p-24f;
      if (i % 3 == 2) y = bitsf(fbits(y) ^ 0x80000000u);
    }
    float got = ours(x, y), want = (float)ref((double)x, (double)y);
    RECORD(&c, float_error(got, want), bound, "x=%a y=%a got %a want %a", (double)x, (double)y, (double)got,
           (double)want);
  }
  return check_report(&c);
}

static int test_double2(const char *name, double_fn2 ours, long_fn2 ref, double bound, double lo, double hi) {
  check c;
  check_init(&c, name);
  for (long i = 0; i < 200000; i++) {
    double x, y;
    if (i % 3 == 0) {
      x = random_double();
      y = random_double();
    } else {
      x = lo + (hi - lo) * (double)(rng64() >> 11) * 0x1p-53;
      y = lo + (hi - lo) * (double)(rng64() >> 11) * 0x1p-53;
    }
    double got = ours(x, y), want = (double)ref(x, y);
    RECORD(&c, double_error(got, want), bound, "x=%a y=%a got %a want %a", x, y, got, want);
  }
  return check_report(&c);
}

/* IEEE 754 gives a zero remainder the sign of x; glibc does not always. */
static double ref_remainder(double x, double y) {
  double r = remainder(x, y);
  return r == 0 ? copysign(0.0, x) : r;
}


/* Correctly rounded by IEEE 754 in double itself: the long double versions
 * would round twice. */
#define EXACT_REF(name) \
  static long double exact_##name(long double x) { return name((double)x); }
EXACT_REF(fabs) EXACT_REF(floor) EXACT_REF(ceil) EXACT_REF(trunc) EXACT_REF(round) EXACT_REF(rint) EXACT_REF(sqrt)
static long double exact_fmod(long double x, long double y) { return fmod((double)x, (double)y); }
static long double exact_remainder(long double x, long double y) { return ref_remainder((double)x, (double)y); }

/* C99 Annex F: pow(1, y) and pow(x, 0) are 1 even for NaN (glibc returns NaN
 * for signalling NaNs, which C23 permits). */
static double ref_pow(double x, double y) { return (x == 1.0 || y == 0.0) ? 1.0 : pow(x, y); }
static long double ref_powl(long double x, long double y) {
  if (x == 1.0L || y == 0.0L) return 1.0L;
  /* glibc's x87 powl mishandles pow(-inf, -2^63); the double pow is right there. */
  if (!isfinite(x) || x == 0.0L) return pow((double)x, (double)y);
  return powl(x, y);
}

/* C99 Annex F: hypot(+-inf, y) is +inf even for a NaN y. */
static double ref_hypot(double x, double y) { return (isinf(x) || isinf(y)) ? INFINITY : hypot(x, y); }
static long double ref_hypotl(long double x, long double y) {
  return (isinf(x) || isinf(y)) ? INFINITY : hypotl(x, y);
}

/* Exact helpers with several arguments or results. */
static int test_float_misc(void) {
  check c;
  check_init(&c, "fminf/fmaxf/fmaf/ldexpf/frexpf/modff");
  for (long i = 0; i < 600000; i++) {
    float x = random_float(), y = random_float(), z = random_float();
    if (i % 4 == 1) z = -x * y; /* cancellation in fma */
    int e = (int)(rng32() % 600) - 300;
    int ours_e, want_e;
    float ours_i, want_i;
    float ours_m = q7_test_frexpf(x, &ours_e), want_m = frexpf(x, &want_e);
    float ours_f = q7_test_modff(x, &ours_i), want_f = modff(x, &want_i);
    /* C: fmin/fmax treat a NaN as missing (glibc returns NaN for a signalling one). */
    float want_min = isnan(x) ? y : isnan(y) ? x : fminf(x, y), want_max = isnan(x) ? y : isnan(y) ? x : fmaxf(x, y);
    double err = float_error(q7_test_fminf(x, y), want_min) + float_error(q7_test_fmaxf(x, y), want_max) +
                 float_error(q7_test_fmaf(x, y, z), fmaf(x, y, z)) + float_error(q7_test_ldexpf(x, e), ldexpf(x, e)) +
                 float_error(ours_m, want_m) + float_error(ours_f, want_f) + float_error(ours_i, want_i) +
                 (isfinite(x) && ours_e != want_e ? 1e30 : 0);
    RECORD(&c, err, 0, "x=%a y=%a z=%a e=%d", (double)x, (double)y, (double)z, e);
  }
  return check_report(&c);
}

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : NULL;
  int failed = 0;
#define RUN(name, call) \
  if (!only || strcmp(only, name) == 0) failed += call;
#include "math_checks.inc"
#undef RUN
  return failed ? 1 : 0;
}
