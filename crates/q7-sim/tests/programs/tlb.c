/* Region protection on de212 (identity-mapped, eight 512 MiB regions):
 * what each TLB read and probe gives for an address in every region,
 * then after writing attributes (data and instruction side apart, only
 * the low 4 bits of the written value kept) and invalidating. Regions
 * whose attribute changes hold no memory the program uses. */
#include "rt.h"

void tlb_read(unsigned vaddr, unsigned out[6]);
void tlb_wd(unsigned vaddr, unsigned v);
void tlb_wi(unsigned vaddr, unsigned v);
void tlb_inv(unsigned vaddr);

static unsigned out[6];

static void dump(unsigned va) {
  tlb_read(va, out);
  t_putx(va);
  t_puts(":");
  for (int i = 0; i < 6; i++) {
    t_puts(" ");
    t_putx(out[i]);
  }
  t_puts("\n");
}

int main(void) {
  for (unsigned r = 0; r < 8; r++) dump(r << 29 | 0x1234567);
  tlb_wd(0x20000000, 0x4);
  tlb_wi(0x20000000, 0x5);
  tlb_wd(0x80000000, 0xffffff0f);
  tlb_wi(0x80000000, 0x12345671);
  dump(0x20000000);
  dump(0x3fffffff);
  dump(0x80000000);
  tlb_inv(0x80000000);
  dump(0x80000000);
  tlb_wd(0xa0000000, 0xe);
  dump(0xa0000000);
  return 41;
}
