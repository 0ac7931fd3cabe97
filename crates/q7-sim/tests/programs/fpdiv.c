/* FP divide and square root on de233_fpu through the step instructions
 * (fpdiv_insns.S): the libgcc sequences over every pair of edge operands
 * (signed zeros, infinities, quiet and signaling NaNs, denormals, the
 * extremes of the normal range) and over pseudo-random operands of every
 * magnitude, in all four rounding modes; then each step alone. Results and
 * FSR print as hex; a checksum line sums them. `which` (patched by the
 * test) picks a step QEMU does not model: recip0.s (1) or rsqrt0.s (2),
 * which raise IllegalInstruction (exit 64). */
#include "rt.h"

unsigned fd_div(unsigned, unsigned), fd_sqrt(unsigned);
unsigned fd_div0(unsigned, unsigned), fd_sqrt0(unsigned, unsigned), fd_nexp01(unsigned, unsigned);
unsigned fd_mkdadj(unsigned, unsigned), fd_mksadj(unsigned, unsigned), fd_addexp(unsigned, unsigned);
unsigned fd_addexpm(unsigned, unsigned), fd_recip0(unsigned, unsigned), fd_rsqrt0(unsigned, unsigned);
unsigned fd_divn(unsigned, unsigned, unsigned), fd_maddn(unsigned, unsigned, unsigned);
void fp_set_fcr(unsigned);
unsigned fp_fsr(void);

volatile int which = 99; /* in .data, so the test can patch it */

static const unsigned edges[] = {
    0x00000000u, 0x80000000u, /* +-0 */
    0x7f800000u, 0xff800000u, /* +-inf */
    0x7fc00000u, 0xffc00123u, /* quiet NaNs */
    0x7f800001u, 0xff812345u, /* signaling NaNs */
    0x00000001u, 0x80000003u, 0x007fffffu, 0x00400000u, /* denormals */
    0x00800000u, 0x00ffffffu, 0x80800001u, /* smallest normals */
    0x7f7fffffu, 0xff7ffffeu, 0x7f000000u, /* largest */
    0x3f800000u, 0xbf800000u, 0x40400000u, 0x3dcccccdu, 0x40000000u, 0x3f000000u, 0x4b800001u,
};
#define NEDGES (sizeof edges / sizeof edges[0])

static unsigned seed = 12345;
/* Random bits with the exponent spread over the whole range. */
static unsigned next(void) {
  seed = seed * 1103515245u + 12345u;
  unsigned hi = seed;
  seed = seed * 1103515245u + 12345u;
  return (hi & 0xffff0000u) | (seed >> 16);
}

static unsigned sum;
static void row(const char *what, unsigned a, unsigned b, unsigned r) {
  unsigned fsr = fp_fsr();
  sum = sum * 31u + r * 7u + fsr;
  t_puts(what);
  t_puts(" ");
  t_putx(a);
  t_puts(" ");
  t_putx(b);
  t_puts(" ");
  t_putx(r);
  t_puts(" ");
  t_putx(fsr);
  t_puts("\n");
}

int main(void) {
  fp_fsr();
  for (unsigned mode = 0; mode < 4; mode++) {
    fp_set_fcr(mode);
    t_show("mode", (int)mode);
    for (unsigned i = 0; i < NEDGES; i++) {
      row("s", edges[i], 0, fd_sqrt(edges[i]));
      for (unsigned j = 0; j < NEDGES; j++) row("d", edges[i], edges[j], fd_div(edges[i], edges[j]));
    }
    for (int k = 0; k < 400; k++) {
      unsigned a = next(), b = next();
      row("d", a, b, fd_div(a, b));
      row("s", a, 0, fd_sqrt(a & 0x7fffffffu));
    }
    /* Quotients near the bottom of the normal range (tininess). */
    for (int k = 0; k < 64; k++) {
      unsigned a = 0x00800000u + (next() & 0x00ffffffu), b = 0x3f800000u + (next() & 0x007fffffu);
      row("d", a, b, fd_div(a, b));
    }
  }
  fp_set_fcr(0);
  static const unsigned probes[] = {0x40400000u, 0xc1200000u, 0x00000003u, 0x7f800000u, 0x7fc00000u, 0x3f800000u};
  for (unsigned i = 0; i < 6; i++) {
    unsigned d = probes[i], s = probes[(i + 1) % 6], t = probes[(i + 2) % 6];
    row("div0", d, s, fd_div0(d, s));
    row("sqrt0", d, s, fd_sqrt0(d, s));
    row("nexp01", d, s, fd_nexp01(d, s));
    row("mkdadj", d, s, fd_mkdadj(d, s));
    row("mksadj", d, s, fd_mksadj(d, s));
    row("addexp", d, s, fd_addexp(d, s));
    row("addexpm", d, s, fd_addexpm(d, s));
    row("divn", d, s, fd_divn(d, s, t));
    row("maddn", d, s, fd_maddn(d, s, t));
  }
  t_puts("sum ");
  t_putx(sum);
  t_puts("\n");
  switch (OPAQUE(which)) {
    case 1:
      row("recip0", 0, 0x40400000u, fd_recip0(0, 0x40400000u));
      break;
    case 2:
      row("rsqrt0", 0, 0x40400000u, fd_rsqrt0(0, 0x40400000u));
      break;
  }
  return 13;
}
