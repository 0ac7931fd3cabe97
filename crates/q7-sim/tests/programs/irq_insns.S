/* Interrupt and timer helpers for irq.c: raw special-register access and
 * the instructions whose pc the checks need. */
#include "sysvec.inc"

#define GETTER(name, reg) \
	.section .text.name, "ax", @progbits; .global name; .p2align 2; \
name: entry a1, 32; rsr a2, reg; retw
#define SETTER(name, reg) \
	.section .text.name, "ax", @progbits; .global name; .p2align 2; \
name: entry a1, 32; wsr a2, reg; rsync; retw

GETTER(get_interrupt, interrupt)
GETTER(get_intenable, intenable)
GETTER(get_ccount, ccount)
GETTER(get_ps, ps)
GETTER(get_ccompare0, ccompare0)
SETTER(set_ps, ps)
SETTER(set_intset, intset)
SETTER(set_intclear, intclear)
SETTER(set_intenable, intenable)
SETTER(set_ccount, ccount)
SETTER(set_ccompare0, ccompare0)
SETTER(set_ccompare1, ccompare1)
SETTER(set_ccompare2, ccompare2)

/* unsigned raise_at(unsigned bits): wsr intset; returns the address of
 * the instruction after it (where an interrupt taken at once returns). */
	.section .text.raise_at, "ax", @progbits
	.global raise_at
	.p2align 2
.Lafter_raise:	.4byte 1f
raise_at:
	entry	a1, 32
	wsr	a2, intset
1:	l32r	a2, .Lafter_raise
	retw

/* unsigned wait_at(unsigned level): waiti level; returns the address of
 * the instruction after the waiti. */
	.section .text.wait_at, "ax", @progbits
	.global wait_at
	.p2align 2
.Lafter_wait:	.4byte 1f
wait_at:
	entry	a1, 32
	.irp l, 0, 1, 2, 3
	movi	a5, \l
	bne	a2, a5, 2f
	waiti	\l
	j	1f
2:
	.endr
1:	l32r	a2, .Lafter_wait
	retw

/* unsigned spin_until(volatile unsigned *flag, unsigned limit): counts
 * loop iterations (4 instructions each) until *flag != 0 or limit. */
	.section .text.spin_until, "ax", @progbits
	.global spin_until
	.p2align 2
spin_until:
	entry	a1, 32
	movi	a4, 0
1:	l32i	a5, a2, 0
	bnez	a5, 2f
	addi	a4, a4, 1
	bne	a4, a3, 1b
2:	mov	a2, a4
	retw

	.section .note.GNU-stack, "", @progbits
