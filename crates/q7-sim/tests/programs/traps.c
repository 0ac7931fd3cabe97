/* Exceptions: which one is chosen at run time (the first word of the
 * input area, patched by the test), so one ELF covers them all. The user
 * vector exits with 64 + EXCCAUSE. */
#include "rt.h"

volatile int which = 99; /* in .data, so the test can patch it */

int main(void) {
  t_puts("before\n");
  switch (OPAQUE(which)) {
    case 1: { /* IntegerDivideByZero: 70 */
      volatile int z = 0;
      t_show("q", OPAQUE(5) / z);
      break;
    }
    case 2: { /* LoadStoreAlignment: 73 */
      static int words[2];
      int v, *p = (int *)((char *)words + OPAQUE(1));
      __asm__ volatile("l32i %0, %1, 0" : "=r"(v) : "r"(p));
      t_show("u", v);
      break;
    }
    case 3: /* IllegalInstruction: 64 */
      __asm__ volatile("ill");
      break;
    default: break;
  }
  t_puts("after\n");
  return 0;
}
