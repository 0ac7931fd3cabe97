/* Exceptions: which one is chosen at run time (the first word of the
 * input area, patched by the test), so one ELF covers them all. The user
 * vector exits with 64 + EXCCAUSE. */
#include "rt.h"

volatile int which = 99; /* in .data, so the test can patch it */

/* retw with no call increment in a0 (as after a call0): illegal. */
__attribute__((noinline)) static int retw_without_increment(int x) {
  __asm__ volatile("slli a0, a0, 2\n\tsrli a0, a0, 2");
  return x + 1;
}

/* Called with call8, returns as if called with call4: the caller's frame
 * is two frames down, not one, so retw is illegal. */
__attribute__((noinline)) static int retw_with_wrong_increment(int x) {
  __asm__ volatile("slli a0, a0, 2\n\tsrli a0, a0, 2\n\tmovi a9, 1\n\tslli a9, a9, 30\n\tor a0, a0, a9" ::: "a9");
  return x + 1;
}

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
    case 4: /* IllegalInstruction from retw: 64 */
      t_show("r", retw_without_increment(OPAQUE(1)));
      break;
    case 5: /* IllegalInstruction from retw: 64 */
      t_show("r", retw_with_wrong_increment(OPAQUE(1)));
      break;
    case 6: { /* LoadStorePIFAddrError, a load from unmapped memory: 79 */
      volatile int *nowhere = (volatile int *)OPAQUE(0x10000000);
      t_show("n", *nowhere);
      break;
    }
    case 7: { /* LoadStorePIFAddrError, a store to unmapped memory: 79 */
      volatile int *nowhere = (volatile int *)OPAQUE(0x10000000);
      *nowhere = 1;
      break;
    }
    default: break;
  }
  t_puts("after\n");
  return 0;
}
