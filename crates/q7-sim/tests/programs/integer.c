/* Integer ALU, shifts, bit fields, multiplies, divides, min/max, sign
 * extension, leading zeros: each result printed, then a checksum exit code. */
#include "rt.h"

static unsigned sum;
static void out(const char *name, int v) {
  t_show(name, v);
  sum = sum * 31u + (unsigned)v;
}

__attribute__((noinline)) static int clamp16(int x) {
  return x < -32768 ? -32768 : x > 32767 ? 32767 : x;
}

int main(void) {
  int a = OPAQUE(123456789), b = OPAQUE(-98765), c = OPAQUE(7);
  unsigned u = OPAQUE(0xdeadbeefu), v = OPAQUE(13u);
  out("add", a + b);
  out("sub", b - a);
  out("addx4", a * 4 + b);
  out("subx8", c * 8 - b);
  out("and", a & b);
  out("or", a | b);
  out("xor", a ^ b);
  out("neg", -b);
  out("abs", b < 0 ? -b : b);
  out("shl", a << c);
  out("sra", b >> c);
  out("srl", (int)(u >> c));
  out("shl_var", (int)(u << (v & 31)));
  out("srl_var", (int)(u >> (v & 31)));
  out("sra_var", b >> (v & 31));
  out("rot", (int)((u << 5) | (u >> 27)));
  out("extui", (int)((u >> 7) & 0x3ff));
  out("mull", a * b);
  out("mul16s", (short)a * (short)b);
  out("mul16u", (int)((unsigned short)u * (unsigned short)v));
  out("quos", a / b);
  out("rems", a % b);
  out("quou", (int)(u / v));
  out("remu", (int)(u % v));
  out("quos_neg", b / c);
  out("rems_neg", b % c);
  out("intmin_div", OPAQUE((int)0x80000000) / OPAQUE(-1));
  out("intmin_rem", OPAQUE((int)0x80000000) % OPAQUE(-1));
  out("min", a < b ? a : b);
  out("max", a > b ? a : b);
  out("minu", (int)(u < v ? u : v));
  out("maxu", (int)(u > v ? u : v));
  out("sext8", (signed char)u);
  out("sext16", (short)u);
  out("clamps", clamp16(b * 1000));
  out("clz", __builtin_clz(OPAQUE(0x00f00000u)));
  out("clz0", OPAQUE(0u) ? 0 : 32);
  out("ctz", __builtin_ctz(OPAQUE(0x00f00000u)));
  out("popcount", __builtin_popcount(u));
  out("bswap", (int)__builtin_bswap32(u));
  out("cmp_lt", a < b);
  out("cmp_ltu", u < v);
  out("cmp_ge", b >= -98765);
  long long wide = (long long)OPAQUE(100000) * OPAQUE(300000);
  out("wide_lo", (int)wide);
  out("wide_hi", (int)(wide >> 32));
  unsigned long long uw = (unsigned long long)u * v;
  out("uwide_hi", (int)(uw >> 32));
  out("sum", (int)sum);
  return (int)(sum % 200) + 1;
}
