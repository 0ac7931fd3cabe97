/* The debug option on QEMU's sample cores (debug level 6): break and
 * break.n raise a debug exception (DEBUGCAUSE BI 8 / BN 16, EPC6 the
 * break) unless PS.INTLEVEL is at or above the debug level, when they are
 * ignored; ICOUNT counts instructions while ICOUNTLEVEL is above the
 * current level and raises one (IC 1) when it would wrap to 0; IBREAKA0
 * with IBREAKENABLE raises one (IB 2) before the instruction there;
 * DBREAKAn/DBREAKCn one (DB 4, the number in bits 8..) before a load or
 * store (as DBREAKC enables) that overlaps the range DBREAKC's low six
 * bits mask. The level-6 handler (sysvec.inc) skips sys_irq.epc_add
 * bytes and disarms. */
#include "rt.h"
#include "sys.h"

unsigned do_break(void), do_break_n(void), do_icount(unsigned start), do_ibreak(void), get_icount(void);
unsigned dbreak_load(unsigned *p, unsigned a, unsigned c), dbreak_store(unsigned char *p, unsigned a, unsigned c);
unsigned dbreak_s32c1i(unsigned *p, unsigned a, unsigned c, unsigned atomctl);
unsigned dbreak_ldinc(unsigned *p, unsigned a, unsigned c), dbreak_lddec(unsigned *p, unsigned a, unsigned c);
unsigned dbreak_mula_ldinc(unsigned *p, unsigned a, unsigned c), dbreak_dhwb(unsigned *p, unsigned a, unsigned c);

#define LB (1u << 30)
#define SB (1u << 31)
static unsigned watched[4];

static void dbreak(const char *name, unsigned at) {
  t_puts(name);
  t_puts(": seq=");
  t_putx(sys_irq.seq);
  t_puts(" cause=");
  t_putx(sys_irq.debugcause);
  t_puts(" epc_ok=");
  t_putu(sys_irq.seq ? sys_irq.epc == at : 0);
  t_puts("\n");
}

static void show(const char *name, unsigned v) {
  t_puts(name);
  t_puts("=");
  t_putx(v);
  t_puts("\n");
}

static void reset_log(void) {
  sys_irq.seq = 0;
  sys_irq.debugcause = 0;
  for (int n = 0; n < 8; n++) sys_irq.count[n] = 0;
}

int main(void) {
  sys_vectors_on();

  reset_log();
  sys_irq.epc_add = 3;
  unsigned at = do_break();
  show("break_seq", sys_irq.seq);
  show("break_cause", sys_irq.debugcause);
  show("break_epc_ok", sys_irq.epc == at);
  show("break_eps", sys_irq.eps & 0x3f);
  show("break_ps", sys_irq.ps & 0x3f);

  reset_log();
  sys_irq.epc_add = 2;
  at = do_break_n();
  show("break_n_seq", sys_irq.seq);
  show("break_n_cause", sys_irq.debugcause);
  show("break_n_epc_ok", sys_irq.epc == at);

  /* At INTLEVEL 6 (the debug level) break is ignored. */
  reset_log();
  rsil_to(6);
  do_break();
  do_break_n();
  rsil_to(0);
  show("masked_break_seq", sys_irq.seq);
  /* At INTLEVEL 5 it is taken. */
  reset_log();
  sys_irq.epc_add = 3;
  rsil_to(5);
  do_break();
  rsil_to(0);
  show("level5_break_seq", sys_irq.seq);
  show("level5_break_eps", sys_irq.eps & 0xf);

  /* ICOUNT from -4: the exception comes at the fourth counted insn. */
  for (unsigned start = 0xfffffffcu; start != 0xfffffff9u; start--) {
    reset_log();
    sys_irq.epc_add = 0;
    unsigned from = do_icount(start);
    t_puts("icount ");
    t_putx(start);
    t_puts(": seq=");
    t_putx(sys_irq.seq);
    t_puts(" cause=");
    t_putx(sys_irq.debugcause);
    t_puts(" at=");
    t_putd((int)(sys_irq.epc - from));
    t_puts(" icount=");
    t_putx(get_icount());
    t_puts("\n");
  }
  /* ICOUNT far from wrapping counts without an exception. */
  reset_log();
  do_icount(100);
  show("icount_counted", get_icount() - 100);
  show("icount_seq", sys_irq.seq);

  reset_log();
  sys_irq.epc_add = 0;
  at = do_ibreak();
  show("ibreak_seq", sys_irq.seq);
  show("ibreak_cause", sys_irq.debugcause);
  show("ibreak_epc_ok", sys_irq.epc == at);

  /* DBREAK: a load of the watched word (all address bits compared: one
   * byte); a byte store into a 4-byte range (low two bits ignored); a
   * store-only break on a load and a break on another word miss. (At the
   * debug level QEMU retries the access forever: not tested.) */
  sys_irq.epc_add = 0;
  unsigned w = (unsigned)&watched[1];
  reset_log();
  dbreak("load_hit", dbreak_load(&watched[1], w + 3, LB | 0x3f));
  reset_log();
  dbreak("store_hit", dbreak_store((unsigned char *)&watched[1] + 2, w, SB | 0x3c));
  reset_log();
  dbreak("load_on_store_break", dbreak_load(&watched[1], w, SB | 0x3f));
  reset_log();
  dbreak("other_word", dbreak_load(&watched[2], w, LB | SB | 0x3c));
  /* The other access kinds: s32c1i (a read and a write: either kind of
   * break catches it), MAC16's ldinc/lddec (a load at p +/- 4), dhwb (a
   * byte load). */
  reset_log();
  dbreak("s32c1i_load", dbreak_s32c1i(&watched[1], w, LB | 0x3c, 0x15));
  reset_log();
  dbreak("s32c1i_store", dbreak_s32c1i(&watched[1], w, SB | 0x3f, 0x15));
  reset_log();
  dbreak("s32c1i_other", dbreak_s32c1i(&watched[2], w, LB | SB | 0x3c, 0x15));
  reset_log();
  dbreak("ldinc_hit", dbreak_ldinc(&watched[0], w, LB | 0x3f));
  reset_log();
  dbreak("ldinc_store_break", dbreak_ldinc(&watched[0], w, SB | 0x3c));
  reset_log();
  dbreak("ldinc_other", dbreak_ldinc(&watched[1], w, LB | 0x3c));
  reset_log();
  dbreak("lddec_hit", dbreak_lddec(&watched[2], w, LB | 0x3c));
  reset_log();
  dbreak("lddec_other", dbreak_lddec(&watched[1], w, LB | 0x3c));
  reset_log();
  dbreak("mula_ldinc_hit", dbreak_mula_ldinc(&watched[0], w + 2, LB | 0x3e));
  reset_log();
  dbreak("dhwb_hit", dbreak_dhwb(&watched[1], w, LB | 0x3f));
  reset_log();
  dbreak("dhwb_other", dbreak_dhwb(&watched[2], w, LB | 0x3c));
  t_puts("done\n");
  return 37;
}
