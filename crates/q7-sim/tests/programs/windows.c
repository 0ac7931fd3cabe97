/* Call depth far beyond the physical register file, so the window overflow
 * and underflow handlers run many times with 4-, 8- and 12-register frames:
 * plain recursion, recursion holding many live values (call12 frames),
 * mutual recursion, calls through pointers, and a deep exit. */
#include "rt.h"

__attribute__((noinline)) static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Keeps many values live across the call: the caller needs a big frame. */
__attribute__((noinline)) static int wide(int depth, int a, int b, int c, int d, int e, int f) {
  if (depth == 0) return a + b + c + d + e + f;
  int x = wide(depth - 1, b + 1, c ^ a, d - 3, e * 3, f + depth, a - b);
  return x * 7 + a - b + c - d + e - f + depth;
}

static int is_odd(int n);
__attribute__((noinline)) static int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__attribute__((noinline)) static int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

typedef int (*op_fn)(int, int);
__attribute__((noinline)) static int op_add(int a, int b) { return a + b; }
__attribute__((noinline)) static int op_mul(int a, int b) { return a * b + 1; }
__attribute__((noinline)) static int chain(op_fn *fns, int n, int depth, int acc) {
  if (depth == 0) return acc;
  return chain(fns, n, depth - 1, fns[depth % n](acc, depth));
}

__attribute__((noinline)) static unsigned ackermann(unsigned m, unsigned n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

__attribute__((noinline)) static void deep_exit(int depth) {
  if (depth == 0) {
    t_puts("exiting from the bottom\n");
    t_exit(42);
  }
  deep_exit(depth - 1);
  t_puts("unreachable\n");
}

int main(void) {
  t_show("fib20", fib(OPAQUE(20)));
  t_show("wide", wide(OPAQUE(60), 1, 2, 3, 4, 5, 6));
  t_show("even301", is_even(OPAQUE(301)));
  op_fn fns[3] = {op_add, op_mul, op_add};
  t_show("chain", chain(fns, 3, OPAQUE(100), 1));
  t_show("ack23", (int)ackermann(2, OPAQUE(3)));
  t_show("ack36", (int)ackermann(3, OPAQUE(6)));
  deep_exit(OPAQUE(150));
  return 0;
}
