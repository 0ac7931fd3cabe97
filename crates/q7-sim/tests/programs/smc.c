/* Self-modifying code: a hot loop (compiled, with the JIT at hot 1) stores
 * a new immediate into a function on another 64 KiB page; from its 50th
 * pass it also calls that function. Until then the page holds no decoded
 * code (compiled code may write it directly); from then on every store
 * must reach the decoded function (QEMU retranslates it). */
#include "rt.h"

unsigned smc_target(void);
extern volatile unsigned char smc_imm;

__attribute__((noinline)) static unsigned before(unsigned i) { return i ^ 0x55; }

int main(void) {
  unsigned sum = 0;
  for (unsigned i = 0; i < 300; i++) {
    smc_imm = (unsigned char)(i * 7);
    sum = sum * 31 + (i < 50 ? before(i) : smc_target());
  }
  t_puts("smc ");
  t_putx(sum);
  t_puts("\n");
  return 51;
}
