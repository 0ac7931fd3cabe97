/* A call-heavy windowed program for speed measurements (de212): recursion
 * far deeper than the 32 physical registers, so most calls and returns go
 * through the window overflow and underflow handlers. Exits with a
 * checksum byte. */
#include "rt.h"

__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

/* A 12-register frame per level, many levels down and back. */
__attribute__((noinline)) static int wide(int depth, int a, int b, int c, int d, int e, int f) {
  if (depth == 0) return a + b + c + d + e + f;
  int x = wide(depth - 1, b + 1, c ^ a, d - 3, e * 3, f + depth, a - b);
  return x * 7 + a - b + c - d + e - f + depth;
}

int main(void) {
  int f = fib(OPAQUE(27));
  CHECK(f == 196418);
  unsigned a = ackermann(3, OPAQUE(7));
  CHECK(a == 1021);
  int w = 0;
  for (int i = 0; i < OPAQUE(2000); i++) w += wide(OPAQUE(200), i, 2, 3, 4, 5, 6);
  t_show("fib27", f);
  t_show("ack37", (int)a);
  t_show("wide", w);
  return (f + (int)a + w) & 0xff;
}
