/* Calls that pass arguments on the stack (more than six) from frames whose
 * caller has been spilled by deep recursion in between: clang brackets each
 * such call with `movsp` moves of the stack pointer by the size of the stack
 * arguments (4 and 12 bytes here), and moving it back up by less than 16
 * bytes copies the caller's 16-byte save area onto itself, overlapping
 * (the Alloca path when the caller's frame is not in registers). */
#include "rt.h"

__attribute__((noinline)) static int spill(int depth) { return depth == 0 ? 1 : spill(depth - 1) + 1; }

/* Seven arguments: one word on the stack. */
__attribute__((noinline)) static int seven(int a, int b, int c, int d, int e, int f, int g) {
  return spill(OPAQUE(40)) + a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g;
}

/* Nine arguments: three words on the stack. */
__attribute__((noinline)) static int nine(int a, int b, int c, int d, int e, int f, int g, int h, int i) {
  return spill(OPAQUE(40)) + a - b + c - d + e - f + g - h + 100 * i;
}

__attribute__((noinline)) static int caller(int depth, int base) {
  if (depth > 0) return caller(depth - 1, base + 1) + 1;
  int x = seven(base, 1, 2, 3, 4, 5, 6);
  x += seven(x, base, 7, 8, 9, 10, 11);
  int y = nine(1, 2, 3, 4, 5, 6, 7, 8, base);
  y += nine(y, x, 3, 2, 1, 0, -1, -2, 9);
  return x ^ y;
}

int main(void) {
  int r = 0;
  for (int k = 0; k < 6; k++) r = r * 31 + caller(OPAQUE(k * 3), k);
  t_show("stackargs", r);
  CHECK(seven(1, 1, 1, 1, 1, 1, 1) == 41 + 28);
  CHECK(nine(0, 0, 0, 0, 0, 0, 0, 0, 1) == 41 + 100);
  return 7;
}
