/* The debug option for debug.c: break and break.n, ICOUNT, IBREAK, DBREAK. Each
 * returns the address the debug exception should report. */
#include "sysvec.inc"

	.section .text.do_break, "ax", @progbits
	.global do_break
	.p2align 2
.Lbreak_at:	.4byte 1f
do_break:	/* unsigned do_break(void) */
	entry	a1, 32
1:	break	1, 2
	l32r	a2, .Lbreak_at
	retw

	.section .text.do_break_n, "ax", @progbits
	.global do_break_n
	.p2align 2
.Lbreak_n_at:	.4byte 1f
do_break_n:	/* unsigned do_break_n(void) */
	entry	a1, 32
1:	break.n	3
	l32r	a2, .Lbreak_n_at
	retw

	.section .text.do_icount, "ax", @progbits
	.global do_icount
	.p2align 2
.Licount_from:	.4byte 1f
do_icount:	/* unsigned do_icount(unsigned start): ICOUNT = start, then
		 * ICOUNTLEVEL 1 and ten counted instructions; returns where
		 * counting started */
	entry	a1, 32
	wsr	a2, icount
	movi	a3, 1
	wsr	a3, icountlevel
1:	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	addi	a4, a4, 1
	movi	a3, 0
	wsr	a3, icountlevel
	l32r	a2, .Licount_from
	retw

	.section .text.get_icount, "ax", @progbits
	.global get_icount
	.p2align 2
get_icount:
	entry	a1, 32
	rsr	a2, icount
	retw

	.section .text.do_ibreak, "ax", @progbits
	.global do_ibreak
	.p2align 2
.Libreak_at:	.4byte 1f
do_ibreak:	/* unsigned do_ibreak(void): IBREAKA0 on an instruction ahead */
	entry	a1, 32
	l32r	a3, .Libreak_at
	wsr	a3, ibreaka0
	movi	a3, 1
	wsr	a3, ibreakenable
	isync
	addi	a4, a4, 1
	addi	a4, a4, 1
1:	addi	a4, a4, 1
	addi	a4, a4, 1
	l32r	a2, .Libreak_at
	retw

	.section .text.dbreak_load, "ax", @progbits
	.global dbreak_load
	.p2align 2
.Ldload_at:	.4byte 1f
dbreak_load:	/* unsigned dbreak_load(unsigned *p, unsigned a, unsigned c):
		 * DBREAKA0/C0 = a, c, then a word load from p; returns where */
	entry	a1, 32
	wsr	a3, dbreaka0
	wsr	a4, dbreakc0
	isync
1:	l32i	a5, a2, 0
	movi	a3, 0
	wsr	a3, dbreakc0
	l32r	a2, .Ldload_at
	retw

	.section .text.dbreak_store, "ax", @progbits
	.global dbreak_store
	.p2align 2
.Ldstore_at:	.4byte 1f
dbreak_store:	/* unsigned dbreak_store(unsigned char *p, unsigned a, unsigned c):
		 * DBREAKA1/C1 = a, c, then a byte store to p; returns where */
	entry	a1, 32
	wsr	a3, dbreaka1
	wsr	a4, dbreakc1
	isync
	movi	a5, 0x5a
1:	s8i	a5, a2, 0
	movi	a3, 0
	wsr	a3, dbreakc1
	l32r	a2, .Ldstore_at
	retw

/* The other access kinds DBREAK watches. Each: DBREAKA0/C0 = a, c; one
 * access through p; DBREAKC0 = 0; returns where the access is. */
#define WATCH(name, label, ...) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
label:	.4byte 1f; \
name:	entry a1, 32; \
	wsr a3, dbreaka0; wsr a4, dbreakc0; isync; mov a6, a2; \
	__VA_ARGS__; \
	movi a3, 0; wsr a3, dbreakc0; l32r a2, label; retw

/* unsigned dbreak_s32c1i(unsigned *p, unsigned a, unsigned c, unsigned atomctl):
 * s32c1i under ATOMCTL = atomctl (restored after); SCOMPARE1 = 0. */
WATCH(dbreak_s32c1i, .Lds32c1i_at, rsr a7, atomctl; wsr a5, atomctl; movi a8, 0; wsr a8, scompare1; movi a8, 7;
1:	s32c1i a8, a6, 0; wsr a7, atomctl)
/* ldinc m0 loads p[1], lddec m0 p[-1]. */
WATCH(dbreak_ldinc, .Ldldinc_at, 1: ldinc m0, a6)
WATCH(dbreak_lddec, .Ldlddec_at, 1: lddec m0, a6)
WATCH(dbreak_mula_ldinc, .Ldmula_at, 1: mula.dd.ll.ldinc m1, a6, m0, m2)
/* dhwb p: QEMU probes the line with a byte load. */
WATCH(dbreak_dhwb, .Lddhwb_at, 1: .byte 0x42, 0x76, 0x00)

	.section .note.GNU-stack, "", @progbits
