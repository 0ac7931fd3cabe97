/* Prints 3 MB of numbered lines: console output past any capture limit
   must reach q7 run-bare's stdout whole, as QEMU's does. */
#include "rt.h"
int main(void) {
  for (int i = 0; i < 100000; i++) {
    t_puts("line ");
    t_putd(i);
    t_puts(" of the console flood .....\n");
  }
  return 0;
}
