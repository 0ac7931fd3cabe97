/* asin, acos, atan, atan2 in double precision: the scheme of invtrig_float.c
 * with degree-13 (asin) and degree-11 (atan) fits. */
#include "math_internal.h"
#include "math_tables.h"

#define PIO2_HI 1.5707963267948966
#define PIO2_LO 6.123233995736766e-17
#define PIO4_HI 0.7853981633974483
#define PI_HI 3.141592653589793
#define PI_LO 1.2246467991473532e-16

static double asin_tail(double t) {
  double z = t * t;
  return t * z * POLY(asin_poly, z);
}

static double split_hi(double s) { return as_f64(as_u64(s) & 0xffffffff00000000ull); }

double Q7_RT(asin)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (!(ax <= 1.0)) return (x - x) / (x - x);
  if (ax == 1.0) return x * PIO2_HI + x * PIO2_LO;
  if (ax < 0x1p-27) return x;
  if (ax <= 0.5) return x + asin_tail(x);
  double z = 0.5 * (1.0 - ax);
  double s = Q7_RT(sqrt)(z);
  double s_hi = split_hi(s);
  double c = (z - s_hi * s_hi) / (s + s_hi);
  double p = asin_tail(s);
  double q = PIO4_HI - 2.0 * s_hi;
  double r = q + (PIO4_HI - ((2.0 * p + 2.0 * c) - PIO2_LO));
  return x < 0 ? -r : r;
}

double Q7_RT(acos)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (!(ax <= 1.0)) return (x - x) / (x - x);
  if (x == 1.0) return 0.0;
  if (x == -1.0) return PI_HI + PI_LO;
  if (ax <= 0.5) return PIO2_HI - (x - (PIO2_LO - asin_tail(x)));
  if (x < 0) {
    double z = 0.5 * (1.0 + x);
    double s = Q7_RT(sqrt)(z);
    double w = s + asin_tail(s);
    return 2.0 * (PIO2_HI - (w - PIO2_LO));
  }
  double z = 0.5 * (1.0 - x);
  double s = Q7_RT(sqrt)(z);
  double s_hi = split_hi(s);
  double c = (z - s_hi * s_hi) / (s + s_hi);
  return 2.0 * (s_hi + (asin_tail(s) + c));
}

static const double atan_hi[4] = {0.4636476090008061, 0.7853981633974483, 0.982793723247329, 1.5707963267948966};
static const double atan_lo[4] = {2.2698777452961687e-17, 3.061616997868383e-17, 1.3903311031230998e-17,
                                  6.123233995736766e-17};

double Q7_RT(atan)(double x) {
  double ax = Q7_RT(fabs)(x);
  if (x != x) return x + x;
  if (ax >= 0x1p66) return x > 0 ? atan_hi[3] + atan_lo[3] : -atan_hi[3] - atan_lo[3];
  if (ax < 0x1p-27) return x;
  int id;
  double t;
  if (ax < 0.4375) {
    id = -1;
    t = ax;
  } else if (ax < 0.6875) {
    id = 0;
    t = (2.0 * ax - 1.0) / (2.0 + ax);
  } else if (ax < 1.1875) {
    id = 1;
    t = (ax - 1.0) / (ax + 1.0);
  } else if (ax < 2.4375) {
    id = 2;
    t = (ax - 1.5) / (1.0 + 1.5 * ax);
  } else {
    id = 3;
    t = -1.0 / ax;
  }
  double z = t * t;
  double tail = t * z * POLY(atan_poly, z);
  double r = id < 0 ? t - tail : atan_hi[id] - ((tail - atan_lo[id]) - t);
  return x < 0 ? -r : r;
}

double Q7_RT(atan2)(double y, double x) {
  if (x != x || y != y) return x + y;
  uint64_t uy = as_u64(y), ux = as_u64(x);
  int y_negative = (int)(uy >> 63), x_negative = (int)(ux >> 63);
  double ay = Q7_RT(fabs)(y), ax = Q7_RT(fabs)(x);
  double pio2 = PIO2_HI + PIO2_LO, pi = PI_HI + PI_LO;
  double r;
  if (ay == 0.0) {
    r = x_negative ? pi : 0.0;
  } else if (ax == 0.0) {
    r = pio2;
  } else if (ax == __builtin_inf()) {
    if (ay == __builtin_inf())
      r = x_negative ? 3.0 * 0.25 * pi : 0.25 * pi;
    else
      r = x_negative ? pi : 0.0;
  } else if (ay == __builtin_inf()) {
    r = pio2;
  } else {
    int ey = (int)((uy >> 52) & 0x7ff), ex = (int)((ux >> 52) & 0x7ff);
    if (ey - ex > 60) {
      r = pio2;
    } else if (x_negative && ex - ey > 60) {
      r = pi;
    } else {
      double a = Q7_RT(atan)(ay / ax);
      r = x_negative ? PI_HI - (a - PI_LO) : a;
    }
  }
  return y_negative ? -r : r;
}
