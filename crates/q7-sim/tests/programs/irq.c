/* Interrupts and timers on QEMU's sample cores (both: software interrupts
 * 7 (level 1) and 11 (level 3); timers CCOMPARE0/1/2 on interrupts 6, 10
 * and 13 at levels 1, 3 and 5): INTSET/INTCLEAR/INTENABLE/INTERRUPT,
 * masking by PS.INTLEVEL and PS.EXCM, rsil, the level-1 (user or kernel
 * vector as PS.UM says, EXCCAUSE 4) and level-n vectors with EPCn/EPSn and rfi, CCOUNT and wsr
 * ccount, CCOMPAREn raising its interrupt, waiti woken by a timer. Timing
 * is checked in windows: under QEMU -icount shift=0,sleep=off, CCOUNT
 * counts one cycle per 25 instructions (the cores' 40 MHz at 1 ns per
 * instruction), from a phase that varies run to run. */
#include "rt.h"
#include "sys.h"

unsigned get_interrupt(void), get_intenable(void), get_ccount(void), get_ps(void);
void set_intset(unsigned), set_intclear(unsigned), set_intenable(unsigned), set_ccount(unsigned);
void set_ccompare0(unsigned), set_ccompare1(unsigned), set_ccompare2(unsigned), set_ps(unsigned);
unsigned raise_at(unsigned bits), wait_at(unsigned level);
unsigned spin_until(volatile unsigned *flag, unsigned limit);

#define SW1 (1u << 7)
#define SW3 (1u << 11)
#define T0 (1u << 6)
#define T1 (1u << 10)
#define T2 (1u << 13)

static void show(const char *name, unsigned v) {
  t_puts(name);
  t_puts("=");
  t_putx(v);
  t_puts("\n");
}

static void reset_log(void) {
  sys_irq.seq = 0;
  for (int n = 0; n < 8; n++) sys_irq.count[n] = 0;
}

int main(void) {
  sys_vectors_on();
  /* The interrupts of each level (the boards' XCHAL_INTLEVELn_MASK). */
  static const unsigned level_mask[8] = {0, 0x001f80ff, 0x100, 0x00200e00, 0x1000, 0x2000, 0, 0x4000};
  for (int n = 0; n < 8; n++) sys_irq.mask[n] = level_mask[n];
  show("ps", get_ps() & 0x3f);

  /* Pending but disabled: INTERRUPT shows it; INTCLEAR clears software
   * interrupts; INTSET sets nothing but software interrupts. */
  set_intenable(0);
  set_intset(SW1 | SW3 | T0 | 1);
  show("interrupt", get_interrupt() & ~(T0 | T1 | T2));
  set_intclear(SW1);
  show("after_clear", get_interrupt() & ~(T0 | T1 | T2));
  set_intclear(SW3);
  show("intenable_mask", (set_intenable(~0u), get_intenable()));
  set_intenable(0);

  /* Level 1 at once, through the user vector: EPC1 is the next insn. */
  reset_log();
  set_intenable(SW1);
  unsigned after = raise_at(SW1);
  show("l1_count", sys_irq.count[1]);
  show("l1_epc_ok", sys_irq.epc == after);
  show("l1_ps", sys_irq.ps & 0x3f);
  show("l1_pending", sys_irq.pending & ~(T0 | T1 | T2));

  show("l1_vector", sys_irq.vector);

  /* With PS.UM clear, level 1 goes through the kernel vector. */
  reset_log();
  set_intenable(SW1);
  unsigned ps_user = get_ps();
  set_ps(ps_user & ~0x20u);
  after = raise_at(SW1);
  set_ps(ps_user);
  show("kernel_count", sys_irq.count[1]);
  show("kernel_vector", sys_irq.vector);
  show("kernel_epc_ok", sys_irq.epc == after);
  show("kernel_ps", sys_irq.ps & 0x3f);

  /* Level 3: its vector, EPS3 = PS before, PS.INTLEVEL 3 and EXCM inside,
   * rfi 3 restores PS. */
  reset_log();
  set_intenable(SW3);
  unsigned ps_before = get_ps();
  after = raise_at(SW3);
  show("l3_seq", sys_irq.seq);
  show("l3_epc_ok", sys_irq.epc == after);
  show("l3_eps", sys_irq.eps & 0x3f);
  show("l3_ps", sys_irq.ps & 0x3f);
  show("ps_restored", (get_ps() & 0x3f) == (ps_before & 0x3f));

  /* Masking: at INTLEVEL 3 neither is taken; lowering to 2 takes level 3,
   * lowering to 0 then takes level 1. */
  reset_log();
  set_intenable(SW1 | SW3);
  rsil_to(3);
  set_intset(SW1 | SW3);
  show("masked_seq", sys_irq.seq);
  show("masked_pending", get_interrupt() & (SW1 | SW3));
  rsil_to(2);
  show("rsil2_seq", sys_irq.seq);
  rsil_to(0);
  show("rsil0_seq", sys_irq.seq);
  show("old_ps_level", rsil_to(0) & 0xf);

  /* CCOUNT counts (and wsr ccount sets it). */
  unsigned c0 = get_ccount();
  unsigned n = spin_until(&sys_irq.count[7], 500);
  unsigned c1 = get_ccount();
  show("spin", n);
  show("ccount_moves", c1 - c0 >= 70 && c1 - c0 <= 90);
  set_ccount(1000000);
  c0 = get_ccount();
  show("ccount_set", c0 >= 1000000 && c0 <= 1000002);

  /* A timer's bit shows in INTERRUPT while disabled; writing its CCOMPARE
   * clears it. */
  set_intenable(0);
  set_ccompare2(get_ccount() + 10);
  spin_until(&sys_irq.count[7], 200);
  show("t2_pending", (get_interrupt() & T2) != 0);
  set_ccompare2(get_ccount() - 1);
  show("t2_cleared", (get_interrupt() & T2) == 0);

  /* CCOMPARE0 (level 1) fires 40 cycles on: about 1000 instructions,
   * 250 iterations of the spin loop. */
  reset_log();
  set_intenable(T0);
  set_ccompare0(get_ccount() + 40);
  n = spin_until(&sys_irq.count[1], 100000);
  show("t0_seq", sys_irq.seq);
  show("t0_window", n >= 230 && n <= 260);
  show("t0_pending", (sys_irq.pending & T0) != 0);

  /* CCOMPARE1 (level 3) wakes waiti 0 after 100 cycles; the handler
   * returns past the waiti. */
  reset_log();
  set_intenable(T1);
  c0 = get_ccount();
  set_ccompare1(c0 + 100);
  unsigned back = wait_at(0);
  c1 = get_ccount();
  show("waiti_seq", sys_irq.seq);
  show("waiti_slept", c1 - c0 >= 99 && c1 - c0 <= 104);
  show("waiti_epc", sys_irq.epc - (unsigned)wait_at);
  (void)back;

  /* CCOMPARE2: level 5, through its own vector. */
  reset_log();
  set_intenable(T2);
  set_ccompare2(get_ccount() + 20);
  n = spin_until(&sys_irq.count[5], 100000);
  show("t2_seq", sys_irq.seq);
  show("t2_window", n >= 100 && n <= 140);
  set_intenable(0);
  t_puts("done\n");
  return 31;
}
