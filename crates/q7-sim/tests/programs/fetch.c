/* Instruction fetch from unmapped memory raises an exception into the
 * program (here resumed by sysvec.inc): its cause, EPC1 and EXCVADDR. */
#include "rt.h"
#include "sys.h"

unsigned fetch_probe(unsigned addr);

static void probe(unsigned addr) {
  unsigned r = fetch_probe(addr);
  t_puts("fetch ");
  t_putx(addr);
  t_puts(": exceptions ");
  t_putu(r >> 8);
  t_puts(" cause ");
  t_putu(r & 0xff);
  t_puts(" epc1 ");
  t_putx(sys_rec.epc);
  t_puts(" excvaddr ");
  t_putx(sys_rec.vaddr);
  t_puts("\n");
}

int main(void) {
  sys_vectors_on();
  probe(0x10000000u);
  probe(0x20000004u);
  t_puts("done\n");
  return 23;
}
