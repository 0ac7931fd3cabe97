/* Console output and exit over SYS_write (4) and SYS_exit (1). */
#include "rt.h"

static int len_of(const char *s) {
  int n = 0;
  while (s[n]) n++;
  return n;
}

void t_puts(const char *s) { t_simcall(4, 1, (int)s, len_of(s)); }

void t_exit(int status) {
  for (;;) t_simcall(1, status, 0, 0);
}

static void put_base(unsigned v, unsigned base, int negative) {
  char buf[12];
  int n = sizeof buf;
  do {
    unsigned d = v % base;
    buf[--n] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    v /= base;
  } while (v);
  if (negative) buf[--n] = '-';
  t_simcall(4, 1, (int)(buf + n), (int)sizeof buf - n);
}

void t_putd(int v) { put_base(v < 0 ? 0u - (unsigned)v : (unsigned)v, 10, v < 0); }
void t_putu(unsigned v) { put_base(v, 10, 0); }
void t_putx(unsigned v) { put_base(v, 16, 0); }

void t_show(const char *name, int v) {
  t_puts(name);
  t_puts("=");
  t_putd(v);
  t_puts(" 0x");
  t_putx((unsigned)v);
  t_puts("\n");
}

/* 64-bit multiply for the compiler (no libgcc here), from 16-bit partial
 * products so it needs neither itself nor MUL32HIGH. */
static unsigned long long mul32x32(unsigned a, unsigned b) {
  unsigned al = a & 0xffff, ah = a >> 16, bl = b & 0xffff, bh = b >> 16;
  unsigned ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  unsigned mid = (ll >> 16) + (lh & 0xffff) + (hl & 0xffff);
  unsigned lo = (ll & 0xffff) | (mid << 16);
  unsigned hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16);
  return (unsigned long long)hi << 32 | lo;
}

long long __muldi3(long long a, long long b) {
  unsigned alo = (unsigned)a, ahi = (unsigned)((unsigned long long)a >> 32);
  unsigned blo = (unsigned)b, bhi = (unsigned)((unsigned long long)b >> 32);
  unsigned long long p = mul32x32(alo, blo);
  unsigned hi = (unsigned)(p >> 32) + alo * bhi + ahi * blo;
  return (long long)((unsigned long long)hi << 32 | (unsigned)p);
}
