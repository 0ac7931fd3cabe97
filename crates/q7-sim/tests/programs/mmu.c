/* The MMU's TLBs on de233_fpu, as the TLB instructions see them: every
 * way's entries at reset (way 6 maps the 4 GiB to itself in 512 MiB
 * pages), probes, writes and reads back in the autorefill ways and ways
 * 4/5 for regions the program does not use (0x40000000..), the ring an
 * entry's PTE selects through RASID, a multi-hit probe's exception,
 * invalidation, and the masks of RASID, ITLBCFG, DTLBCFG and PTEVADDR.
 * Translation itself stays the identity here (see cpu::mmu). */
#include "rt.h"
#include "sys.h"

void mmu_read(unsigned v, unsigned out[6]);
void tlb_wd(unsigned v, unsigned pte), tlb_wi(unsigned v, unsigned pte);
void tlb_id(unsigned v), tlb_ii(unsigned v);
void mmu_regs(unsigned out[4]);
void mmu_set_rasid(unsigned v), mmu_set_ptevaddr(unsigned v);
unsigned mmu_cfg_written(unsigned v, unsigned data);

static unsigned out[6];

static void dump(unsigned v) {
  sys_rec.count = 0;
  mmu_read(v, out);
  t_putx(v);
  t_puts(":");
  for (int i = 0; i < 6; i++) {
    t_puts(" ");
    t_putx(out[i]);
  }
  if (sys_rec.count) {
    t_puts(" exc ");
    t_putu(sys_rec.cause);
    t_puts(sys_rec.vaddr == v ? " at v" : " elsewhere");
  }
  t_puts("\n");
}

static void regs(const char *what) {
  mmu_regs(out);
  t_puts(what);
  for (int i = 0; i < 4; i++) {
    t_puts(" ");
    t_putx(out[i]);
  }
  t_puts("\n");
}

int main(void) {
  sys_vectors_on();
  sys_rec.skip = 3; /* a multi-hit probe: record, go on */
  regs("reset");
  /* Every entry of every way: ways 0-3 by bits 12.., 4 by 20.., 5 by
   * 27.., 6 by 29..; ways 7-9 one entry. */
  for (unsigned w = 0; w < 10; w++) {
    unsigned n = w < 6 ? 4 : w == 6 ? 8 : 1;
    unsigned shift = w < 4 ? 12 : w == 4 ? 20 : w == 5 ? 27 : 29;
    for (unsigned e = 0; e < n; e++) dump(e << shift | w);
  }
  dump(0x00101234);
  dump(0xfe000123);
  /* 0x40000000..0x5fffffff is no memory: its way-6 entry can go. */
  tlb_id(0x40000006);
  tlb_ii(0x40000006);
  dump(0x40000006);
  dump(0x40001000);
  /* Autorefill way 2, ring 0 (ASID 1) and ring 1 (ASID 2); way 1, ring 3. */
  tlb_wd(0x40003002, 0x12345003);
  tlb_wd(0x40002002, 0x23456017);
  tlb_wd(0x40001001, 0x3456703f);
  tlb_wi(0x40003002, 0x45678005);
  dump(0x40003002);
  dump(0x40002002);
  dump(0x40001001);
  dump(0x40003abc);
  /* Way 4 (1 MiB) over way 2's page: a multi-hit probe. */
  tlb_wd(0x40000004, 0x50000001);
  dump(0x40000004);
  dump(0x40003004);
  /* Way 5 (128 MiB) on both sides; ways 7 and 9. */
  tlb_wd(0x48000005, 0x6abcd123);
  tlb_wi(0x48000005, 0x7abcd007);
  tlb_wd(0x4a000007, 0x1111f00f);
  tlb_wd(0x4b000009, 0x2222e00e);
  dump(0x48000005);
  dump(0x4a000007);
  dump(0x4b000009);
  dump(0x4a000000);
  /* RASID without ASID 2: ring 1's entry stops matching. */
  mmu_set_rasid(0x05040701);
  regs("rasid");
  dump(0x40002002);
  mmu_set_rasid(0x04030201);
  dump(0x40002002);
  /* Invalidation keeps the rest of the entry. */
  tlb_id(0x40003002);
  tlb_id(0x40000004);
  dump(0x40003002);
  dump(0x40000004);
  /* Register masks. */
  mmu_set_ptevaddr(0xffffffffu);
  regs("ptevaddr");
  t_puts("itlbcfg ");
  t_putx(mmu_cfg_written(0xffffffffu, 0));
  t_puts(" dtlbcfg ");
  t_putx(mmu_cfg_written(0xffffffffu, 1));
  t_puts("\n");
  sys_rec.skip = 0;
  return 45;
}
