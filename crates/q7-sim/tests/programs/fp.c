/* Single-precision FP on a core with the FPU (de233_fpu): arithmetic in all
 * four FCR rounding modes, FSR flags, conversions with scale factors,
 * compares with NaN, fused multiply-add, special values. Values travel and
 * print as bit patterns; the instructions under test are in fp_ops.S. */
#include "rt.h"

unsigned fp_add(unsigned, unsigned), fp_sub(unsigned, unsigned), fp_mul(unsigned, unsigned);
unsigned fp_madd(unsigned, unsigned, unsigned), fp_msub(unsigned, unsigned, unsigned);
int fp_round0(unsigned), fp_trunc0(unsigned), fp_trunc2(unsigned), fp_floor0(unsigned);
int fp_ceil1(unsigned), fp_utrunc0(unsigned);
unsigned fp_float0(int), fp_float2(int), fp_ufloat3(unsigned);
int fp_un(unsigned, unsigned), fp_oeq(unsigned, unsigned), fp_ueq(unsigned, unsigned);
int fp_olt(unsigned, unsigned), fp_ult(unsigned, unsigned), fp_ole(unsigned, unsigned);
int fp_ule(unsigned, unsigned);
void fp_set_fcr(unsigned), fp_set_fsr(unsigned);
unsigned fp_fcr(void);
unsigned fp_fsr(void);

#define ONE 0x3f800000u
#define THIRD 0x3eaaaaabu
#define THREE 0x40400000u
#define TWO 0x40000000u
#define TINY 0x30800000u /* 2^-30 */
#define BIG 0x7f7fffffu
#define INF 0x7f800000u
#define QNAN 0x7fc00001u
#define SNAN 0x7f800001u

static void show(const char *name, unsigned v) {
  t_puts(name);
  t_puts("=");
  t_putx(v);
  t_puts(" fsr=");
  t_putx(fp_fsr());
  t_puts("\n");
}

static unsigned bits(float f) {
  union {
    float f;
    unsigned u;
  } v = {f};
  return v.u;
}

int main(void) {
  fp_set_fcr(0xffffffffu);
  t_show("fcr_mask", (int)fp_fcr());
  fp_set_fcr(0);
  fp_set_fsr(0xffffffffu);
  t_show("fsr_mask", (int)fp_fsr());
  for (unsigned mode = 0; mode < 4; mode++) {
    fp_set_fcr(mode);
    t_show("mode", (int)mode);
    show(" add", fp_add(ONE, TINY));
    show(" sub", fp_sub(ONE | 0x80000000u, TINY));
    show(" mul", fp_mul(THIRD, THREE));
    show(" ovf", fp_mul(BIG, TWO));
    show(" novf", fp_mul(BIG | 0x80000000u, TWO));
    show(" unf", fp_mul(0x0d800000u, 0x2bc00000u));
    show(" madd", fp_madd(ONE, THIRD, THREE));
    show(" msub", fp_msub(ONE, THIRD, THREE));
    show(" float", fp_float0(16777217));
    show(" ufloat", fp_ufloat3(0xffffffffu));
    show(" round", (unsigned)fp_round0(0x40200000u));
    /* An exact zero sum is -0 when rounding down. */
    show(" cancel", fp_sub(ONE, ONE));
    show(" zeros", fp_add(0, 0x80000000u));
    show(" madd0", fp_madd(0, 0x80000000u, ONE));
  }
  fp_set_fcr(0);
  show("inf-inf", fp_sub(INF, INF));
  show("0*inf", fp_mul(0, INF));
  show("qnan+1", fp_add(QNAN, ONE));
  show("1+snan", fp_add(ONE, SNAN));
  show("negzero", fp_add(0x80000000u, 0x80000000u));
  show("cancel", fp_sub(ONE, ONE));
  show("trunc", (unsigned)fp_trunc2(0xc0300000u));
  /* 2^127 * 4 overflows binary32 before the conversion. */
  show("trunc_ovf", (unsigned)fp_trunc2(0x7f000000u));
  show("floor", (unsigned)fp_floor0(0xc0200000u));
  show("ceil", (unsigned)fp_ceil1(0xc0200000u));
  show("round_half", (unsigned)fp_round0(0x40600000u));
  show("trunc_big", (unsigned)fp_trunc0(0x4f32d05eu));
  show("trunc_nbig", (unsigned)fp_trunc0(0xcf32d05eu));
  show("trunc_nan", (unsigned)fp_trunc0(QNAN));
  show("trunc_inf", (unsigned)fp_trunc0(INF));
  show("utrunc", (unsigned)fp_utrunc0(0x4f32d05eu));
  show("utrunc_neg", (unsigned)fp_utrunc0(0xbfc00000u));
  show("utrunc_big", (unsigned)fp_utrunc0(0x4f9502f9u));
  show("float_scaled", fp_float2(-7));
  show("nan+nan", fp_add(0x7fc00002u, 0x7f800003u));
  show("nan+nan2", fp_add(0x7f800003u, 0x7fc00002u));
  show("nan*nan", fp_mul(0xffc00005u, 0x7fc00002u));
  show("madd_nan", fp_madd(0x7fc00007u, ONE, 0x7fc00002u));
  show("madd_nan2", fp_madd(ONE, 0x7f800009u, ONE));
  show("madd_inv", fp_madd(QNAN, 0, INF));
  show("madd_ab", fp_madd(ONE, 0x7fc00011u, 0x7fc00022u));
  show("madd_sq", fp_madd(0x7fc00033u, 0x7f800044u, ONE));
  show("madd_qs", fp_madd(0x7f800055u, 0x7fc00066u, ONE));
  show("utrunc_m05", (unsigned)fp_utrunc0(0xbf000000u));
  show("utrunc_m3e9", (unsigned)fp_utrunc0(0xcf32d05eu));
  show("utrunc_nan", (unsigned)fp_utrunc0(QNAN));
  show("utrunc_inf", (unsigned)fp_utrunc0(INF));
  show("utrunc_ninf", (unsigned)fp_utrunc0(0xff800000u));
  show("trunc_ninf", (unsigned)fp_trunc0(0xff800000u));
  show("trunc_nnan", (unsigned)fp_trunc0(0xffc00000u));
  static const unsigned cmp_args[][2] = {{ONE, THREE}, {THREE, ONE}, {ONE, ONE}, {QNAN, ONE}, {ONE, SNAN}, {0x80000000u, 0}};
  for (int i = 0; i < 6; i++) {
    unsigned a = cmp_args[i][0], b = cmp_args[i][1];
    t_puts("cmp");
    int (*const cmps[7])(unsigned, unsigned) = {fp_un, fp_oeq, fp_ueq, fp_olt, fp_ult, fp_ole, fp_ule};
    for (int k = 0; k < 7; k++) {
      t_puts(" ");
      t_putd(cmps[k](a, b));
      t_puts("/");
      t_putx(fp_fsr());
    }
    t_puts("\n");
  }
  float x = OPAQUE(1.5f), y = OPAQUE(-0.25f);
  union {
    unsigned u;
    float f;
  } nan = {QNAN};
  float q = OPAQUE(nan.f), one = OPAQUE(1.0f);
  t_show("lt", x < y);
  t_show("le", y <= x);
  t_show("eq", x == x);
  t_show("nan_eq", q == q);
  t_show("nan_ne", q != q);
  t_show("nan_lt", q < one);
  t_show("nan_ge", !(q >= one));
  float acc = 0.0f;
  for (int i = 1; i <= 100; i++) acc = acc * OPAQUE(0.99f) + (float)i * OPAQUE(0.5f);
  show("series", bits(acc));
  int conv = 0;
  for (int i = -50; i < 50; i++) conv += (int)((float)i * OPAQUE(0.37f));
  t_show("conv", conv);
  return 11;
}
