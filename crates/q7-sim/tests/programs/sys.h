/* The system-side test programs' exception record (sysvec.inc). */
#ifndef SYS_H
#define SYS_H
struct sys_rec {
  unsigned count, cause, skip, vaddr, resume, epc;
};
extern volatile struct sys_rec sys_rec;
void sys_vectors_on(void);
#endif
