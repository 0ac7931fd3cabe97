/* The runtime a csmith program needs on the bare boards, included first
 * into its one translation unit (-include): console output through the
 * test programs' simcall (tests/programs/rt.c: SYS_write), printf for
 * %d %u %x %X %s %c %%, the string functions the compiler and csmith call,
 * and the SDK's 64-bit division helpers (rt.c already has __muldi3). */
#include <stdio.h>
#include <string.h>

int t_simcall(int call, int a, int b, int c);

static void q7_write(const char *s, int n) { t_simcall(4, 1, (int)s, n); }

static void q7_put_number(unsigned v, unsigned base, int upper, int negative) {
  char buf[12];
  int n = sizeof buf;
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    buf[--n] = digits[v % base];
    v /= base;
  } while (v);
  if (negative) buf[--n] = '-';
  q7_write(buf + n, (int)sizeof buf - n);
}

int q7_printf(const char *fmt, unsigned a, unsigned b, unsigned c) {
  unsigned args[3] = {a, b, c};
  int next = 0;
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') {
      const char *run = p;
      while (p[1] && p[1] != '%') p++;
      q7_write(run, (int)(p - run + 1));
      continue;
    }
    char conv = *++p;
    if (conv == '%') { q7_write("%", 1); continue; }
    if (conv == 0) break;
    unsigned v = next < 3 ? args[next++] : 0;
    /* An if chain, not a switch: at -O0 clang-22 puts the next function's
     * literal pool after a jump table, in .rodata, where l32r cannot reach. */
    if (conv == 'd') {
      q7_put_number((int)v < 0 ? 0u - v : v, 10, 0, (int)v < 0);
    } else if (conv == 'u' || conv == 'x' || conv == 'X') {
      q7_put_number(v, conv == 'u' ? 10 : 16, conv == 'X', 0);
    } else if (conv == 'c') {
      char ch = (char)v;
      q7_write(&ch, 1);
    } else if (conv == 's') {
      const char *s = (const char *)v;
      int n = 0;
      while (s[n]) n++;
      q7_write(s, n);
    } else {
      q7_write("%?", 2);
    }
  }
  return 0;
}

void *memcpy(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    while (n--) *d++ = *s++;
  } else {
    while (n--) d[n] = s[n];
  }
  return dst;
}

void *memset(void *dst, int value, size_t n) {
  unsigned char *d = dst;
  while (n--) *d++ = (unsigned char)value;
  return dst;
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}

/* The SDK's 64-bit helpers; its __muldi3 is renamed out of the way of rt.c's. */
#define __muldi3 q7_sdk_muldi3
#include "../../sdk/src/builtins/int64.c"
#undef __muldi3

/* With an FPU (de233_fpu: build.sh defines HAVE_CP), the single-precision
 * helpers it lacks: division and 64-bit conversions (csmith --float). */
#ifdef HAVE_CP
#include "../../sdk/src/builtins/soft_float.c"
#endif
