/* Output that must be byte-identical whether this file is built for the host
 * (glibc printf, hardware double, the SDK math compiled with -DQ7_HOST_TEST)
 * or for the Xtensa core (SDK printf, software double, SDK math): check.sh
 * runs both and compares. */
#include <stdint.h>
#include <stdio.h>

#ifdef Q7_HOST_TEST
#define M(name) q7_test_##name
#else
#define M(name) name
#endif
float M(expf)(float);
float M(logf)(float);
float M(sinf)(float);
float M(cosf)(float);
float M(tanhf)(float);
float M(sqrtf)(float);
float M(powf)(float, float);
float M(erff)(float);
double M(exp)(double);
double M(log)(double);
double M(sin)(double);
double M(pow)(double, double);
double M(sqrt)(double);

void run_prints(void);

/* Keeps the compiler from folding the arithmetic at build time. */
static volatile double volatile_one = 1.0;
static volatile float volatile_onef = 1.0f;

static void integers(void) {
  printf("[%d] [%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%x] [%#X] [%#o] [%u]\n", 42, -42, 42, 42, 42, 42, 7, 0xbeefu,
         0xbeefu, 8u, 4000000000u);
  printf("[%ld] [%lld] [%llx] [%zu] [%hhd] [%hu] [%c] [%5s] [%-5s|] [%.2s] [%%]\n", -123456789L,
         -9000000000000000000LL, 0xfedcba9876543210ULL, (size_t)12345, (signed char)-5, (unsigned short)65535, 'q',
         "ab", "ab", "abcdef");
  int64_t a = 0x123456789abcdefLL * (int64_t)volatile_one, b = -987654321;
  printf("int64: %lld %lld %lld %lld\n", (long long)(a / b), (long long)(a % b), (long long)(a * b),
         (long long)((uint64_t)a >> 7));
}

static void floats(void) {
  const double values[] = {0.0, -0.0, 1.0, 0.1, 0.125, 0.375, 2.5, 1e-5, 123456.789, 1e21, 9.9999999e-5,
                           5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 3.141592653589793, 1.0 / 3.0};
  for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++) {
    double v = values[i] * volatile_one;
    printf("%f|%.0f|%.2f|%e|%.3E|%g|%.10g|%#g|%12.4f|%-12.3e|%+.1f\n", v, v, v, v, v, v, v, v, v, v, v);
  }
  printf("%.17g %.17g %.30f %.0e %g %g\n", 0.1, 2.0 / 3.0, 1.0 / 1024.0, 15.5, 1e-4, 1e-5);
  /* NaN: printed from a positive quiet NaN (the sign of 0/0's NaN differs
   * between x86 and the SDK's soft double, and printf shows it). */
  printf("%f %f %f %F %e %f\n", 1.0 / 0.0 * volatile_one, -1.0 / 0.0 * volatile_one, __builtin_nan("") * volatile_one,
         1.0 / 0.0 * volatile_one, 0.5, -__builtin_nan(""));
}

static void soft_double(void) {
  double sum = 0, prod = 1, quot = 1e300 * volatile_one;
  for (int k = 1; k <= 200; k++) {
    sum += 1.0 / k;
    prod *= 1.0 + 1.0 / (k * k);
    quot /= 3.0;
  }
  long long big = (long long)(sum * 1e15);
  double back = (double)big / 7.0;
  printf("soft double: %.17g %.17g %.17g %lld %.17g %d %d\n", sum, prod, quot, big, back, sum > prod, quot < 1e-50);
  float f = 0.1f * volatile_onef;
  printf("float<->double: %.9g %.17g %.9g\n", (double)(f * 3.0f), (double)f * 3.0, (double)(float)(1.0 / 3.0));
}

static void math(void) {
  float xs[] = {0.5f, 2.0f, -3.25f, 100.0f, 1e-3f};
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    float x = xs[i] * volatile_onef;
    printf("f(%g): %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (double)x, (double)M(expf)(x / 10), (double)M(logf)(x > 0 ? x : -x),
           (double)M(sinf)(x), (double)M(cosf)(x), (double)M(tanhf)(x), (double)M(sqrtf)(x * x),
           (double)M(powf)(x * x, 0.3f), (double)M(erff)(x / 4));
    double d = x;
    printf("d(%g): %.17g %.17g %.17g %.17g %.17g\n", d, M(exp)(d / 10), M(log)(d > 0 ? d : -d), M(sin)(d),
           M(pow)(d * d, 0.3), M(sqrt)(d * d + 1));
  }
}

void run_prints(void) {
  integers();
  floats();
  soft_double();
  math();
}
