/* Region protection on de212 restricting accesses (QEMU's
 * region_attr_to_access): loads from the ROM region (0x50000000, whose
 * code ran only at reset) under every data attribute, stores and jumps
 * into a region without memory (0x80000000: allowed, they fault on the
 * bus; refused, the prohibited cause comes first). */
#include "rt.h"
#include "sys.h"

unsigned rg_load(unsigned v);
void rg_store(unsigned v, unsigned x);
void tlb_wd(unsigned v, unsigned attr), tlb_wi(unsigned v, unsigned attr);
void rg_jump(unsigned v);

static void result(unsigned attr, const char *what, unsigned value) {
  t_putu(attr);
  t_puts(" ");
  sys_report(what, value);
  sys_rec.count = 0;
  sys_rec.cause = 0;
  sys_rec.vaddr = 0;
}

int main(void) {
  sys_vectors_on();
  sys_rec.skip = 3; /* a faulting load or store: record, go on */
  for (unsigned attr = 0; attr < 16; attr++) {
    tlb_wd(0x50000000, attr);
    result(attr, "load rom", rg_load(0x50000000));
    tlb_wd(0x80000000, attr);
    rg_store(0x80000010, attr);
    result(attr, "store", 0);
    tlb_wi(0x80000000, attr);
    rg_jump(0x80000020);
    result(attr, "jump", 0);
  }
  tlb_wd(0x50000000, 2);
  tlb_wd(0x80000000, 2);
  tlb_wi(0x80000000, 2);
  sys_rec.skip = 0;
  return 49;
}
