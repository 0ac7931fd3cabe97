/* The system-side test programs' exception record (sysvec.inc). */
#ifndef SYS_H
#define SYS_H
struct sys_rec {
  unsigned count, cause, skip, vaddr, resume, epc;
};
extern volatile struct sys_rec sys_rec;
/* Interrupts taken (sysvec.inc): seq holds the levels in order, one hex
 * digit each, the latest lowest; count[n] per level (count[0] unused);
 * the state at the latest entry; mask[n] the interrupts the level-n
 * handler acknowledges (count[0] and mask[0] unused). */
struct sys_irq {
  unsigned seq, count[8], last, epc, eps, ps, pending, debugcause, a3, a4, epc_add, mask[8];
  /* The general vector last entered: 0x340 user, 0x300 kernel. */
  unsigned vector;
};
extern volatile struct sys_irq sys_irq;
void sys_vectors_on(void);
/* Prints "WHAT VALUE exc COUNT CAUSE VADDR" from the exception record
 * (with rt.h's printers). */
static inline void sys_report(const char *what, unsigned value) {
  void t_puts(const char *s), t_putu(unsigned v), t_putx(unsigned v);
  t_puts(what);
  t_puts(" ");
  t_putx(value);
  t_puts(" exc ");
  t_putu(sys_rec.count);
  t_puts(" ");
  t_putu(sys_rec.cause);
  t_puts(" ");
  t_putx(sys_rec.vaddr);
  t_puts("\n");
}
/* rsil with a run-time level 0..7; returns the old PS. */
unsigned rsil_to(unsigned level);
#endif
