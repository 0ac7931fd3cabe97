/* Translation through de233_fpu's MMU: loads and stores at addresses
 * ways 7..9 map elsewhere, TLB misses with and without a page table,
 * autorefill (which way it fills, EXCVADDR), attributes that forbid a
 * load, store or fetch, a multi-hit access, calls through the ITLB, and
 * rings (PS.RING 1 against entries of ring 0 and 1). The 0x40000000
 * region has no memory: its way-6 entry goes first, so every address
 * there is the program's own mapping. */
#include "rt.h"
#include "sys.h"

unsigned pg_load(unsigned v), pg_load8(unsigned v);
void pg_store(unsigned v, unsigned x);
void tlb_wd(unsigned v, unsigned pte), tlb_wi(unsigned v, unsigned pte);
void tlb_id(unsigned v), tlb_ii(unsigned v);
unsigned pg_rdtlb0(unsigned v), pg_rdtlb1(unsigned v), pg_excvaddr(void);
void pg_set_ptevaddr(unsigned v);
unsigned pg_call(unsigned v);
unsigned pg_ring1(unsigned v, unsigned target);
void pg_target(void);
extern unsigned pg_first[2];

static unsigned pages[4][1024] __attribute__((aligned(4096)));
#define PAGE(i) ((unsigned)pages[i])
#define PT_BASE 0x40400000u /* PTEVADDR: PTEs of 0x40000000.. at 0x40500000.. */
#define PT_PAGE 0x40500000u

/* Clears the exception record before an access. */
static void start(void) {
  sys_rec.count = 0;
  sys_rec.cause = 0;
  sys_rec.vaddr = 0;
}

#define result sys_report

/* Runs hot enough to be compiled before the program maps anything, then
 * again over a mapped address (which compiled code must not reach). */
__attribute__((noinline)) static unsigned sum_words(const volatile unsigned *p, unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}

/* The PTE of page v in the page table (pages[1] backs PT_PAGE). */
static void set_pte(unsigned v, unsigned pte) {
  pages[1][(v >> 12) & 0x3ff] = pte;
}

int main(void) {
  sys_vectors_on();
  sys_rec.skip = 3; /* a faulting load or store: record, go on */
  for (unsigned i = 0; i < 1024; i++) pages[0][i] = i * 7;
  start();
  result("sum", sum_words(pages[0], 1024));
  tlb_id(0x40000006);
  tlb_ii(0x40000006);

  /* Way 7 maps 0x40001000 to pages[0]: stores there land in it. */
  tlb_wd(0x40001007, PAGE(0) | 3);
  start();
  pg_store(0x40001010, 0x11223344);
  result("mapped store", pages[0][4]);
  result("sum mapped", sum_words((const volatile unsigned *)0x40001000, 1024));
  pages[0][5] = 0xa1b2c3d4;
  start();
  result("mapped load", pg_load(0x40001014));
  result("mapped load8", pg_load8(0x40001016));

  /* No entry, and the page table's own page unmapped: a miss. */
  pg_set_ptevaddr(PT_BASE);
  start();
  result("miss", pg_load(0x40005000));

  /* The page table mapped (way 8, read-only): autorefill from it. */
  tlb_wd(0x40500008, PAGE(1) | 1);
  set_pte(0x40005000, PAGE(2) | 3);
  pages[2][9] = 0xcafe0001;
  start();
  result("refill load", pg_load(0x40005024));
  result("refill excvaddr", pg_excvaddr());
  result("way 1 vpn", pg_rdtlb0(0x40005001));
  result("way 1 pte", pg_rdtlb1(0x40005001));
  pg_store(0x40005028, 7);
  result("refill store", pages[2][10]);
  /* The next refill takes way 2; its PTE names ring 1 (ASID 2). */
  set_pte(0x40006000, PAGE(3) | 0x10 | 3);
  pages[3][0] = 0x600d;
  start();
  result("second refill", pg_load(0x40006000));
  result("way 2 vpn", pg_rdtlb0(0x40006002));
  result("way 2 pte", pg_rdtlb1(0x40006002));

  /* Attributes: 1 reads (no store), 12 nothing; 13 reads and writes. */
  set_pte(0x40007000, PAGE(3) | 1);
  start();
  pg_store(0x40007004, 5);
  result("store to attr 1", pages[3][1]);
  start();
  result("load attr 1", pg_load(0x40007000));
  set_pte(0x40008000, PAGE(3) | 12);
  start();
  result("load attr 12", pg_load(0x40008000));
  set_pte(0x40009000, PAGE(3) | 13);
  start();
  pg_store(0x40009008, 9);
  result("store attr 13", pages[3][2]);

  /* A page-table entry of 0 (attribute 0: read only, not even this). */
  start();
  result("pte 0 load", pg_load(0x4000a000));
  start();
  pg_store(0x4000a000, 1);
  result("pte 0 store", pages[0][0]);

  /* Two ways mapping one page: a multi-hit. */
  tlb_wd(0x40001009, PAGE(2) | 3);
  start();
  result("multi-hit", pg_load(0x40001000));

  /* Calls through the ITLB in the 0x20000000 region (a windowed return
   * keeps the caller's top two address bits): pg_target's page at
   * 0x20010000 (way 1, ring 0, attribute 3), at 0x20012000 without
   * execute (attribute 2), 0x20011000 from the page table (its PTE at
   * 0x40480044, way 9 mapping that page to pages[1] too: PTE 0, not
   * executable), then with no page table (a miss). */
  tlb_ii(0x20000006);
  tlb_wd(0x40480009, PAGE(1) | 1);
  tlb_wi(0x20010001, (unsigned)pg_target | 3);
  start();
  result("call mapped", pg_call(0x20010000));
  tlb_wi(0x20012002, (unsigned)pg_target | 2);
  start();
  result("call attr 2", pg_call(0x20012000));
  start();
  result("call pte 0", pg_call(0x20011000));
  pg_set_ptevaddr(0x40800000);
  start();
  result("call miss", pg_call(0x20013000));
  pg_set_ptevaddr(PT_BASE);

  /* Rings: code and data of 0x00000000.. in ring 1 on both sides, then
   * ring-1 code loads from ring-0 and ring-1 pages and calls ring 0 and
   * ring 1 code. */
  tlb_wd(0x00000006, 0x10 | 3);
  tlb_wi(0x00000006, 0x10 | 3);
  start();
  result("ring 0 load in ring 0", pg_load(0x40001014));
  start();
  result("ring 0 load in ring 1", pg_ring1(0x40001014, 0));
  result(" first", pg_first[0]);
  start();
  result("ring 1 load in ring 1", pg_ring1(0x40006000, 0));
  result(" first", pg_first[0]);
  start();
  result("ring 0 call in ring 1", pg_ring1(0x40006000, 0x20010000));
  result(" first", pg_first[1]);
  tlb_wi(0x20014003, (unsigned)pg_target | 0x10 | 3);
  start();
  result("ring 1 call in ring 1", pg_ring1(0x40006000, 0x20014000));
  result(" first", pg_first[1]);

  sys_rec.skip = 0;
  return 47;
}
